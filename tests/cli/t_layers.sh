# The layers of docs/architecture.md, lowest first: a file may include the headers of its own
# layer and of the layers before it, never of one after it. A file's layer is its folder under
# src/ (src/main.c is above them all); a public header's is its module's, in the table below,
# which every header in include/ppsim/ must appear in.
layers="base sched config cost engine metrics sim search serve report api cli main"
header_layer() { # NAME.h in include/ppsim/
	case $1 in
	util.h | outfile.h | version.h) echo base ;;
	sched.h) echo sched ;;
	config.h | preset.h | schedfile.h | calibrate.h | measured.h | layout.h) echo config ;;
	cost.h) echo cost ;;
	engine.h | critical.h) echo engine ;;
	metrics.h) echo metrics ;;
	sim.h | samples.h | replay.h) echo sim ;;
	sweep.h | advise.h | shard.h | partition.h) echo search ;;
	serve.h) echo serve ;;
	report.h) echo report ;;
	ppsim.h) echo api ;;
	*) echo unknown ;;
	esac
}
rank() { # the position of layer $1 in $layers, or 99
	i=0
	for l in $layers; do
		[ "$l" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo 99
}
back_edges=0
for f in "$ROOT"/include/ppsim/*.h "$ROOT"/src/*.c "$ROOT"/src/*/*.[ch]; do
	rel=${f#"$ROOT"/}
	case $rel in
	include/*) own=$(header_layer "$(basename "$f")") ;;
	src/main.c) own=main ;;
	src/*/*) own=$(echo "$rel" | cut -d/ -f2) ;;
	esac
	if [ "$(rank "$own")" -eq 99 ]; then
		not_ok "$rel: in no layer of tests/cli/t_layers.sh"
		back_edges=$((back_edges + 1))
		continue
	fi
	for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		case $inc in
		ppsim/*) to=$(header_layer "${inc#ppsim/}") ;;
		*/*) to=$(echo "$inc" | cut -d/ -f1) ;;
		*) to=$own ;; # a private header beside the file
		esac
		if [ "$(rank "$to")" -gt "$(rank "$own")" ]; then
			not_ok "$rel ($own) includes $inc ($to), a layer above it"
			back_edges=$((back_edges + 1))
		fi
	done
done
[ $back_edges -eq 0 ] && ok

# The program writes standard output only through cmd_out(), the stream that holds it to an
# output file's limit and cuts it back when the command fails; the library writes only to the
# streams it is given. A printf, puts or putchar, or stdout named outside a comment, is a
# report that escapes both.
escapes=$(cd "$ROOT" && grep -n -E '(^|[^a-z_])(printf|puts|putchar|vprintf) *\(|[^_a-zA-Z"]stdout[^_a-zA-Z]' \
	src/*/*.c src/main.c | grep -v -E '^[^:]*:[0-9]+: *(/\*|\*)' |
	grep -v -E 'src/base/outfile\.c:[0-9]+:.*fflush\(fd == STDOUT_FILENO \? stdout' |
	grep -v -E 'src/cli/cmd\.c:[0-9]+:.*return out != NULL \? outfile_stream\(out\) : stdout;')
if [ -z "$escapes" ]; then ok; else not_ok "standard output written around cmd_out(): $escapes"; fi

# no source file over 1,000 lines: a larger one holds more than one concern (CONTRIBUTING.md)
long=$(wc -l "$ROOT"/src/*.c "$ROOT"/src/*/*.[ch] | awk '$2 != "total" && $1 > 1000 { print $2 " (" $1 ")" }')
if [ -z "$long" ]; then ok; else not_ok "files over 1,000 lines: $long"; fi
