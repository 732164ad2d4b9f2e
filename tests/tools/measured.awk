# Random measured inputs for `ppsim calibrate`, for the law of tests/cli/t_calibrate.sh
# (whatever calibrate writes, ppsim -c reads and simulates): CSVs of stage, op and ms and
# Megatron-LM logs, with times near the tick (1e-6 ms) and near the limit (1e9 ms), many stages
# (stage_scale up to and past the 1024 factors a config holds), and a hostile tester's
# mutations: NaN, inf, negative, huge and tiny values, junk after a number, rows with fields
# missing or added, a stage skipped, timer blocks cut or doubled, CRLF, a byte order mark, no
# final newline, a file cut at any byte.
#
# Usage: awk -v seed=S -v n=N -v dir=DIR -f measured.awk
# Writes DIR/K.csv or DIR/K.log for K = 1..N and prints one line per case: its file, then the
# arguments calibrate takes before it (-m M --w-share=W).

function pick(n) { return int(rand() * n) }
function chance(p) { return rand() < p }
function logu(lo, hi) { return exp(log(lo) + rand() * (log(hi) - log(lo))) }

# A time of the case's regime: ordinary, near the tick, near the limit, or anything between.
function ms(regime) {
	if (regime == 0) return logu(0.05, 500)
	if (regime == 1) return logu(3e-7, 1e-4)
	if (regime == 2) return logu(1e7, 1.2e9)
	return logu(1e-7, 2e9)
}

# A number as a file would hold it: all its digits, or a few; one of a case's numbers may be
# a hostile token instead (spoil: the numbers left before it, -1 for none).
function num(x) {
	if (spoil-- == 0) return hostile[1 + pick(nhostile)]
	return chance(0.5) ? sprintf("%.17g", x) : sprintf("%.4g", x)
}

function csv_case(file,    p, regime, s, k, f, b, w, lines, nl, i, j, t, eol, skip, nof, text,
                  rot) {
	p = sizes[1 + pick(nsizes)]
	regime = pick(4)
	eol = chance(0.1) ? "\r\n" : "\n"
	skip = chance(0.03) ? pick(p) : -1
	nof = chance(0.03) ? pick(p) : -1
	nl = 0
	for (s = 0; s < p; s++) {
		if (s == skip) continue
		# the stages' proportions alike (one scale fits them) or each its own
		k = chance(0.5) ? logu(0.5, 2) : 1
		f = ms(regime) * k; b = chance(0.5) ? f * 2 : ms(regime); w = chance(0.5) ? f : ms(regime)
		if (s != nof) lines[++nl] = s ",F," num(f)
		if (chance(0.5)) {
			lines[++nl] = s ",B," num(b)
			lines[++nl] = s ",W," num(w)
		} else {
			lines[++nl] = s ",BW," num(b + w)
		}
		if (chance(0.05)) lines[++nl] = s ",F," num(f * logu(0.9, 1.1)) # measured twice
	}
	if (chance(0.3)) lines[++nl] = "0,comm," num(ms(regime))
	if (chance(0.03)) lines[pick(nl) + 1] = "0,F"             # a field missing
	if (chance(0.03)) lines[pick(nl) + 1] = "0,F,1,2"         # a field too many
	if (chance(0.02)) lines[pick(nl) + 1] = "0,X,1"           # an unknown op
	for (i = nl; i > 1 && chance(0.2); i--) {                 # rows in another order
		j = pick(i) + 1; t = lines[i]; lines[i] = lines[j]; lines[j] = t
	}
	rot = chance(0.5) # the columns in another order
	text = (chance(0.05) ? "\357\273\277" : "") (chance(0.1) ? "# measured" eol : "")
	text = text (chance(0.02) ? "stage,op,ms,ms" : rot ? "op,ms,stage" : "stage,op,ms") eol
	for (i = 1; i <= nl; i++)
		text = text (rot ? rotate(lines[i]) : lines[i]) eol
	finish(file, text)
}

# A CSV row stage,op,ms as op,ms,stage.
function rotate(row,    f, n) {
	n = split(row, f, ",")
	return n == 3 ? f[2] "," f[3] "," f[1] : row
}

function megatron_case(file,    blocks, regime, i, eol, f, b, text, both) {
	blocks = 1 + pick(5)
	regime = pick(4)
	eol = chance(0.1) ? "\r\n" : "\n"
	text = ""
	for (i = 1; i <= blocks; i++) {
		text = text " iteration        " i "/     100 | elapsed time per iteration (ms): 1.0" eol
		if (chance(0.05)) text = text "(min, max) time across ranks (ms):" eol
		if (chance(0.1))
			text = text "(min, max) time across ranks (ms):" eol \
			       "    save-checkpoint ................................: (10.00, 20.00)" eol
		both = chance(0.5)
		text = text (both ? "(min, max) time across ranks (ms):" : "max time across ranks (ms):") eol
		f = ms(regime) * 8; b = f * logu(1, 3)
		if (!chance(0.04))
			text = text "    forward-compute ................................: " timer(f, both) eol
		if (chance(0.03))
			text = text "    forward-compute ................................: " timer(f, both) eol
		if (!chance(0.04))
			text = text "    backward-compute ...............................: " timer(b, both) eol
	}
	finish(file, text)
}

# A timer's value: (MIN, MAX) or MAX.
function timer(x, both) {
	if (spoil == 0) {
		spoil = -1
		return hostile_timer[1 + pick(nhostile_timer)]
	}
	return both ? "(" num(x * logu(0.5, 1)) ", " num(x) ")" : num(x)
}

# Writes text to file: whole, without its final newline, or cut at any byte.
function finish(file, text) {
	if (chance(0.06)) text = substr(text, 1, length(text) - 1)
	else if (chance(0.06)) text = substr(text, 1, pick(length(text)))
	printf "%s", text >file
	close(file)
}

BEGIN {
	srand(seed)
	nsizes = split("1 1 2 3 4 8 8 16 64 200 1023 1024 1025 1300", sizes, " ")
	nhostile = split("nan,inf,-inf,-1,0,,1.5x,1e400,1e-400,0x10, 2 ,+,1e", hostile, ",")
	nhostile_timer = split("(nan, nan)|(5.00, 3.00)|(-1.00, 2.00)|inf|(1.00, 2.00) ms|(1.00,|()",
	                       hostile_timer, "|")
	nm = split("1 8 8 64 1000 100000 16777216", mbs, " ")
	nw = split("0 0.3 0.5 1 1e-9", shares, " ")
	for (c = 1; c <= n; c++) {
		m = mbs[1 + pick(nm)]
		megatron = chance(0.5)
		spoil = chance(0.15) ? pick(megatron ? 10 : 40) : -1
		file = dir "/" c (megatron ? ".log" : ".csv")
		if (megatron) megatron_case(file); else csv_case(file)
		# a large m with many stages is refused (too many ops): keep those few
		if (!megatron && m >= 100000 && !chance(0.1)) m = 8
		print file " -m " m " --w-share=" shares[1 + pick(nw)]
	}
}
