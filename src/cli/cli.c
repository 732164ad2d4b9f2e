/*
 * Command-line parsing shared by the commands that take options, driven by two tables: the
 * config options (config.c) and the commands' own options below. A row of either says which
 * commands take it (the commands column, enum cli_mode bits); getopt_long is given every
 * config option, so that one a command does not take is parsed, set with its origin and then
 * refused by config_check_command with a message naming where it belongs. --format is looked
 * up in the format registry by the kind of result the command's row writes.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/text.h"
#include "cmd.h"
#include "guard.h"
#include "ppsim/outfile.h"
#include "ppsim/report.h"
#include "ppsim/sched.h"
#include "ppsim/schedfile.h"

/* Identifiers of options that are not config fields; config fields use OPT_CONFIG + index. */
enum {
	OPT_FORMAT = 'f',
	OPT_HELP = 'h',
	OPT_CONFIG_FILE = 'c',
	OPT_TIMELINE = 1000,
	OPT_DUMP_OPS,
	OPT_SAMPLES_OUT,
	OPT_SCHEDULES,
	OPT_FAIL_ON_OOM,
	OPT_EXPORT,
	OPT_EXPORT_FORMAT,
	OPT_TRACE,
	OPT_SVG,
	OPT_HTML,
	OPT_COLOR,
	OPT_VERSION,
	OPT_TOP,
	OPT_RECORDS,
	OPT_FITS,
	OPT_JOBS,
	OPT_SHARD,
	OPT_RANK_BY,
	OPT_SHARD_FILE,
	OPT_EXPORT_REQUESTS,
	OPT_QUIET,
	OPT_WITHOUT_SLOWEST,
	OPT_W_SHARE,
	/* another command's option, named whole: refused as not for this one (rather than read
	 * as the abbreviation of an option this command has, --trace as --trace-names) */
	OPT_FOREIGN = 1500,
	OPT_CONFIG = 2000,
};

/* Options of the commands themselves, beside the config table. */
struct cmd_option {
	struct option opt;   /* getopt_long entry */
	int modes;           /* enum cli_mode bits of the commands that take it */
	const char *metavar; /* value name for --help, NULL for flags */
	const char *help;    /* one line for --help */
	/* What the option stores in struct cli without further parsing: its value (a string
	 * field) or true (a bool field), at offset field; CLI_PARSED when take_option parses it. */
	enum { CLI_PARSED, CLI_STRING, CLI_FLAG } store;
	size_t field;
};

#define STRING(f) .store = CLI_STRING, .field = offsetof(struct cli, f)
#define FLAG(f)   .store = CLI_FLAG, .field = offsetof(struct cli, f)

static const struct cmd_option cmd_options[] = {
        {{"config", required_argument, NULL, OPT_CONFIG_FILE},
         CLI_ALL & ~(CLI_COMPARE | CLI_REPLAY),
         "FILE",
         "read settings from a JSON config file (options given too win)",
         STRING(config_file)},
        {{"schedules", required_argument, NULL, OPT_SCHEDULES},
         CLI_COMPARE | CLI_SWEEP,
         "LIST",
         "compare, sweep: comma-separated schedules, or 'all'",
         STRING(schedules)},
        {{"format", required_argument, NULL, OPT_FORMAT},
         CLI_ALL | CLI_MERGE,
         "FMT",
         "report format (default text):",
         STRING(format_name)},
        {{"top", required_argument, NULL, OPT_TOP},
         CLI_SWEEP | CLI_MERGE,
         "N",
         "sweep, merge: rows of the ranked table (default 10; merge: the sweep's)",
         .store = CLI_PARSED},
        {{"records", required_argument, NULL, OPT_RECORDS},
         CLI_SWEEP | CLI_MERGE,
         "FILE",
         "sweep, merge: write every point's record to FILE (CSV if it ends in .csv, else JSON "
         "lines)",
         STRING(records_file)},
        {{"fits", no_argument, NULL, OPT_FITS},
         CLI_SWEEP,
         NULL,
         "sweep: skip points over GPU memory instead of ranking them last",
         FLAG(fits)},
        {{"quiet", no_argument, NULL, OPT_QUIET},
         CLI_SWEEP | CLI_ADVISE | CLI_SERVE | CLI_MERGE,
         NULL,
         "sweep, advise, serve, merge: no progress line (shown on a terminal's stderr after a "
         "second)",
         FLAG(quiet)},
        {{"jobs", required_argument, NULL, OPT_JOBS},
         CLI_RUN | CLI_COMPARE | CLI_SWEEP | CLI_ADVISE | CLI_PARTITION,
         "N",
         "threads for sweep points, noise samples, partition candidates, the passes of "
         "zb-auto and zbv-auto and, with run's --trace, a large trace's events (JSON or "
         "Perfetto), at most 4 (default: the CPUs this process may use)",
         .store = CLI_PARSED},
        {{"rank-by", required_argument, NULL, OPT_RANK_BY},
         CLI_COMPARE | CLI_SWEEP | CLI_ADVISE,
         "STAT",
         "compare, sweep, advise: rank by the step (default) or by the noise samples' mean, "
         "p50, p90 or p99 step (needs --samples)",
         .store = CLI_PARSED},
        {{"shard", required_argument, NULL, OPT_SHARD},
         CLI_RUN | CLI_SWEEP,
         "K/N",
         "sweep: evaluate only the K-th of N equal runs of points; run: of the --samples "
         "(for job arrays)",
         .store = CLI_PARSED},
        {{"shard-file", required_argument, NULL, OPT_SHARD_FILE},
         CLI_RUN | CLI_SWEEP,
         "FILE",
         "sweep, run: also write the points' records (run: the samples') and the settings to "
         "FILE, a shard that ppsim merge joins with the others into the whole report",
         STRING(shard_file)},
        {{"timeline", optional_argument, NULL, OPT_TIMELINE},
         CLI_RUN | CLI_SERVE | CLI_REPLAY | CLI_MERGE,
         "WIDTH",
         "run, serve, replay: append an ASCII timeline WIDTH columns wide (default: the terminal's, else "
         "COLUMNS, else 100); on by default on a terminal, --timeline=0 turns it off; merge: "
         "of a run's samples, over the shards'",
         .store = CLI_PARSED},
        {{"dump-ops", required_argument, NULL, OPT_DUMP_OPS},
         CLI_RUN | CLI_SERVE | CLI_REPLAY,
         "FILE",
         "run, serve, replay: write every op with its start and end as CSV to FILE",
         STRING(dump_ops)},
        {{"samples-out", required_argument, NULL, OPT_SAMPLES_OUT},
         CLI_RUN | CLI_MERGE,
         "FILE",
         "run, merge: write each noise sample's step and bubble ratio as CSV to FILE (needs "
         "--samples)",
         STRING(samples_file)},
        {{"trace", required_argument, NULL, OPT_TRACE},
         CLI_RUN | CLI_SERVE | CLI_REPLAY,
         "FILE",
         "run, serve, replay: write a Chrome trace (Perfetto, chrome://tracing) to FILE (gzip if it "
         "ends in .gz; Perfetto's protobuf format if it ends in .pftrace or .perfetto-trace)",
         STRING(trace_file)},
        {{"svg", required_argument, NULL, OPT_SVG},
         CLI_RUN | CLI_COMPARE | CLI_SERVE | CLI_REPLAY,
         "FILE",
         "write an SVG Gantt chart to FILE (compare: every row on one time axis)",
         STRING(svg_file)},
        {{"html", required_argument, NULL, OPT_HTML},
         CLI_RUN | CLI_COMPARE | CLI_SERVE | CLI_SWEEP | CLI_REPLAY | CLI_MERGE,
         "FILE",
         "write an interactive HTML report to FILE (one file, opens offline; compare: every "
         "row on one time axis; sweep: a heatmap over two axes)",
         STRING(html_file)},
        {{"color", required_argument, NULL, OPT_COLOR},
         CLI_RUN | CLI_SERVE | CLI_REPLAY,
         "WHEN",
         "run, serve, replay: colour the timeline: auto (default: a terminal, not TERM=dumb, without "
         "NO_COLOR), always, never",
         .store = CLI_PARSED},
        {{"export-requests", required_argument, NULL, OPT_EXPORT_REQUESTS},
         CLI_SERVE,
         "FILE",
         "serve: write the requests as served (JSON lines, a trace for --requests) to FILE",
         STRING(requests_file)},
        {{"export-schedule", required_argument, NULL, OPT_EXPORT},
         CLI_RUN | CLI_REPLAY,
         "FILE",
         "run, replay: write the op order to FILE (see --export-format)",
         STRING(export_file)},
        {{"export-format", required_argument, NULL, OPT_EXPORT_FORMAT},
         CLI_RUN | CLI_REPLAY,
         "FMT",
         "run, replay: ppsim (CSV, the default), torch or torch-comms (PyTorch's compute_only or "
         "compute_comms CSV)",
         .store = CLI_PARSED},
        {{"without-slowest", no_argument, NULL, OPT_WITHOUT_SLOWEST},
         CLI_REPLAY,
         NULL,
         "replay: what the step takes without its slowest device (the most busy time): its "
         "ops at the median of the other devices' mean times for each kind of op",
         FLAG(without_slowest)},
        {{"w-share", required_argument, NULL, OPT_W_SHARE},
         CLI_REPLAY,
         "F",
         "replay: the share of a fused backward that is W, for a what-if that splits it",
         .store = CLI_PARSED},
        {{"fail-on-oom", no_argument, NULL, OPT_FAIL_ON_OOM},
         CLI_RUN | CLI_COMPARE,
         NULL,
         "exit 1 without a report when a device is over its GPU's memory less "
         "--memory-reserve",
         FLAG(fail_on_oom)},
        {{"help", no_argument, NULL, OPT_HELP},
         CLI_ALL | CLI_MERGE,
         NULL,
         "show this help and exit",
         .store = CLI_PARSED},
        {{"version", no_argument, NULL, OPT_VERSION},
         CLI_ALL | CLI_MERGE,
         NULL,
         "show the version and exit",
         .store = CLI_PARSED},
};
#define N_CMD_OPTIONS (sizeof(cmd_options) / sizeof(cmd_options[0]))

/* --help's width, the column its texts start in, and its left column's widest entry. */
#define HELP_WIDTH  80
#define HELP_INDENT 29
#define HELP_LEFT   26

/*
 * One --help entry (cli.h): left (an option or a command) in the left column, then text
 * wrapped at spaces to HELP_WIDTH columns, its lines after the first indented to HELP_INDENT; a
 * left too wide for its column goes on a line of its own.
 */
void cli_help_text(FILE *out, const char *left, const char *text)
{
	int indent = left == NULL ? 0 : HELP_INDENT, col = indent;

	if (left != NULL && strlen(left) > HELP_LEFT)
		fprintf(out, "  %s\n%*s", left, HELP_INDENT, "");
	else if (left != NULL)
		fprintf(out, "  %-*s ", HELP_LEFT, left);
	while (*text != '\0') {
		size_t word = strcspn(text, " ");

		if (col > indent && col + 1 + (int)word > HELP_WIDTH) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		fwrite(text, 1, word, out);
		col += (int)word;
		text += word;
		text += strspn(text, " ");
	}
	fputc('\n', out);
}

static void help_line(FILE *out, int short_name, const char *name, int has_arg, const char *metavar,
                      const char *help)
{
	char left[64];
	int n = 0;

	n += snprintf(left + n, sizeof(left) - (size_t)n, short_name ? "-%c, " : "    ",
	              short_name);
	if (has_arg == optional_argument)
		snprintf(left + n, sizeof(left) - (size_t)n, "--%s[=%s]", name, metavar);
	else if (has_arg == required_argument)
		snprintf(left + n, sizeof(left) - (size_t)n, "--%s=%s", name, metavar);
	else
		snprintf(left + n, sizeof(left) - (size_t)n, "--%s", name);
	cli_help_text(out, left, help);
}

/* True when a help text ends in ':', which a list of the values the option takes follows. */
/* Whether replay takes key's default from the measured step: its schedule, shape and
 * messages. */
static bool measured_key(const char *key)
{
	static const char *const keys[] = {"schedule", "m", "v", "t_comm"};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(key, keys[i]) == 0)
			return true;
	return false;
}

/*
 * In help of length size, the default of a setting replay takes from the measured step (the
 * what-ifs' shape and schedule, --tcomm's mean of the messages measured) said so: "(default
 * 8)" becomes "(default: the measured step's)", a note after ';' kept.
 */
static void measured_default(char *help, size_t size)
{
	char *at = strstr(help, "(default"), rest[512];
	size_t cut;

	if (at == NULL)
		return;
	cut = strcspn(at, ";)");
	snprintf(rest, sizeof(rest), "%s", at + cut);
	snprintf(at, size - (size_t)(at - help), "(default: the measured step's%s", rest);
}

static bool ends_in_colon(const char *help)
{
	return *help != '\0' && help[strlen(help) - 1] == ':';
}

/* Whether the command of row c (ctx) takes format f: struct cmd's takes_format, else the
 * formats that write its kind. */
static bool takes_format(const struct report_format *f, const void *ctx)
{
	const struct cmd *c = ctx;

	return c->takes_format != NULL ? c->takes_format(f) : report_format_writes(f, c->kind);
}

char *cli_format_names(const struct cmd *c, const char *sep, const char *last, char *buf,
                       size_t n)
{
	return report_format_names_if(takes_format, c, sep, last, buf, n);
}

void cli_write_format_cases(FILE *out)
{
	size_t n;
	const struct cmd *c = cmd_table(&n);
	char first[128], list[128], other[128];
	bool done[64] = {false};

	/* run's list is the default; each other list once, with every command writing it */
	cli_format_names(&c[0], " ", NULL, first, sizeof(first));
	for (size_t i = 1; i < n && i < 64; i++) {
		if ((c[i].mode == 0 && c[i].format_subject == NULL) || done[i])
			continue;
		cli_format_names(&c[i], " ", NULL, list, sizeof(list));
		if (strcmp(list, first) == 0)
			continue;
		fprintf(out, "\t\t%s", c[i].name);
		for (size_t k = i + 1; k < n && k < 64; k++) {
			if (c[k].mode == 0 && c[k].format_subject == NULL)
				continue;
			cli_format_names(&c[k], " ", NULL, other, sizeof(other));
			if (strcmp(other, list) == 0) {
				fprintf(out, "|%s", c[k].name);
				done[k] = true;
			}
		}
		fprintf(out, ") COMPREPLY=($(compgen -P \"$eq\" -W \"%s\" -- \"$cur\")) ;;\n", list);
	}
	fprintf(out, "\t\t*) COMPREPLY=($(compgen -P \"$eq\" -W \"%s\" -- \"$cur\")) ;;\n", first);
}

int cli_bad_format(unsigned mode, const char *name)
{
	return cli_bad_format_of(cmd_of_mode(mode), name);
}

int cli_bad_format_of(const struct cmd *c, const char *name)
{
	char list[128], hint[128];

	if (c->format_subject == NULL)
		return cmd_usage("--format '%s': unknown format; a run writes %s", name,
		                 report_format_names(REPORT_RUN, ", ", " or ", list, sizeof(list)));
	return cmd_usage("--format '%s': %s writes %s%s", name, c->format_subject,
	                 cli_format_names(c, ", ", " or ", list, sizeof(list)),
	                 report_format_hint(name, c->kind, hint, sizeof(hint)));
}

void cli_help_options(FILE *out, unsigned mode)
{
	size_t n;
	const struct config_option *co = config_options(&n);
	const struct cmd *cmd = cmd_of_mode(mode);
	const char *section = NULL;
	char names[256];

	fputs("Input and output:\n", out);
	for (size_t i = 0; i < N_CMD_OPTIONS; i++) {
		const struct cmd_option *r = &cmd_options[i];
		int short_name = r->opt.val < 128 ? r->opt.val : 0;
		char help[512];

		if (!(r->modes & (int)mode))
			continue;
		/* the format option lists the formats the command writes */
		snprintf(help, sizeof(help), "%s%s%s", r->help, ends_in_colon(r->help) ? " " : "",
		         ends_in_colon(r->help) ? cli_format_names(cmd, ", ", NULL, names,
		                                                   sizeof(names))
		                                : "");
		help_line(out, short_name, r->opt.name, r->opt.has_arg, r->metavar, help);
	}

	for (size_t i = 0; i < n; i++) {
		char help[512];

		if (co[i].section != NULL)
			section = co[i].section;
		if (!(co[i].commands & mode))
			continue;
		/* a group's title comes before the first of its options the command takes */
		if (section != NULL)
			fprintf(out, "\n%s\n", section);
		section = NULL;
		/* a help text ending in ':' goes on with the names the option takes */
		snprintf(help, sizeof(help), "%s%s%s", co[i].help,
		         ends_in_colon(co[i].help) ? " " : "",
		         ends_in_colon(co[i].help)
		                 ? config_value_words(&co[i], ", ", names, sizeof(names))
		                 : "");
		if (mode == CLI_REPLAY && measured_key(co[i].key))
			measured_default(help, sizeof(help));
		help_line(out, co[i].short_name, co[i].name, required_argument, co[i].metavar,
		          help);
	}
}

void cli_each_option(unsigned mode, cli_option_fn *fn, void *ctx)
{
	size_t n;
	const struct config_option *co = config_options(&n);

	for (size_t i = 0; i < N_CMD_OPTIONS; i++) {
		const struct cmd_option *r = &cmd_options[i];

		if (r->modes & (int)mode)
			fn(ctx, &(struct cli_option_info){
			                r->opt.name, r->opt.val < 128 ? r->opt.val : 0,
			                r->opt.has_arg != no_argument,
			                r->metavar != NULL && strcmp(r->metavar, "FILE") == 0, r->help,
			                NULL});
	}
	for (size_t i = 0; i < n; i++)
		if (co[i].commands & mode)
			fn(ctx, &(struct cli_option_info){co[i].name, co[i].short_name, true,
			                                  co[i].arg == CONFIG_ARG_PATH, co[i].help,
			                                  &co[i]});
}

/* cli_option_fn of cli_write_option_names. */
static void write_option_name(void *ctx, const struct cli_option_info *o)
{
	fprintf(ctx, "--%s ", o->name);
	if (o->short_name)
		fprintf(ctx, "-%c ", o->short_name);
}

void cli_write_option_names(FILE *out, enum cli_mode mode)
{
	cli_each_option((unsigned)mode, write_option_name, out);
}

/* Builds the getopt_long tables for mode from the config table and cmd_options; NULL when out
 * of memory. */
static struct option *build_options(enum cli_mode mode, char *shorts, size_t nshorts)
{
	size_t n, k = 0, j = 0;
	const struct config_option *co = config_options(&n);
	struct option *opts = pp_calloc(n + N_CMD_OPTIONS + 1, sizeof(*opts));

	if (opts == NULL)
		return NULL;
	shorts[j++] = ':';
	for (size_t i = 0; i < n; i++) {
		opts[k++] =
		        (struct option){co[i].name, required_argument, NULL, OPT_CONFIG + (int)i};
		if (co[i].short_name && j + 3 < nshorts) {
			shorts[j++] = (char)co[i].short_name;
			shorts[j++] = ':';
		}
	}
	for (size_t i = 0; i < N_CMD_OPTIONS; i++) {
		if (!(cmd_options[i].modes & (int)mode)) {
			opts[k++] = (struct option){cmd_options[i].opt.name, optional_argument, NULL,
			                            OPT_FOREIGN + (int)i};
			continue;
		}
		opts[k++] = cmd_options[i].opt;
		if (cmd_options[i].opt.val < 128 && j + 3 < nshorts) {
			shorts[j++] = (char)cmd_options[i].opt.val;
			if (cmd_options[i].opt.has_arg == required_argument)
				shorts[j++] = ':';
		}
	}
	shorts[j] = '\0';
	return opts;
}

/* The config option a short letter stands for, as an OPT_CONFIG id, or the letter itself. */
static int short_to_id(int c)
{
	size_t n;
	const struct config_option *co = config_options(&n);

	for (size_t i = 0; i < n; i++)
		if (co[i].short_name == c)
			return OPT_CONFIG + (int)i;
	return c;
}

/* Columns of the terminal on standard output, or 0 when it is not a terminal or does not say. */
static int tty_columns(void)
{
	struct winsize ws;

	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0)
		return ws.ws_col;
	return 0;
}

/* COLUMNS as a number of columns, or 0 when it holds none. */
static uint64_t env_columns(void)
{
	const char *columns = getenv("COLUMNS");
	uint64_t w;

	return columns != NULL && text_parse_uint(columns, 1, UINT32_MAX, &w) == TEXT_OK ? w : 0;
}

/* Width of a timeline without one given: the terminal's on standard output, else COLUMNS when
 * it holds an accepted width, else PP_TIMELINE_WIDTH. */
static int terminal_width(void)
{
	const char *columns = getenv("COLUMNS");
	int tty = tty_columns();
	uint64_t w;

	if (tty >= PP_TIMELINE_MIN_WIDTH && tty <= PP_TIMELINE_MAX_WIDTH)
		return tty;
	if (columns != NULL &&
	    text_parse_uint(columns, PP_TIMELINE_MIN_WIDTH, PP_TIMELINE_MAX_WIDTH, &w) == TEXT_OK)
		return (int)w;
	return PP_TIMELINE_WIDTH;
}

/* --timeline=VALUE: 0 (no timeline) or a width from PP_TIMELINE_MIN_WIDTH up. */
static int parse_width(const char *value, int *width)
{
	uint64_t w;

	if (strcmp(value, "0") == 0) {
		*width = 0;
		return 0;
	}
	if (text_parse_uint(value, PP_TIMELINE_MIN_WIDTH, PP_TIMELINE_MAX_WIDTH, &w) != TEXT_OK)
		return cmd_usage("--timeline '%s': width must be 0 (none) or an integer from %d to "
		                 "%d",
		                 value, PP_TIMELINE_MIN_WIDTH, PP_TIMELINE_MAX_WIDTH);
	*width = (int)w;
	return 0;
}

/* Colour by default: standard output is a terminal that takes escape sequences (TERM is set
 * and not "dumb") and NO_COLOR is unset or empty. */
static bool color_auto(void)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

	return isatty(STDOUT_FILENO) && (no == NULL || *no == '\0') && term != NULL &&
	       *term != '\0' && strcmp(term, "dumb") != 0;
}

/* Names the option getopt stopped at, as the user wrote it, into buf. */
static const char *bad_option(char **argv, char *buf, size_t n)
{
	const char *holder;

	if (optopt > 0 && optopt < 128)
		snprintf(buf, n, "-%c", optopt);
	else if (optopt != 0 && (holder = cmd_short_holder(argv, (char)optopt)) != NULL)
		snprintf(buf, n, "%s", holder); /* a byte past ASCII: the argument that holds it */
	else
		text_visible(buf, n, argv[optind - 1]); /* a cut marked "..." */
	return buf;
}

/*
 * The usage error of an option getopt_long did not take: arg ("--sch=1", "-x") is ambiguous
 * (the long options it begins are named) or unknown (the nearest option is suggested).
 */
static int unknown_option(const struct option *opts, const char *arg)
{
	char names[512] = "", hint[96];
	size_t len, used = 0;
	int n = 0;
	struct text_suggest near;

	if (strncmp(arg, "--", 2) != 0)
		return cmd_usage("unknown option '%s'", arg);
	len = strcspn(arg + 2, "=");
	if (len == 0)
		return cmd_usage("unknown option '%s'", arg);
	/* an option of other commands names them, rather than a near one of this command */
	for (size_t i = 0; i < N_CMD_OPTIONS; i++) {
		size_t nc;
		const struct cmd *c = cmd_table(&nc);

		if (strlen(cmd_options[i].opt.name) != len ||
		    strncmp(cmd_options[i].opt.name, arg + 2, len) != 0)
			continue;
		for (size_t k = 0; k < nc && used < sizeof(names); k++)
			if (c[k].mode & (unsigned)cmd_options[i].modes)
				used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
				                         used ? ", " : "", c[k].name);
		return cmd_usage("unknown option '%s': --%s is an option of %s", arg,
		                 cmd_options[i].opt.name, names);
	}
	text_suggest_init(&near, arg + 2, len);
	for (; opts->name != NULL; opts++) {
		/* another command's option is no suggestion for this one, nor one it may mean */
		if (opts->val >= OPT_FOREIGN && opts->val < OPT_CONFIG)
			continue;
		text_suggest_try(&near, opts->name, strlen(opts->name));
		if (strncmp(opts->name, arg + 2, len) != 0 || used >= sizeof(names))
			continue;
		used += (size_t)snprintf(names + used, sizeof(names) - used, "%s--%s",
		                         n++ ? ", " : "", opts->name);
	}
	if (n > 1)
		return cmd_usage("ambiguous option '%s': %s", arg, names);
	return cmd_usage("unknown option '%s'%s", arg,
	                 text_suggest_hint(&near, "--", hint, sizeof(hint)));
}

/* Parses a whole decimal integer from lo to hi for option name; returns 0 or exit status 2. */
static int parse_count(const char *name, const char *value, long lo, long hi, long *out)
{
	uint64_t x = 0;

	*out = 0;
	if (text_parse_uint(value, (uint64_t)lo, (uint64_t)hi, &x) != TEXT_OK)
		return cmd_usage("%s '%s': must be an integer from %ld to %ld", name, value, lo,
		                 hi);
	*out = (long)x;
	return 0;
}

/* --rank-by's names, by enum pp_rank_by. */
static const char *const rank_bys[] = {"step", "mean", "p50", "p90", "p99", NULL};

/* Parses --shard=K/N. */
static int parse_shard(const char *value, struct cli *cli)
{
	const char *p = value;
	uint64_t k = 0, n = 0;

	if (text_scan_uint(&p, &k) != TEXT_OK || *p++ != '/' ||
	    text_parse_uint(p, 1, SWEEP_MAX_POINTS, &n) != TEXT_OK || k < 1 || k > n)
		return cmd_usage("--shard '%s': must be K/N with 1 <= K <= N, such as 2/8", value);
	cli->shard = k;
	cli->nshards = n;
	return 0;
}

/* The CPUs this process may run on (its affinity mask: taskset, a Slurm or cgroup cpuset), else
 * the cores online, for --jobs' default. */
static int cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
#ifdef CPU_COUNT
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		n = CPU_COUNT(&set);
#endif
	return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

/* Handles one command option; returns -1 to go on or an exit status. */
static int take_option(int id, struct cli *cli, char **argv, const struct option *opts)
{
	char name[64];
	long x;

	for (size_t i = 0; i < N_CMD_OPTIONS; i++)
		if (cmd_options[i].opt.val == id && cmd_options[i].store != CLI_PARSED) {
			char *field = (char *)cli + cmd_options[i].field;

			/* a config file named by nothing: the option is told, as an output's is */
			if (id == OPT_CONFIG_FILE && *optarg == '\0')
				return cmd_usage("--config '': needs a file name");
			if (cmd_options[i].store == CLI_STRING)
				*(const char **)(void *)field = optarg;
			else
				*(bool *)(void *)field = true;
			return -1;
		}
	switch (id) {
	case OPT_TOP:
		if (parse_count("--top", optarg, 1, 100000, &x) != 0)
			return PP_EXIT_USAGE;
		cli->top = (int)x;
		return -1;
	case OPT_JOBS:
		if (parse_count("--jobs", optarg, 1, 1024, &x) != 0)
			return PP_EXIT_USAGE;
		cli->jobs = (int)x;
		return -1;
	case OPT_SHARD:
		return parse_shard(optarg, cli) == 0 ? -1 : PP_EXIT_USAGE;
	case OPT_RANK_BY:
		for (int i = 0; rank_bys[i] != NULL; i++)
			if (strcmp(optarg, rank_bys[i]) == 0) {
				cli->rank_by = (enum pp_rank_by)i;
				cli->rank_set = true;
				cli->rank_by_arg = rank_bys[i];
				return -1;
			}
		return cmd_usage("--rank-by '%s': must be step, mean, p50, p90 or p99", optarg);
	case OPT_W_SHARE:
		if (text_parse_double(optarg, &cli->w_share) != TEXT_OK || !(cli->w_share >= 0) ||
		    cli->w_share > 1)
			return cmd_usage("--w-share '%s': must be a number from 0 to 1", optarg);
		return -1;
	case OPT_TIMELINE:
		cli->timeline_set = true;
		cli->timeline_arg = optarg;
		cli->timeline_width = terminal_width();
		if (optarg != NULL && parse_width(optarg, &cli->timeline_width) != 0)
			return PP_EXIT_USAGE;
		return -1;
	case OPT_COLOR:
		if (strcmp(optarg, "auto") == 0)
			cli->color = color_auto();
		else if (strcmp(optarg, "always") == 0)
			cli->color = true;
		else if (strcmp(optarg, "never") == 0)
			cli->color = false;
		else
			return cmd_usage("--color '%s': must be 'auto', 'always' or 'never'",
			                 optarg);
		return -1;
	case OPT_EXPORT_FORMAT:
		if (!schedfile_format_find(optarg, &cli->export_format)) {
			struct text_suggest near;
			char list[96];

			text_suggest_init(&near, optarg, strlen(optarg));
			for (int k = 0; k < SCHEDFILE_NFORMATS; k++)
				text_suggest_try(&near, schedfile_format_names[k],
				                 strlen(schedfile_format_names[k]));
			return cmd_usage("--export-format '%s': must be %s%s", optarg,
			                 text_choices(schedfile_format_names, SCHEDFILE_NFORMATS, list,
			                              sizeof(list)),
			                 text_suggest_hint(&near, "", name, sizeof(name)));
		}
		cli->export_format_set = true;
		return -1;
	case OPT_HELP:
		/* `ppsim --help` is the program's; `ppsim run --help` and the others' their own */
		if (cli->mode == CLI_RUN && strcmp(argv[0], "run") != 0)
			cmd_help(cmd_out());
		else
			cmd_help_command(cmd_out(), cmd_of_mode(cli->mode));
		return PP_EXIT_OK;
	case OPT_VERSION:
		fprintf(cmd_out(), "ppsim %s\n", PP_VERSION);
		return PP_EXIT_OK;
	case ':':
		return cmd_usage("option '%s' needs a value", bad_option(argv, name, sizeof(name)));
	default:
		/* "--help=x": getopt names the option's short form; say what is wrong with it */
		if (optind > 0 && strncmp(argv[optind - 1], "--", 2) == 0 &&
		    strchr(argv[optind - 1], '=') != NULL) {
			const char *arg = argv[optind - 1] + 2;
			size_t len = strcspn(arg, "=");

			const struct option *hit = NULL;
			int hits = 0;

			/* the option named whole, or else the one its abbreviation names */
			for (const struct option *o = opts; o->name != NULL && hits >= 0; o++) {
				if (strncmp(o->name, arg, len) != 0)
					continue;
				if (strlen(o->name) == len) {
					hit = o;
					hits = -1; /* a whole name wins */
				} else {
					hit = hits++ == 0 ? o : hit;
				}
			}
			if (hit != NULL && (hits == -1 || hits == 1) && hit->has_arg == no_argument)
				return cmd_usage("option '--%s' takes no value", hit->name);
		}
		return unknown_option(opts, bad_option(argv, name, sizeof(name)));
	}
}

/* The usage error of `ppsim WORD` where WORD is no command: the nearest command, if any. */
static int unknown_command(const char *word)
{
	size_t n;
	const struct cmd *c = cmd_table(&n);
	struct text_suggest near;
	char hint[96];

	text_suggest_init(&near, word, strlen(word));
	for (size_t i = 0; i < n; i++)
		text_suggest_try(&near, c[i].name, strlen(c[i].name));
	if (text_suggest_best(&near) == NULL)
		return cmd_usage("unexpected argument '%s'", word);
	return cmd_usage("unknown command '%s'%s", word,
	                 text_suggest_hint(&near, "", hint, sizeof(hint)));
}

int cli_parse(int argc, char **argv, enum cli_mode mode, struct cli *cli)
{
	char shorts[64];
	struct option *opts = build_options(mode, shorts, sizeof(shorts));
	size_t n;
	const struct config_option *co = config_options(&n);
	const struct cmd *cmd = cmd_of_mode(mode);
	struct pp_error err = {0};
	int ch, status = -1;
	/* where a command would be (getopt_long moves the arguments that are not options last) */
	const char *first = argc > 1 ? argv[1] : NULL;

	memset(cli, 0, sizeof(*cli));
	cli->mode = mode;
	cli->format_name = NULL;
	cli->color = color_auto();
	cli->jobs = cores();
	cli->shard = cli->nshards = 1;
	cli->w_share = -1;
	cli->set = pp_mallocarray((size_t)argc + 1, sizeof(*cli->set));
	if (opts == NULL || cli->set == NULL) {
		free(opts);
		pp_nomem(&err, (size_t)argc + 1, sizeof(*cli->set));
		return cmd_fail(&err);
	}
	opterr = 0;
	optind = 0; /* GNU getopt: a full reset, also of a scan left inside "-pm4" */
	while (status < 0 && (ch = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		int id = short_to_id(ch);

		if (id >= OPT_FOREIGN && id < OPT_CONFIG) {
			/* "--trace" or "--trace=x": unknown here, and which commands take it */
			status = unknown_option(opts, argv[optind - 1]);
			break;
		}
		if (id >= OPT_CONFIG || (id == OPT_SCHEDULES && mode == CLI_SWEEP)) {
			struct cli_assignment *a = &cli->set[cli->nset++];

			/* a sweep's --schedules is a list of values of --schedule */
			a->opt = id == OPT_SCHEDULES ? config_option_by_key("schedule")
			                             : &co[id - OPT_CONFIG];
			if (id == OPT_SCHEDULES)
				snprintf(a->label, sizeof(a->label), "--schedules");
			else if (ch == id)
				snprintf(a->label, sizeof(a->label), "--%s", a->opt->name);
			else
				snprintf(a->label, sizeof(a->label), "-%c", ch);
			a->value = optarg;
			continue;
		}
		status = take_option(id, cli, argv, opts);
	}
	cli->format_set = cli->format_name != NULL;
	if (cli->format_name == NULL)
		cli->format_name = "text";
	if (status < 0 && (mode == CLI_COMPARE || mode == CLI_REPLAY || mode == CLI_MERGE)) {
		cli->files = argv + optind;
		cli->nfiles = argc - optind;
	} else if (status < 0 && optind < argc) {
		status = mode == CLI_RUN && argv[optind] == first && strcmp(argv[0], "run") != 0
		                 ? unknown_command(argv[optind])
		         : optind > 1 && strcmp(argv[optind - 1], "--timeline") == 0
		                 ? cmd_usage("unexpected argument '%s' (a width is written "
		                             "--timeline=%s)",
		                             argv[optind], argv[optind])
		                 : cmd_usage("unexpected argument '%s'", argv[optind]);
	}
	if (status < 0) {
		cli->format = report_format_find_if(cli->format_name, takes_format, cmd);
		if (cli->format == NULL)
			status = cli_bad_format(mode, cli->format_name);
	}
	if (status < 0 && cli->export_format_set && cli->export_file == NULL)
		status = cmd_usage("--export-format: needs --export-schedule=FILE");
	if (status < 0 && cli->timeline_width > 0 && !cli->format->human)
		status = cmd_usage("--timeline: only with --format=text");
	/* run and serve draw one by default for a person at a terminal wide enough, or one that
	 * does not say how wide (0 columns: as --timeline draws, at COLUMNS, else 100); one that
	 * says it is narrower than a timeline, or whose COLUMNS does, gets none */
	if (status < 0 && !cli->timeline_set &&
	    (mode == CLI_RUN || mode == CLI_SERVE || mode == CLI_REPLAY) && cli->format->human &&
	    isatty(STDOUT_FILENO) &&
	    (tty_columns() >= PP_TIMELINE_MIN_WIDTH ||
	     (tty_columns() == 0 && (env_columns() == 0 || env_columns() >= PP_TIMELINE_MIN_WIDTH))))
		cli->timeline_width = terminal_width();
	free(opts);
	return status;
}

void cli_release(struct cli *cli)
{
	for (int i = 0; cli->file_texts != NULL && i < cli->nfiles; i++)
		free(cli->file_texts[i]);
	free(cli->file_texts);
	free(cli->file_lens);
	free(cli->set);
	free(cli->config_text);
	cli->set = NULL;
	cli->config_text = NULL;
	cli->file_texts = NULL;
	cli->file_lens = NULL;
}
