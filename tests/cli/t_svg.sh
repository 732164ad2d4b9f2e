# The SVG chart for assistive technology (issue 41): the root is an image (role="img") named
# and described by its first children, a <title> with the runs' schedules, shapes and figures
# and a <desc> of what the drawing shows (aria-labelledby names both, and both ids exist); op
# labels are black, at least 4.6:1 on every fill (white was 2.4 to 3.7:1).

# svg_named FILE WHAT TEXT...: FILE's root has the role and names, its title holds each TEXT
svg_named() {
	file=$1 what=$2
	shift 2
	root=$(sed -n '2p' "$file")
	title=$(sed -n '3p' "$file")
	case $root in
	'<svg '*'role="img" aria-labelledby="ppsim-title ppsim-desc">') ;;
	*) not_ok "$what: the root is not an image named by its title and desc: $root"; return ;;
	esac
	case $title in
	'<title id="ppsim-title">ppsim: '*'</title>') ;;
	*) not_ok "$what: no <title> first in the drawing: $title"; return ;;
	esac
	for text in "$@"; do
		case $title in
		*"$text"*) ;;
		*) not_ok "$what: the title does not say '$text': $title"; return ;;
		esac
	done
	if sed -n '4p' "$file" | grep -q '^<desc id="ppsim-desc">A Gantt chart of ' &&
		xmllint --noout "$file" && grep -q '\.label{text-anchor:middle;fill:#000;' "$file"; then
		ok
	else
		not_ok "$what: no <desc> after the title, black labels, or not well-formed"
	fi
}
ppsim -p 4 -m 8 --svg="$TMP/a.svg" >/dev/null
svg_named "$TMP/a.svg" "--svg" "1f1b p=4 v=1 m=8, makespan 33 t, bubble ratio 0.2727"
ppsim compare --schedules=1f1b,zbh1 -p 4 -m 8 --svg="$TMP/b.svg" >/dev/null
svg_named "$TMP/b.svg" "compare --svg" "1f1b p=4 v=1 m=8" "; zbh1 p=4 v=1 m=8"
grep -q '<desc id="ppsim-desc">A Gantt chart of the compared runs' "$TMP/b.svg" && ok ||
	not_ok "compare --svg: the desc does not say the runs are compared"
ppsim serve -p 2 --num-requests 4 --svg="$TMP/c.svg" >/dev/null
svg_named "$TMP/c.svg" "serve --svg" "p=2"
# a schedule name that needs escaping stays text
mkdir -p "$TMP/a&b"
ppsim -p 2 -m 2 --export-schedule="$TMP/a&b/s.csv" >/dev/null
ppsim --schedule-file="$TMP/a&b/s.csv" --svg="$TMP/d.svg" >/dev/null
svg_named "$TMP/d.svg" "--svg of a schedule file" "a&amp;b/s.csv"
