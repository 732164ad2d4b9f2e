# Output files and standard output when a run fails (docs/robustness.md, "Output safety"): a
# run that fails leaves every existing file byte for byte as it was, whatever the output is (a
# plain file, a hard link, a symbolic link, standard output); a symbolic link writes the file it
# names; every signal that ends the process removes the temporary files; messages say what the
# system said and of which path. The full disk and the read-only file system are real: a tiny
# tmpfs, mounted when the tests run as root.

OUT=$TMP/outputs
mkdir -p "$OUT"
cd "$OUT" || exit 1

# unchanged WHAT FILE...: each FILE is byte for byte its copy FILE.orig, and no temporary file
# is left in the directories of the files.
unchanged() {
	what=$1
	shift
	bad=
	for f in "$@"; do
		cmp -s "$f" "$f.orig" || bad="$bad $f"
		left=$(ls -A "$(dirname "$f")" | grep '^\.ppsim-')
		[ -z "$left" ] || bad="$bad (left $left)"
	done
	if [ -z "$bad" ]; then ok; else not_ok "$what: changed$bad"; fi
}

# keep FILE TEXT: writes TEXT to FILE and a copy to FILE.orig.
keep() {
	printf '%s\n' "$2" >"$1"
	cp "$1" "$1.orig"
}

# --- Outputs stand or fall together, even when the last one fails as it is put in place ------
# (its rename fails: the failalloc shim's PPSIM_FAIL_RENAME): the outputs renamed before it get
# their old contents back, a new one is removed, a hard-linked one keeps its inode.
SHIM=${PPSIM_FAILALLOC-$(dirname "$PPSIM")/failalloc.so}
if [ -n "${PPSIM_WRAP:-}${PPSIM_SANITIZE:-}" ]; then
	elsewhere "outputs put back when a later one fails" "valgrind and sanitizers run without the shim"
elif [ ! -f "$SHIM" ]; then
	skip "outputs put back when a later one fails" "no $SHIM (make test builds it)"
else
	mkdir -p together
	keep together/a.csv old-a
	keep together/b.json old-b
	keep together/linked.csv old-linked
	ln -f together/linked.csv together/other-name.csv
	for order in "--dump-ops=together/a.csv --trace=together/b.json" \
		"--trace=together/b.json --dump-ops=together/a.csv"; do
		# shellcheck disable=SC2086 # order is words
		(cd "$ROOT" && PPSIM_FAIL_RENAME=b.json LD_PRELOAD=$SHIM "$PPSIM" -p 2 -m 2 \
			$(echo "$order" | sed "s|together/|$OUT/together/|g") --svg="$OUT/together/new.svg" \
			--export-schedule="$OUT/together/linked.csv" >/dev/null 2>"$OUT/together.err")
		status=$?
		if [ $status -eq 4 ] && grep -q "cannot write '.*b.json': Input/output error" "$OUT/together.err" &&
			[ ! -e together/new.svg ] && cmp -s together/other-name.csv together/linked.csv.orig; then
			ok
		else
			not_ok "a rename failing after others ($order): status $status, $(cat "$OUT/together.err"), $(ls -A together | tr '\n' ' ')"
		fi
		unchanged "outputs put back when a later one fails ($order)" together/a.csv \
			together/b.json together/linked.csv
	done
fi

# --- Another user's file: as root, a replaced file keeps its owner and group; as that other
# user, a file one may write in a sticky directory (where it cannot be renamed over) is rewritten
# in place, as a shell's > writes it, and no second name is left behind.
if [ "$(id -u)" -ne 0 ] || ! command -v runuser >/dev/null 2>&1 || ! id nobody >/dev/null 2>&1; then
	skip "another user's files" "needs root, runuser and the user nobody"
else
	mkdir -p owned && keep owned/theirs.json old
	chown nobody owned/theirs.json
	chmod 640 owned/theirs.json
	if ppsim -p 2 -m 2 --trace=owned/theirs.json >/dev/null &&
		[ "$(stat -c '%U %a' owned/theirs.json)" = "nobody 640" ]; then
		ok
	else
		not_ok "a replaced file's owner and mode: $(stat -c '%U:%G %a' owned/theirs.json)"
	fi
	# copies of ppsim and the shim that the user nobody can run (the tree's own may sit in a
	# directory only root may enter, as a fresh clone under mktemp -d does)
	share=$(mktemp -d /tmp/ppsim-nobody.XXXXXX) && chmod 755 "$share"
	cp "$PPSIM" "$share/ppsim" && chmod 755 "$share/ppsim"
	NOBODY_PPSIM=$share/ppsim
	NOBODY_SHIM=
	if [ -f "$SHIM" ]; then cp "$SHIM" "$share/failalloc.so" && chmod 755 "$share/failalloc.so" &&
		NOBODY_SHIM=$share/failalloc.so; fi
	# a sticky directory the user nobody can reach
	sticky=$(mktemp -d /tmp/ppsim-sticky.XXXXXX) && chmod 1777 "$sticky"
	keep "$sticky/shared.json" old
	chmod 666 "$sticky/shared.json"
	if ! runuser -u nobody -- "$NOBODY_PPSIM" --version >/dev/null 2>&1; then
		not_ok "the user nobody cannot run a copy of ppsim: $(runuser -u nobody -- "$NOBODY_PPSIM" --version 2>&1 | head -c 200)"
	elif runuser -u nobody -- "$NOBODY_PPSIM" -p 2 -m 2 --trace="$sticky/shared.json" >/dev/null 2>&1 &&
		head -c 15 "$sticky/shared.json" | grep -q traceEvents &&
		[ "$(stat -c %U "$sticky/shared.json")" = root ] &&
		[ -z "$(ls -A "$sticky" | grep '^\.ppsim-')" ]; then
		ok
	else
		not_ok "another's writable file in a sticky directory: $(ls -lA "$sticky" | tr '\n' ' ')"
	fi
	rm -rf "$sticky"
	# a file the user may write but not link (root's, mode 622, in nobody's directory) keeps
	# no second name: it is rewritten in place after the renames, so a later output's failure
	# still leaves it as it was
	mine=$(mktemp -d /tmp/ppsim-mine.XXXXXX) && chmod 755 "$mine" && chown nobody "$mine"
	keep "$mine/t.json" old
	chmod 622 "$mine/t.json"
	if [ -n "${PPSIM_WRAP:-}${PPSIM_SANITIZE:-}" ]; then
		elsewhere "an unlinkable file when a later output fails" "valgrind and sanitizers run without the shim"
	elif [ -z "$NOBODY_SHIM" ]; then
		skip "an unlinkable file when a later output fails" "no $SHIM (make test builds it)"
	else
		runuser -u nobody -- env PPSIM_FAIL_RENAME=s.svg LD_PRELOAD="$NOBODY_SHIM" "$NOBODY_PPSIM" -p 2 -m 2 \
			--svg="$mine/s.svg" --trace="$mine/t.json" >/dev/null 2>&1
		status=$?
		if [ $status -eq 4 ] && cmp -s "$mine/t.json" "$mine/t.json.orig" &&
			[ -z "$(ls -A "$mine" | grep '^\.ppsim-')" ] &&
			runuser -u nobody -- "$NOBODY_PPSIM" -p 2 -m 2 --trace="$mine/t.json" >/dev/null &&
			head -c 15 "$mine/t.json" | grep -q traceEvents &&
			[ "$(stat -c %U "$mine/t.json")" = root ]; then
			ok
		else
			not_ok "an unlinkable file when a later output fails: status $status, $(ls -lA "$mine" | tr '\n' ' ')"
		fi
	fi
	rm -rf "$mine" "$share"
fi

# --- Symbolic links: the file the link names is written, as by a shell's > -------------------
mkdir -p links/sub
keep links/sub/real.csv old
ln -s sub/real.csv links/to-real.csv
ln -s sub/new.csv links/dangling.csv
ln -s hop.csv links/chain.csv
ln -s sub/chained.csv links/hop.csv
ln -s loop-b links/loop-a
ln -s loop-a links/loop-b
ln -s nodir/x.csv links/into-nothing.csv
for link in to-real dangling chain; do
	if ppsim -p 2 -m 2 --dump-ops="links/$link.csv" >/dev/null && [ -L "links/$link.csv" ] &&
		head -n 1 "links/$link.csv" | grep -q '^device,'; then
		ok
	else
		not_ok "--dump-ops through the symbolic link $link.csv: $(ls -l links | tr '\n' ' ')"
	fi
done
if [ -f links/sub/new.csv ] && [ -f links/sub/chained.csv ] && [ ! -L links/sub/new.csv ]; then
	ok
else
	not_ok "a dangling link's target was not created: $(ls -lA links/sub | tr '\n' ' ')"
fi
# two outputs of one new file, one named through a dangling link, are refused as two of one file
ln -s sub/twice.csv links/to-twice.csv
fails 2 "--dump-ops and --trace both name 'links/to-twice.csv'" -p 2 -m 2 \
	--dump-ops=links/sub/twice.csv --trace=links/to-twice.csv
if [ ! -e links/sub/twice.csv ]; then ok; else
	not_ok "two outputs of one file through a dangling link: $(head -c 100 links/sub/twice.csv)"
fi
fails 4 "cannot write 'links/loop-a': Too many levels of symbolic links" -p 2 -m 2 \
	--dump-ops=links/loop-a
fails 4 "cannot write 'links/into-nothing.csv': directory 'links/nodir': No such file" -p 2 -m 2 \
	--trace=links/into-nothing.csv
# found before the run: one that needs more memory than it may have fails on the directory
# (a sanitizer's shadow memory does not fit under ulimit -v)
if [ -n "${PPSIM_SANITIZE:-}" ]; then
	elsewhere "a missing directory found before the run" "ulimit -v under a sanitizer"
else
	(
		ulimit -v 400000
		"$PPSIM" -s zbh1 -p 64 -m 200000 --dump-ops=links/nodir/x.csv >/dev/null 2>err.txt
		echo $? >status.txt
	)
	if [ "$(cat status.txt)" = 4 ] && grep -q "directory 'links/nodir': No such file" err.txt
	then
		ok
	else
		not_ok "an output in a missing directory is found out late: $(cat err.txt)"
	fi
fi
if [ -L links/loop-a ] && [ -L links/loop-b ] && [ -L links/into-nothing.csv ] &&
	[ -z "$(ls -A links links/sub | grep '^\.ppsim-')" ]; then
	ok
else
	not_ok "a refused link was replaced or left a temporary file: $(ls -lA links | tr '\n' ' ')"
fi
# /proc/self/fd/N of a file deleted while open writes that file, as a shell's > would, not a
# new file named after what the link reads ("gone.csv (deleted)")
exec 7<>gone.csv
printf 'old\n' >&7
rm gone.csv
ppsim -p 2 -m 2 --dump-ops=/proc/self/fd/7 >/dev/null 2>err.txt
status=$?
if [ $status -eq 0 ] && head -n 1 /proc/self/fd/7 | grep -q '^device,' &&
	[ -z "$(ls -A | grep -e '^gone' -e '^\.ppsim-')" ]; then
	ok
else
	not_ok "/proc/self/fd/N of a deleted file: status $status, $(cat err.txt), $(ls -A | tr '\n' ' ')"
fi
exec 7>&-
# a link to a file with another hard link: both names see the new contents
keep links/sub/twin1.csv old
ln links/sub/twin1.csv links/sub/twin2.csv
ln -s sub/twin1.csv links/to-twin.csv
if ppsim -p 2 -m 2 --dump-ops=links/to-twin.csv >/dev/null && [ -L links/to-twin.csv ] &&
	head -n 1 links/sub/twin2.csv | grep -q '^device,' &&
	[ "$(stat -c %h links/sub/twin1.csv)" = 2 ]; then
	ok
else
	not_ok "a link to a hard-linked file: $(stat -c %h links/sub/twin1.csv) links"
fi

# --- Standard output stands or falls with the files ----------------------------------------
# The report cannot be written: no output replaces its file.
keep trace.json existing
keep ops.csv existing
ppsim -p 4 -m 8 --trace=trace.json --dump-ops=ops.csv >/dev/full 2>err.txt
status=$?
if [ $status -eq 4 ] && grep -q "^ppsim: cannot write 'standard output': No space" err.txt; then
	ok
else
	not_ok "a report to /dev/full: status $status, $(cat err.txt)"
fi
unchanged "the outputs of a run whose report failed" trace.json ops.csv
# A report appended to a file that passes ulimit -f: the file is cut back to what it held, and
# the outputs of the run are not written.
keep report.txt "an earlier report"
keep ops.csv existing
(
	ulimit -f 8
	ppsim -p 2 -m 2 --timeline=100000 --dump-ops=ops.csv >>report.txt 2>err.txt
	echo $? >status.txt
)
if [ "$(cat status.txt)" = 4 ] && grep -q "'standard output': File too large" err.txt; then ok; else
	not_ok "a report past ulimit -f: status $(cat status.txt), $(cat err.txt)"
fi
unchanged "a report past ulimit -f" report.txt ops.csv
# What another writer added after the report (its error message, 2>&1) is not cut away.
keep log.txt "an earlier line"
ppsim -p 2 -m 2 --trace=/dev/full >>log.txt 2>&1
if [ $? -eq 4 ] && head -n 1 log.txt | grep -q '^an earlier line' &&
	grep -q "^ppsim: cannot write '/dev/full'" log.txt; then
	ok
else
	not_ok "a failed run's message to the file of its report (2>&1) was lost: $(cat log.txt)"
fi
# Standard error closed (2>&-): a failed run's message goes nowhere, not into the report's file
# (the file a duplicate of standard output would otherwise open as standard error)
keep log.txt "an earlier line"
ppsim -p 2 -m 2 --trace=/dev/full >>log.txt 2>&-
status=$?
if [ $status -eq 4 ]; then ok; else not_ok "a failed run with 2>&-: status $status"; fi
unchanged "the report's file of a failed run with 2>&-" log.txt
ppsim -p 0 >log.txt 2>&-
if [ ! -s log.txt ]; then ok; else not_ok "a refused option with 2>&- wrote: $(cat log.txt)"; fi
# Standard output closed (>&-): the report cannot be written, the outputs stay as they were
keep ops.csv existing
ppsim -p 2 -m 2 --dump-ops=ops.csv >&- 2>err.txt
status=$?
if [ $status -eq 4 ] && grep -q "^ppsim: cannot write 'standard output': Bad file descriptor" err.txt; then
	ok
else
	not_ok "a run with >&-: status $status, $(cat err.txt)"
fi
unchanged "the outputs of a run with >&-" ops.csv
# A sweep that streams its rows, then fails: its message comes after the rows it wrote, and
# stays in the file the rows and the message share, whatever the rows still buffered.
ppsim sweep -f csv -p 2,4 -m 8:64:x2 --records=/dev/full >log.txt 2>&1
status=$?
if [ $status -eq 4 ] && tail -n 1 log.txt | grep -q "^ppsim: cannot write '/dev/full'" &&
	head -n 1 log.txt | grep -q '^index,'; then
	ok
else
	not_ok "a streaming sweep's message (2>&1): status $status, $(head -c 300 log.txt)"
fi
ppsim sweep -f csv -p 2,4 -m 8:64:x2 --records=/dev/full 2>&1 | tail -n 1 >log.txt
if grep -q "^ppsim: cannot write '/dev/full'" log.txt; then ok; else
	not_ok "a streaming sweep's message comes before its rows in a pipe: $(cat log.txt)"
fi
# A hard-linked output past ulimit -f: both names keep the old contents.
keep twin-a.csv old
ln twin-a.csv twin-b.csv
cp twin-b.csv twin-b.csv.orig
(
	ulimit -f 4
	ppsim -s interleaved -p 8 -v 4 -m 64 --dump-ops=twin-a.csv >/dev/null 2>/dev/null
	echo $? >status.txt
)
if [ "$(cat status.txt)" = 4 ] && [ "$(stat -c %h twin-a.csv)" = 2 ]; then ok; else
	not_ok "a hard-linked output past ulimit -f: status $(cat status.txt)"
fi
unchanged "a hard-linked output past ulimit -f" twin-a.csv twin-b.csv
# A command that succeeds writes its report and its files.
ppsim -p 2 -m 2 --dump-ops=ops.csv >>report.txt
if grep -q '^makespan' report.txt && grep -q '^an earlier report' report.txt &&
	head -n 1 ops.csv | grep -q '^device,'; then
	ok
else
	not_ok "a run appending its report lost a part: $(head -c 200 report.txt)"
fi

# --- A full disk and a read-only file system, for real (root: a tmpfs of its own) -----------
if [ "$(id -u)" != 0 ] || ! mkdir -p "$OUT/small" || ! mount -t tmpfs -o size=64k tmpfs "$OUT/small" 2>/dev/null; then
	skip "full disk and read-only file system" "needs root to mount a tmpfs"
else
	# the new file fits once on the disk, not twice: the temporary file is written, and the
	# rewrite of the hard-linked target in place runs out of room
	ppsim -p 4 -m 512 --dump-ops="$OUT/size.csv" >/dev/null
	size=$(($(stat -c %s "$OUT/size.csv") / 1024))
	umount "$OUT/small"
	mount -t tmpfs -o size=$((size * 3 / 2 + 8))k tmpfs "$OUT/small"
	keep small/a.csv "old contents"
	ln small/a.csv small/b.csv
	cp small/b.csv b.orig
	fails 4 "cannot write 'small/a.csv': No space left on device" -p 4 -m 512 \
		--dump-ops=small/a.csv
	if cmp -s small/b.csv b.orig && [ "$(stat -c %h small/a.csv)" = 2 ]; then ok; else
		not_ok "a hard-linked output on a full disk: the other name changed"
	fi
	unchanged "a hard-linked output on a full disk" small/a.csv
	# a plain file whose new contents do not fit
	rm -f small/b.csv
	fails 4 "No space left on device" -p 4 -m 1024 --dump-ops=small/a.csv --svg=small/x.svg
	unchanged "a plain output on a full disk" small/a.csv
	# a report appended to a file on a full disk, with an output elsewhere
	keep small/report.txt "an earlier report"
	keep ops.csv existing
	head -c $((size * 2))k /dev/zero >small/filler 2>/dev/null
	ppsim -p 64 -m 64 --dump-ops=ops.csv -f json >>small/report.txt 2>err.txt
	status=$?
	if [ $status -eq 4 ] && grep -q "No space left on device" err.txt; then ok; else
		not_ok "a report appended on a full disk: status $status, $(cat err.txt)"
	fi
	unchanged "a report appended on a full disk" small/report.txt ops.csv
	rm -f small/filler
	# a read-only file system is called that, not a read-only file
	keep small/ro.csv "old contents"
	mount -o remount,ro "$OUT/small"
	fails 4 "cannot write 'small/ro.csv': Read-only file system" -p 2 -m 2 --dump-ops=small/ro.csv
	fails 4 "cannot write 'small/new.csv': directory 'small': Read-only file system" -p 2 -m 2 \
		--dump-ops=small/new.csv
	unchanged "an output on a read-only file system" small/ro.csv
	umount "$OUT/small"
	# a file bind-mounted over another (a container's volume of one file) cannot be renamed
	# onto: it is written in place, as by a shell's >, and left as it was by a failed run
	keep bound.csv "old contents"
	keep mounted.csv "the file mounted over"
	if mount --bind bound.csv mounted.csv 2>/dev/null; then
		ppsim -p 2 -m 2 --dump-ops=mounted.csv >/dev/null 2>err.txt
		status=$?
		if [ $status -eq 0 ] && head -n 1 bound.csv | grep -q '^device,'; then ok; else
			not_ok "an output bind-mounted over: status $status, $(cat err.txt)"
		fi
		keep bound.csv "old contents"
		ppsim -p 2 -m 2 --dump-ops=mounted.csv >/dev/full 2>/dev/null
		unchanged "an output bind-mounted over, the run failed" bound.csv
		umount mounted.csv
	fi
fi

# --- A directory that takes no new file ------------------------------------------------------
# A writable file in it is written in place, as a shell's > would; a new file is refused naming
# the directory. Root passes any permission: the case runs as nobody then.
as_user() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		"$@"
	fi
}
# user_fails WHAT PATTERN COMMAND...: COMMAND, run as_user, exits 4 with PATTERN (grep) on
# standard error.
user_fails() {
	what=$1 pattern=$2
	shift 2
	as_user "$@" >/dev/null 2>"$OUT/err.txt"
	status=$?
	if [ $status -eq 4 ] && grep -q "$pattern" "$OUT/err.txt"; then ok; else
		not_ok "$what: status $status, $(cat "$OUT/err.txt")"
	fi
}
LOCKED=$(mktemp -d /tmp/ppsim-locked-XXXXXX)
chmod 755 "$LOCKED"
cp "$PPSIM" "$LOCKED/ppsim"
mkdir "$LOCKED/dir" "$LOCKED/tmp"
chmod 1777 "$LOCKED/tmp"
printf 'old\n' >"$LOCKED/dir/open.csv"
chmod 666 "$LOCKED/dir/open.csv"
[ "$(id -u)" = 0 ] || chmod 555 "$LOCKED/dir"
if ! command -v setpriv >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	skip "a directory that takes no new file" "no setpriv(1) to run as another user"
else
	if as_user env TMPDIR="$LOCKED/tmp" "$LOCKED/ppsim" -p 2 -m 2 --dump-ops="$LOCKED/dir/open.csv" \
		>/dev/null 2>"$OUT/err.txt" && head -n 1 "$LOCKED/dir/open.csv" | grep -q '^device,' &&
		[ -z "$(ls -A "$LOCKED/tmp" "$LOCKED/dir" | grep '^\.ppsim-')" ]; then
		ok
	else
		not_ok "a writable file in a directory that takes no new file: $(cat "$OUT/err.txt")"
	fi
	user_fails "a new file in a directory that takes none" \
		"^ppsim: cannot write '$LOCKED/dir/new.csv': directory '$LOCKED/dir': Permission denied" \
		"$LOCKED/ppsim" -p 2 -m 2 --dump-ops="$LOCKED/dir/new.csv"
	# its temporary file cannot be made in TMPDIR either, or fills TMPDIR's disk: the message
	# names TMPDIR, not only the target
	user_fails "a file in a directory that takes no new file, TMPDIR missing" \
		"directory '$LOCKED/dir': Permission denied; no temporary file in '$LOCKED/none' either: No such file" \
		env TMPDIR="$LOCKED/none" "$LOCKED/ppsim" -p 2 -m 2 --dump-ops="$LOCKED/dir/open.csv"
	if [ "$(id -u)" = 0 ] && mkdir "$LOCKED/full" &&
		mount -t tmpfs -o size=64k,mode=1777 tmpfs "$LOCKED/full" 2>/dev/null; then
		head -c 60k /dev/zero >"$LOCKED/full/filler" 2>/dev/null
		cp "$LOCKED/dir/open.csv" "$OUT/open.orig"
		as_user env TMPDIR="$LOCKED/full" "$LOCKED/ppsim" -p 4 -m 256 \
			--dump-ops="$LOCKED/dir/open.csv" >/dev/null 2>"$OUT/err.txt"
		status=$?
		if [ $status -eq 4 ] && cmp -s "$LOCKED/dir/open.csv" "$OUT/open.orig" &&
			grep -q "^ppsim: cannot write '$LOCKED/dir/open.csv': its temporary file in '$LOCKED/full': No space left" \
				"$OUT/err.txt" && [ -z "$(ls -A "$LOCKED/full" | grep '^\.ppsim-')" ]; then
			ok
		else
			not_ok "a file rewritten in place from a full TMPDIR: status $status, $(cat "$OUT/err.txt")"
		fi
		umount "$LOCKED/full"
	fi
	# a directory on the way that cannot be searched is named, for a file in it or below
	mkdir -p "$LOCKED/hidden/sub"
	printf 'old\n' >"$LOCKED/hidden/old.csv"
	chmod 600 "$LOCKED/hidden"
	for out in hidden/old.csv hidden/sub/new.csv; do
		user_fails "a file in a directory that cannot be searched" \
			"^ppsim: cannot write '$LOCKED/$out': directory '$LOCKED/hidden': Permission denied" \
			"$LOCKED/ppsim" -p 2 -m 2 --dump-ops="$LOCKED/$out"
	done
	chmod 755 "$LOCKED/hidden"
fi
chmod 755 "$LOCKED/dir"
rm -rf "$LOCKED"

# --- Every signal that ends the process removes the temporary files ---------------------------
# A run stopped while it writes its outputs leaves no temporary file and the existing file as it
# was, whatever the signal; SIGPIPE, which ppsim ignores (a closed pipe is a write error), lets
# the run finish. (env gives the job every signal's default action back; unwrapped, as what is
# checked is the signal's path, not memory, and a run under valgrind takes seconds to start.)
keep sig.json existing
for sig in HUP QUIT USR1 USR2 ALRM XCPU VTALRM PROF PWR ABRT RTMIN+3 PIPE; do
	env --default-signal "$PPSIM" -s zbh1 -p 32 -m 4096 --trace=sig.json \
		--svg=sig.svg >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		ls -A | grep -q '^\.ppsim-' && break
		sleep 0.05
	done
	kill -s "$sig" $pid 2>/dev/null
	wait $pid 2>/dev/null
	status=$?
	left=$(ls -A | grep '^\.ppsim-')
	if [ "$sig" = PIPE ]; then
		if [ $status -eq 0 ] && [ -z "$left" ] && [ -s sig.svg ]; then ok; else
			not_ok "SIGPIPE during the writes: status $status, left $left"
		fi
	elif [ $status -gt 128 ] && [ -z "$left" ] && cmp -s sig.json sig.json.orig &&
		[ ! -e sig.svg ]; then
		ok
	else
		not_ok "SIG$sig during the writes: status $status, left $left"
	fi
	rm -f sig.svg "$left"
	keep sig.json existing
done
# standard output appended to a file while a sweep streams its rows: cut back as on a failure
# (its first 64 KiB of rows come in a tenth of a second, the rest, of larger points, seconds on)
for sig in TERM RTMIN+3; do
	keep rows.csv "earlier rows"
	size=$(stat -c %s rows.csv)
	env --default-signal "$PPSIM" sweep -f csv -p 2,4,8,16,32 -m 8:8192:x2 -s all \
		>>rows.csv 2>/dev/null &
	pid=$!
	for _ in $(seq 200); do
		[ "$(stat -c %s rows.csv)" -gt "$size" ] && break
		sleep 0.02
	done
	grown=$(stat -c %s rows.csv)
	kill -s "$sig" $pid 2>/dev/null
	wait $pid 2>/dev/null
	status=$?
	if [ $status -gt 128 ] && [ "$grown" -gt "$size" ]; then ok; else
		not_ok "SIG$sig while a sweep streams to a file: status $status, $grown bytes"
	fi
	unchanged "SIG$sig while a sweep streams to a file" rows.csv
done
# a real CPU-time limit: SIGXCPU at the soft limit, while a sweep streams its records
keep records.csv existing
sh -c 'ulimit -S -t 1; env --default-signal "$1" sweep -p 2,4,8,16,32 -m 8:8192:x2 -s all \
	--records=records.csv >/dev/null 2>&1; echo $? >status.txt' sh "$PPSIM" 2>/dev/null
status=$(cat status.txt)
if [ "$status" -gt 128 ] && [ -z "$(ls -A | grep '^\.ppsim-')" ]; then ok; else
	not_ok "a sweep past its CPU-time limit: status $status, left $(ls -A | tr '\n' ' ')"
fi
unchanged "a sweep past its CPU-time limit" records.csv

# --- Writing over a file ---------------------------------------------------------------------
# On ext4 an output that replaces an existing file starts its temporary file's writeback as it
# writes (every 8 MB), so that the rename over the old file, which there allocates and writes
# back every block not yet sent, finds nothing left to do (docs/performance.md, "Writing over a
# file"); a new file, or a file elsewhere, is left to the kernel. A large new file on ext4 has
# its blocks reserved ahead (fallocate) once it holds 8 MB, and what it did not fill given back
# when it closes; a replaced one does not. Either way the bytes are those of a fresh run, and
# the same on one thread (--jobs=1) as on several.
if [ -n "${PPSIM_WRAP:-}" ]; then
	elsewhere "the writeback of a replacing output" "it runs ppsim under strace, as make test does"
elif ! command -v strace >/dev/null 2>&1; then
	skip "the writeback of a replacing output" "no strace: make test installs it"
else
	big="-p 8 -m 2048 --format=json" # a trace of about 20 MB
	echo old >replaced.json
	rm -f fresh.json
	# (LeakSanitizer cannot run under ptrace: a sanitized build's leak check is off here)
	# shellcheck disable=SC2086
	ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=sync_file_range,fallocate \
		-o replaced.strace "$PPSIM" $big --trace=replaced.json >/dev/null &&
		ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=sync_file_range,fallocate \
			-o fresh.strace "$PPSIM" $big --trace=fresh.json >/dev/null &&
		"$PPSIM" $big --trace=one-thread.json --jobs=1 >/dev/null
	status=$?
	n_replaced=$(grep -c '^[0-9]* *sync_file_range(.*SYNC_FILE_RANGE_WRITE) = 0' replaced.strace)
	n_fresh=$(grep -c 'sync_file_range' fresh.strace)
	r_replaced=$(grep -c 'fallocate' replaced.strace)
	# reservations of the new file, none before its 8th MB
	r_fresh=$(sed -n 's/^[0-9]* *fallocate([0-9]*, FALLOC_FL_KEEP_SIZE, \([0-9]*\), [0-9]*) = 0$/\1/p' \
		fresh.strace | awk '$1 >= 8388608 { n++ } $1 < 8388608 { n = -1000 } END { print n + 0 }')
	# what the new file holds on disk: its bytes, give or take a block of the extent tree
	blocks=$(($(stat -c '%b * %B' fresh.json)))
	size=$(stat -c %s fresh.json)
	# only on ext4 (statfs's magic, which stat prints as ext2/ext3): elsewhere none
	want=0
	[ "$(stat -f -c %T .)" = ext2/ext3 ] && want=2
	if [ $status -eq 0 ] && [ "$n_replaced" -ge $want ] &&
		{ [ $want -gt 0 ] || [ "$n_replaced" -eq 0 ]; } && [ "$n_fresh" -eq 0 ] &&
		[ "$r_replaced" -eq 0 ] && { [ $want -eq 0 ] || [ "$r_fresh" -ge 1 ]; } &&
		{ [ $want -gt 0 ] || [ "$r_fresh" -eq 0 ]; } &&
		[ "$blocks" -le $((size + 65536)) ] &&
		cmp -s replaced.json fresh.json && cmp -s fresh.json one-thread.json; then
		ok
	else
		not_ok "writeback of a replacing output: status $status, $n_replaced calls replacing, $n_fresh for a new file; $r_fresh reservations of a new file from its 8th MB, $r_replaced replacing; $blocks bytes on disk for $size; $(cmp replaced.json fresh.json 2>&1) $(cmp fresh.json one-thread.json 2>&1)"
	fi
	rm -f replaced.json fresh.json one-thread.json replaced.strace fresh.strace
fi

# --- Terminals ---------------------------------------------------------------------------------
# --color=auto colours a terminal's timeline, not a dumb terminal's.
if ! command -v script >/dev/null 2>&1; then
	skip "colour on a dumb terminal" "no script(1)"
else
	esc=$(printf '\033')
	TERM=xterm script -qec "'$PPSIM' -p 4 -m 8 --timeline=100" /dev/null >tty.txt 2>&1
	if grep -q "$esc\[" tty.txt; then ok; else not_ok "a terminal's timeline has no colour"; fi
	TERM=dumb script -qec "'$PPSIM' -p 4 -m 8 --timeline=100" /dev/null >tty.txt 2>&1
	if grep -q "$esc" tty.txt || ! grep -q 'GPU 0' tty.txt; then
		not_ok "TERM=dumb still gets escape sequences"
	else
		ok
	fi
	# the progress line of a dumb terminal erases with spaces, not an escape sequence
	TERM=dumb script -qec "PPSIM_PROGRESS_DELAY=0 '$PPSIM' sweep -p 2,4 -m 8:1024:x2" \
		/dev/null >tty.txt 2>&1
	if grep -q "sweep: " tty.txt && ! grep -q "$esc" tty.txt; then ok; else
		not_ok "the progress line on a dumb terminal: $(head -c 200 tty.txt)"
	fi
fi
cd "$ROOT" || exit 1

# Two outputs naming standard output's file, by its name or as /dev/stdout, are two outputs of
# one file (status 2), as two named files are; one of them is written before the report.
cd "$OUT" || exit 1
keep same.txt old
for pair in "--dump-ops=same.txt --export-schedule=same.txt" \
	"--dump-ops=/dev/stdout --export-schedule=/dev/stdout"; do
	# shellcheck disable=SC2086 # pair is words
	ppsim -p 2 -m 2 $pair >same.txt 2>"$OUT/same.err"
	status=$?
	if [ $status -eq 2 ] && grep -q "both name" "$OUT/same.err"; then ok; else
		not_ok "$pair > same.txt: status $status, $(cat "$OUT/same.err")"
	fi
done
if ppsim -p 2 -m 2 --dump-ops=/dev/stdout >same.txt && head -n 1 same.txt | grep -q '^device,'; then
	ok
else
	not_ok "--dump-ops=/dev/stdout: the dump should come first in standard output's file"
fi
cd "$ROOT" || exit 1

# A replaced file that cannot be put back (the rename back fails too) keeps its old contents
# under their second name, which the message names, never removed.
if [ -n "${PPSIM_WRAP:-}" ]; then
	elsewhere "old contents kept when they cannot be put back" "it runs ppsim under strace, as make test does"
elif ! command -v strace >/dev/null 2>&1; then
	skip "old contents kept when they cannot be put back" "no strace: make test installs it"
else
	cd "$OUT" || exit 1
	mkdir -p back && keep back/a.svg old-a && keep back/b.json old-b
	# (LeakSanitizer does not run under ptrace: a sanitizer build's leak check is off here)
	(cd back && ASAN_OPTIONS=detect_leaks=0 strace -f -o /dev/null \
		-e inject=rename:error=EIO:when=2..3 "$PPSIM" -p 2 -m 2 \
		--svg=a.svg --trace=b.json >/dev/null 2>"$OUT/back.err")
	status=$?
	kept=$(sed -n "s/.*its old contents are in '\([^']*\)'.*/\1/p" "$OUT/back.err")
	if [ $status -eq 4 ] && [ -n "$kept" ] && cmp -s "back/$kept" back/b.json.orig &&
		cmp -s back/a.svg back/a.svg.orig; then
		ok
	else
		not_ok "a file that cannot be put back: status $status, $(cat "$OUT/back.err"), $(ls -A back | tr '\n' ' ')"
	fi
fi
