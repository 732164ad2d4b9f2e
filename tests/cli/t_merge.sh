# ppsim merge: the shard files of a sweep (--shard-file) merge into the bytes the sweep without
# --shard writes, for any number of shards, any format and any order of the files; a set of files
# that is not every shard of one sweep once, or a file that is not a whole shard, is refused with
# one line and a non-zero exit, writing nothing and leaving every file as it was.

M="$TMP/merge"
mkdir -p "$M"
T=$(printf '\t')

# shards ARGS -- N PREFIX: runs `ppsim sweep ARGS --shard=K/N --shard-file=PREFIX-K.pps` for
# K = 1..N (standard output dropped); the files' names in shard order go to $files, and in a
# shuffled order (odd shards backwards, then even ones) to $shuffled.
shards() {
	n=$1 prefix=$2
	shift 2
	files="" shuffled="" evens=""
	k=1
	while [ $k -le "$n" ]; do
		ppsim sweep "$@" --shard=$k/"$n" --shard-file="$prefix-$k.pps" >/dev/null 2>"$M/err" ||
			not_ok "sweep $* --shard=$k/$n: $(head -c 200 "$M/err")"
		files="$files $prefix-$k.pps"
		if [ $((k % 2)) -eq 1 ]; then shuffled="$prefix-$k.pps $shuffled"; else evens="$evens $prefix-$k.pps"; fi
		k=$((k + 1))
	done
	shuffled="$shuffled$evens"
}

# same WHAT FILE1 FILE2: the two files hold the same bytes (and the first is not empty).
same() {
	if [ -s "$2" ] && cmp -s "$2" "$3"; then ok; else
		not_ok "merge: $1 differs from the sweep's output"
		diff "$2" "$3" | head -5
	fi
}

# 1. Byte identity: the acceptance grid (180 points, some skipped) in each format, split into
#    1, 2, 3, 7 and 250 shards (more shards than points: some empty), files in any order.
GRID="-p 2,4,8 -m 4:64:x2 -v 1,2,4 --schedules=gpipe,1f1b,interleaved,zbh1"
for fmt in text jsonl csv; do
	# shellcheck disable=SC2086 # GRID is words
	ppsim sweep $GRID --format=$fmt >"$M/whole.$fmt"
	for n in 1 2 3 7 250; do
		[ $n -eq 250 ] && [ $fmt != csv ] && continue # the slowest case, once
		# shellcheck disable=SC2086
		shards $n "$M/g$fmt$n" $GRID --format=$fmt --jobs=2
		# shellcheck disable=SC2086 # the file lists are words
		ppsim merge $files >"$M/merged" 2>"$M/err"
		same "$fmt, $n shards" "$M/whole.$fmt" "$M/merged"
		# shellcheck disable=SC2086
		ppsim merge $shuffled >"$M/merged" 2>"$M/err"
		same "$fmt, $n shards in the order$shuffled" "$M/whole.$fmt" "$M/merged"
		[ -s "$M/err" ] && not_ok "merge $fmt $n: wrote to stderr: $(head -c 200 "$M/err")"
	done
done
# merge's own --format and --top over the sweep's: the shards of the jsonl sweep give the table
# and the CSV, the text sweep's the records
# shellcheck disable=SC2086
ppsim sweep $GRID --top=3 >"$M/top3"
# shellcheck disable=SC2086
ppsim merge --format=text --top=3 "$M"/gjsonl3-*.pps >"$M/merged" && same "--format=text --top=3" "$M/top3" "$M/merged"
# shellcheck disable=SC2086
ppsim merge -f csv "$M"/gtext2-*.pps >"$M/merged" && same "-f csv of text shards" "$M/whole.csv" "$M/merged"
# shellcheck disable=SC2086
ppsim merge --format=jsonl "$M"/gcsv7-*.pps >"$M/merged" && same "--format=jsonl of csv shards" "$M/whole.jsonl" "$M/merged"

# 2. A sweep priced from a model, its base in a config file, over memory points ranked last or
#    skipped (--fits), with --top, --records and --html: the same bytes everywhere, also when the
#    config file has changed or gone (the shards hold its text).
cat >"$M/base.json" <<'EOF'
{
  "model": "llama3-8b",
  "gpu": "h100-sxm",
  "gpus": 16,
  "global_batch": 64
}
EOF
MODEL="-c $M/base.json --tp=1,2,4,8 -p 1,2,4 --mbs=1,2 -s 1f1b,zbv"
for fits in "" --fits; do
	# shellcheck disable=SC2086
	ppsim sweep $MODEL $fits --top=5 --records="$M/whole.csv" --html="$M/whole.html" >"$M/whole.txt"
	# shellcheck disable=SC2086
	shards 4 "$M/model$fits" $MODEL $fits --top=5 --records="$M/shard.jsonl"
	echo '{"model": "llama3-70b"}' >"$M/base.json"
	# shellcheck disable=SC2086
	ppsim merge --records="$M/merged.csv" --html="$M/merged.html" $shuffled >"$M/merged.txt"
	same "a model's sweep ${fits:-without --fits}" "$M/whole.txt" "$M/merged.txt"
	same "a model's sweep's --records" "$M/whole.csv" "$M/merged.csv"
	same "a model's sweep's --html" "$M/whole.html" "$M/merged.html"
	rm -f "$M/base.json"
	# shellcheck disable=SC2086
	ppsim merge --format=jsonl $files >"$M/merged.jsonl"
	cat >"$M/base.json" <<'EOF'
{
  "model": "llama3-8b",
  "gpu": "h100-sxm",
  "gpus": 16,
  "global_batch": 64
}
EOF
	# shellcheck disable=SC2086
	ppsim sweep $MODEL $fits --format=jsonl >"$M/whole.jsonl"
	same "a model's sweep as jsonl" "$M/whole.jsonl" "$M/merged.jsonl"
done
# a sweep of noise samples ranked by a percentile (--rank-by, which the shards hold among their
# settings): merged, the same bytes as the sweep
NOISY="-p 2,4 -m 4,8 --samples=5 --jitter=lognormal:0.1 --rank-by=p99"
# shellcheck disable=SC2086
ppsim sweep $NOISY >"$M/noisy.txt"
# shellcheck disable=SC2086
shards 2 "$M/noisy" $NOISY
# shellcheck disable=SC2086
ppsim merge $shuffled >"$M/merged" 2>"$M/err" || not_ok "merge --rank-by shards: $(head -c 200 "$M/err")"
same "a sweep ranked by --rank-by=p99" "$M/noisy.txt" "$M/merged"
# a shard file without --shard is the one shard of its sweep
ppsim sweep -p 2,4 -m 4,8 --shard-file="$M/one.pps" >"$M/one.txt"
ppsim merge "$M/one.pps" >"$M/merged" && same "one shard of 1/1" "$M/one.txt" "$M/merged"
# a shard file is text: a head that says what made it, then one line a record
if [ "$(head -n 1 "$M/one.pps")" = "$(printf 'ppsim-shard\t1')" ] &&
	grep -q "^shard${T}1${T}1$" "$M/one.pps" && grep -q "^points${T}0${T}4${T}4$" "$M/one.pps" &&
	grep -q "^run${T}arg${T}-p$" "$M/one.pps" && grep -q "^end${T}4$" "$M/one.pps"; then ok; else
	not_ok "shard file: its head is not as docs/output.md says: $(head -c 300 "$M/one.pps")"
fi

# 3. Refusals: one line, the exit status, nothing on stdout, no file written or changed.
shards 3 "$M/a" -p 2,4,8 -m 4,8,16
shards 3 "$M/b" -p 2,4,8 -m 4,8
shards 2 "$M/c" -p 2,4,8 -m 4,8,16
cp "$M/a-2.pps" "$M/copy-2.pps"
: >"$M/empty.pps"
ppsim sweep -p 2,4 --format=jsonl >"$M/records.jsonl"
head -n 12 "$M/a-3.pps" >"$M/cut.pps"
sed "s/^0${T}1${T}/0${T}2${T}/" "$M/a-1.pps" >"$M/edited.pps" # a record's ok is 0 or 1
# a points line that is not its shard's: the file is blamed, not the shard after it
awk -F"$T" -v OFS="$T" '$1 == "points" { $3 = $3 + 1 } { print }' "$M/a-2.pps" >"$M/edited-points.pps"
# values no sweep writes: a schedule no generator has, a negative makespan
sed "s/^0${T}1${T}0${T}\([0-9,]*\)${T}1f1b${T}/0${T}1${T}0${T}\1${T}nosuch${T}/" "$M/a-1.pps" \
	>"$M/edited-schedule.pps"
awk -F"$T" -v OFS="$T" '$1 == "0" && $2 == "1" && !done { $20 = "-" $20; done = 1 } { print }' \
	"$M/a-1.pps" >"$M/edited-makespan.pps" # column 20 is the makespan
awk -F"$T" -v OFS="$T" '$1 ~ /^[0-9]+$/ && $2 == "1" { last = NR } { line[NR] = $0 }
	END { for (i = 1; i <= NR; i++) { if (i == last) { $0 = line[i]; $20 = "-" $20; print }
		else print line[i] } }' "$M/a-3.pps" >"$M/edited-last.pps"
a1="$M/a-1.pps" a2="$M/a-2.pps" a3="$M/a-3.pps" b2="$M/b-2.pps"
# settings that a sweep's shard never writes: an output, or an option that stops the merge
sed "s|^run${T}arg${T}-p\$|run${T}arg${T}--records=$M/evil.csv|" "$M/one.pps" >"$M/evil-records.pps"
sed "s|^run${T}arg${T}-p\$|run${T}arg${T}--help|" "$M/one.pps" >"$M/evil-help.pps"
sed "s|^run${T}format${T}text\$|run${T}format${T}html|" "$M/one.pps" >"$M/evil-format.pps"
sums() { cksum "$M"/*.pps "$M"/*.jsonl | sort; }
sums >"$M/before"
fails 2 "merge: shard 3 of 3 is missing (2 of the 3 shards given)" merge "$a1" "$a2"
fails 2 "merge: shard 1 of 3 is missing" merge "$a3" "$a2"
fails 2 "merge: '$a2' is given twice" merge "$a1" "$a2" "$a3" "$a2"
fails 2 "are both shard 2 of 3" merge "$a1" "$a2" "$M/copy-2.pps" "$a3"
fails 2 "merge: '$a1' and '$b2' are shards of different runs: setting 4 (arg): '4,8,16' against '4,8'" \
	merge "$a1" "$b2" "$a3"
fails 2 "are shards of different runs: one of 3 shards against one of 2" merge "$a1" "$a2" "$a3" "$M/c-1.pps"
fails 3 "shard '$M/records.jsonl':1: not a shard file (it starts with a ppsim-shard line)" \
	merge "$a1" "$M/records.jsonl"
fails 3 "shard '$M/empty.pps': an empty file, not a shard" merge "$M/empty.pps" "$a1"
fails 3 "shard '$M/cut.pps':13: the file ends after" merge "$a1" "$a2" "$M/cut.pps"
fails 3 "shard '$M/edited.pps':" merge "$M/edited.pps" "$a2" "$a3"
fails 3 "column 'schedule': 'nosuch' is no schedule, which no run writes (an edited file?)" \
	merge "$M/edited-schedule.pps" "$a2" "$a3"
fails 3 "column 'makespan': -" merge "$M/edited-makespan.pps" "$a2" "$a3"
# the last record of the last shard: nothing written before it is found, in every format, to a
# pipe too (a regular file's standard output is put back whole; a pipe's bytes are gone)
for f in text csv jsonl; do
	fails 3 "column 'makespan': -" merge --format=$f "$a1" "$a2" "$M/edited-last.pps"
	{ ppsim merge --format=$f "$a1" "$a2" "$M/edited-last.pps" 2>/dev/null
		echo $? >"$M/piped.status"; } | cat >"$M/piped.out"
	if [ "$(cat "$M/piped.status")" = 3 ] && [ ! -s "$M/piped.out" ]; then ok; else
		not_ok "merge --format=$f to a pipe, a bad last record: status $(cat "$M/piped.status"), wrote $(head -c 80 "$M/piped.out")"
	fi
done
fails 3 "shard '$M/edited-points.pps': points" merge "$a1" "$M/edited-points.pps" "$a3"
fails 3 "shard '$M/evil-records.pps': a setting a sweep does not make: '--records=$M/evil.csv'" merge "$M/evil-records.pps"
[ ! -e "$M/evil.csv" ] && ok || not_ok "merge wrote the --records file a shard's settings named"
fails 3 "shard '$M/evil-help.pps': a setting a sweep does not make: '--help'" merge "$M/evil-help.pps"
fails 3 "shard '$M/evil-format.pps': no format of a sweep's report" merge "$M/evil-format.pps"
fails 4 "cannot read '$M/none.pps'" merge "$a1" "$M/none.pps"
# a noise sample's value no run writes (an edited shard) is refused as a sweep's is: a step not
# finite or below 0, a ratio or share above 1, a device the run does not have
NS="$TMP/edited-samples"
mkdir -p "$NS"
A="-p 4 -m 8 --samples=4 --jitter=lognormal:0.2 --timeline=0"
# shellcheck disable=SC2086
ppsim $A --shard=1/2 --shard-file="$NS/n1.pps" >/dev/null
# shellcheck disable=SC2086
ppsim $A --shard=2/2 --shard-file="$NS/n2.pps" >/dev/null
for edit in '$2="inf"|step'"'"': inf is not finite' '$2="-3"|step'"'"': -3 is below 0' \
	'$3="1.5"|bubble_ratio'"'"': 1.5 is above 1' '$5="-0.5"|critical_share'"'"': -0.5 is below 0'; do
	awk -F"$T" -v OFS="$T" "\$1 == \"0\" { ${edit%%|*} } 1" "$NS/n1.pps" >"$NS/nx.pps"
	fails 3 "shard '$NS/nx.pps':15: column '${edit#*|}" merge "$NS/nx.pps" "$NS/n2.pps"
done
awk -F"$T" -v OFS="$T" '$1 == "0" { $4 = "4" } 1' "$NS/n1.pps" >"$NS/nx.pps"
fails 3 "sample 0: critical device 4, where the run has devices 0 to 3" merge "$NS/nx.pps" "$NS/n2.pps"
fails 2 "are shards of different runs: a run's noise samples against a sweep's points" \
	merge "$NS/n1.pps" "$a1"
# a record of a shape no run has (zbv at v = 1) or a step shorter than its makespan is an
# edited one
ppsim sweep -p 2 -m 4 -s zbv --shard=1/1 --shard-file="$NS/z.pps" >/dev/null
awk -F"$T" -v OFS="$T" '$1 == "0" { $7 = "1" } 1' "$NS/z.pps" >"$NS/zx.pps"
fails 3 "column 'v': zbv runs no v = 1" merge "$NS/zx.pps"
ppsim sweep --model=llama3-8b --layers=4 -p 2 -m 4 --gpus=2 -s 1f1b --shard=1/1 \
	--shard-file="$NS/y.pps" >/dev/null
awk -F"$T" -v OFS="$T" '$1 == "0" { $20 = "999999" } 1' "$NS/y.pps" >"$NS/yx.pps"
fails 3 "column 'step_time': 301.782 is below the makespan 999999" merge "$NS/yx.pps"
# the files a run reads by name are held by their fingerprints: shards of one empirical jitter
# file edited between them are of different runs, and a schedule file changed before the merge,
# which merge runs again for the deterministic figures, is refused naming it
printf 'kind,stage,value\n*,*,1\n*,*,3\n' >"$NS/emp.csv"
E="-p 4 -m 8 --samples=4 --jitter=empirical:$NS/emp.csv --timeline=0"
# shellcheck disable=SC2086
ppsim $E --shard=1/2 --shard-file="$NS/e1.pps" >/dev/null
printf 'kind,stage,value\n*,*,1\n*,*,1.01\n' >"$NS/emp.csv"
# shellcheck disable=SC2086
ppsim $E --shard=2/2 --shard-file="$NS/e2.pps" >/dev/null
fails 2 "are shards of different runs: '$NS/emp.csv' held other bytes for each (fingerprints" \
	merge "$NS/e1.pps" "$NS/e2.pps"
ppsim -s 1f1b -p 4 -m 8 --export-schedule="$NS/sf.csv" --timeline=0 >/dev/null
F="--schedule-file=$NS/sf.csv --samples=4 --jitter=normal --timeline=0"
# shellcheck disable=SC2086
ppsim $F --shard=1/2 --shard-file="$NS/s1.pps" >/dev/null
# shellcheck disable=SC2086
ppsim $F --shard=2/2 --shard-file="$NS/s2.pps" >/dev/null
ppsim merge "$NS/s1.pps" "$NS/s2.pps" >/dev/null || not_ok "merge of a schedule file's shards failed"
ppsim -s zbh1 -p 4 -m 8 --export-schedule="$NS/sf.csv" --timeline=0 >/dev/null
fails 3 "'$NS/sf.csv' holds other bytes than when shard '$NS/s1.pps' was run" \
	merge "$NS/s1.pps" "$NS/s2.pps"
# a schedule file read from a pipe cannot be checked at the merge: no shard is written
cat "$NS/sf.csv" | fails 2 "--shard-file: the run read '/dev/stdin', not a regular file" \
	--schedule-file=/dev/stdin --samples=4 --jitter=normal --timeline=0 --shard=1/2 \
	--shard-file="$NS/pipe.pps"
[ ! -e "$NS/pipe.pps" ] && ok || not_ok "a shard of a piped schedule file was written"
# an input entry that is not a fingerprint and a path is an edited shard
sed 's/^run	input	.*/run	input	ab/' "$NS/s1.pps" >"$NS/sx1.pps"
sed 's/^run	input	.*/run	input	ab/' "$NS/s2.pps" >"$NS/sx2.pps"
fails 3 "shard '$NS/sx1.pps': a setting a run does not make" merge "$NS/sx1.pps" "$NS/sx2.pps"
# so do a sweep's, of the schedule file its points run
ppsim -s 1f1b -p 4 -m 8 --export-schedule="$NS/sa.csv" --timeline=0 >/dev/null
ppsim sweep --schedule-file="$NS/sa.csv" --tf=1,2 --shard=1/2 --shard-file="$NS/w1.pps" >/dev/null
ppsim -s gpipe -p 4 -m 8 --export-schedule="$NS/sa.csv" --timeline=0 >/dev/null
ppsim sweep --schedule-file="$NS/sa.csv" --tf=1,2 --shard=2/2 --shard-file="$NS/w2.pps" >/dev/null
fails 2 "'$NS/sa.csv' held other bytes for each" merge "$NS/w1.pps" "$NS/w2.pps"
# a stream that is not a shard (a pipe, a device) is refused at its first block, not copied
# whole first (/dev/zero filled the disk); one that is goes to a file in TMPDIR, whose absence
# says so
head -c 20000000 /dev/zero | fails 3 "shard '/dev/stdin':1:1: a NUL byte: not a text file" merge /dev/stdin
yes | head -c 20000000 | fails 3 "shard '/dev/stdin':1: not a shard file" merge /dev/stdin
fails 3 "shard '/dev/zero':1:1: a NUL byte" merge /dev/zero
cat "$a1" | (TMPDIR="$M/no-such-dir" && export TMPDIR && ppsim merge /dev/stdin >"$M/spool.out" \
	2>"$M/spool.err"; echo $? >"$M/spool.status")
status=$(cat "$M/spool.status")
if [ $status -eq 4 ] && [ ! -s "$M/spool.out" ] &&
	grep -q "^ppsim: cannot keep what '/dev/stdin' holds: No such file or directory" "$M/spool.err"; then
	ok
else
	not_ok "merge of a pipe with TMPDIR missing: status $status, $(head -c 200 "$M/spool.err")"
fi
fails 4 "cannot read '$M': Is a directory" merge "$M"
fails 2 "merge: needs the shard files" merge
fails 2 "merge: needs the shard files" merge --format=csv
fails 2 "-p: an option of the sweep or run, which the shards hold" merge -p 4 "$a1" "$a2" "$a3"
fails 2 "--schedule: an option of the sweep" merge --schedule=1f1b "$a1" "$a2" "$a3"
fails 2 "--format 'json': a merge of a sweep's shards writes text, jsonl or csv (JSON lines: jsonl)" merge --format=json "$a1" "$a2" "$a3"
fails 2 "--format 'xml': merge writes text, json, csv or jsonl" merge --format=xml "$a1" "$a2" "$a3"
fails 2 "unknown option '--shard=1/2': --shard is an option of run, sweep" merge --shard=1/2 "$a1"
fails 2 "--top: only with --format=text" merge --format=csv --top=3 "$a1" "$a2" "$a3"
fails 2 "--records '$a1': is an input of this run" merge --records="$a1" "$a1" "$a2" "$a3"
fails 2 "--html '$a2': is an input of this run" merge --html="$a2" "$a1" "$a2" "$a3"
# a failed merge writes no --records or --html file; a good one leaves its shards as they were
fails 2 "is missing" merge --records="$M/out.csv" --html="$M/out.html" "$a1" "$a2"
[ ! -e "$M/out.csv" ] && [ ! -e "$M/out.html" ] && ok || not_ok "a failed merge wrote its outputs"
ppsim merge "$a3" "$a1" "$a2" >/dev/null || not_ok "merge of shards a failed"
sums >"$M/after"
if cmp -s "$M/before" "$M/after"; then ok; else
	not_ok "merge changed its input files:"
	diff "$M/before" "$M/after" | head -5
fi
# a shard file is an output of the sweep like another: checked against the others before it runs
fails 2 "--records and --shard-file both name" sweep -p 2,4 --records="$M/x.pps" --shard-file="$M/x.pps"
fails 2 "--shard-file '$M/base.json': is an input of this run" sweep -c "$M/base.json" --shard-file="$M/base.json"

# a shard of an 8-point sweep split 11 ways may hold no point: it says so, not that a point
# failed to simulate
ppsim sweep -p 2,4 -m 4,8 -s 1f1b,zbv --shard=1/11 >"$TMP/empty-shard.txt"
if grep -q "^this shard holds none of the sweep's points$" "$TMP/empty-shard.txt" &&
	! grep -q "could be simulated" "$TMP/empty-shard.txt"; then
	ok
else
	not_ok "an empty shard's text: $(cat "$TMP/empty-shard.txt")"
fi
