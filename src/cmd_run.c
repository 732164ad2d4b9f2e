/* `ppsim run`: parse options into a config, simulate, write the report and optional outputs. */
#define _DEFAULT_SOURCE
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd.h"
#include "ppsim/config.h"
#include "ppsim/outfile.h"
#include "ppsim/report.h"
#include "ppsim/sched.h"
#include "ppsim/sim.h"

/* Identifiers of options that are not config fields; config fields use OPT_CONFIG + index. */
enum {
	OPT_FORMAT = 'f',
	OPT_HELP = 'h',
	OPT_TIMELINE = 1000,
	OPT_DUMP_OPS,
	OPT_VERSION,
	OPT_CONFIG = 2000,
};

/* Options of the run command itself, beside the config table. */
struct run_option {
	struct option opt;   /* getopt_long entry */
	const char *metavar; /* value name for --help, NULL for flags */
	const char *help;    /* one line for --help */
};

static const struct run_option run_options[] = {
        {{"format", required_argument, NULL, OPT_FORMAT}, "FMT", "report format (default text):"},
        {{"timeline", optional_argument, NULL, OPT_TIMELINE},
         "WIDTH",
         "append an ASCII timeline WIDTH columns wide (default: terminal, else 100)"},
        {{"dump-ops", required_argument, NULL, OPT_DUMP_OPS},
         "FILE",
         "write every op with its start and end as CSV to FILE"},
        {{"help", no_argument, NULL, OPT_HELP}, NULL, "show this help and exit"},
        {{"version", no_argument, NULL, OPT_VERSION}, NULL, "show the version and exit"},
};
#define N_RUN_OPTIONS (sizeof(run_options) / sizeof(run_options[0]))

/* What the user asked for besides the simulation itself. */
struct run_request {
	const struct report_format *format; /* report on stdout */
	int timeline_width;                 /* 0: no timeline */
	const char *dump_ops;               /* CSV path, or NULL */
};

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
	fprintf(out, "  %-24s %s\n", left, help);
}

/* Names of the report formats, "text, json", into buf of size n. */
static char *format_names(char *buf, size_t n)
{
	size_t count, len = 0;
	const struct report_format *f = report_formats(&count);

	buf[0] = '\0';
	for (size_t i = 0; i < count && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", f[i].name);
	return buf;
}

void cmd_run_help_options(FILE *out)
{
	size_t n;
	const struct config_option *co = config_options(&n);
	char help[512], names[256];

	for (size_t i = 0; i < n; i++) {
		/* the schedule option lists the generator table */
		snprintf(help, sizeof(help), "%s%s%s", co[i].help,
		         strcmp(co[i].name, "schedule") == 0 ? " " : "",
		         strcmp(co[i].name, "schedule") == 0 ? sched_names(names, sizeof(names))
		                                             : "");
		help_line(out, co[i].short_name, co[i].name, required_argument, co[i].metavar,
		          help);
	}
	for (size_t i = 0; i < N_RUN_OPTIONS; i++) {
		const struct run_option *r = &run_options[i];
		int short_name = r->opt.val < 128 ? r->opt.val : 0;

		/* the format option lists the reporter table */
		snprintf(help, sizeof(help), "%s%s%s", r->help, r->opt.val == OPT_FORMAT ? " " : "",
		         r->opt.val == OPT_FORMAT ? format_names(names, sizeof(names)) : "");
		help_line(out, short_name, r->opt.name, r->opt.has_arg, r->metavar, help);
	}
}

/* Builds the getopt_long tables from the config table and run_options. */
static struct option *build_options(char *shorts, size_t nshorts)
{
	size_t n, k = 0, j = 0;
	const struct config_option *co = config_options(&n);
	struct option *opts = pp_xcalloc(n + N_RUN_OPTIONS + 1, sizeof(*opts));

	shorts[j++] = ':';
	for (size_t i = 0; i < n; i++) {
		opts[k++] =
		        (struct option){co[i].name, required_argument, NULL, OPT_CONFIG + (int)i};
		if (co[i].short_name && j + 3 < nshorts) {
			shorts[j++] = (char)co[i].short_name;
			shorts[j++] = ':';
		}
	}
	for (size_t i = 0; i < N_RUN_OPTIONS; i++) {
		opts[k++] = run_options[i].opt;
		if (run_options[i].opt.val < 128 && j + 3 < nshorts) {
			shorts[j++] = (char)run_options[i].opt.val;
			if (run_options[i].opt.has_arg == required_argument)
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

/* Width of the terminal on stdout, or PP_TIMELINE_WIDTH when stdout is not one. */
static int terminal_width(void)
{
	struct winsize ws;

	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
	    ws.ws_col >= PP_TIMELINE_MIN_WIDTH)
		return ws.ws_col;
	return PP_TIMELINE_WIDTH;
}

static int parse_width(const char *value, int *width)
{
	char *end;
	long w = strtol(value, &end, 10);

	if (*value < '0' || *value > '9' || *end != '\0' || w < PP_TIMELINE_MIN_WIDTH ||
	    w > PP_TIMELINE_MAX_WIDTH)
		return cmd_usage("--timeline '%s': width must be an integer from %d to %d", value,
		                 PP_TIMELINE_MIN_WIDTH, PP_TIMELINE_MAX_WIDTH);
	*width = (int)w;
	return 0;
}

/* Names the option getopt stopped at, as the user wrote it, into buf. */
static const char *bad_option(char **argv, char *buf, size_t n)
{
	if (optopt > 0 && optopt < 128)
		snprintf(buf, n, "-%c", optopt);
	else
		snprintf(buf, n, "%s", argv[optind - 1]);
	return buf;
}

/* How many long options start with the name in arg ("--t=1" -> the options starting "t"). */
static int prefix_matches(const struct option *opts, const char *arg)
{
	size_t len;
	int n = 0;

	if (strncmp(arg, "--", 2) != 0)
		return 0;
	arg += 2;
	len = strcspn(arg, "=");
	for (; opts->name != NULL; opts++)
		n += strncmp(opts->name, arg, len) == 0;
	return n;
}

/* Parses argv into c and req; returns -1 to go on, or an exit status. */
static int parse_args(int argc, char **argv, struct config *c, struct run_request *req)
{
	char shorts[64], name[64];
	struct option *opts = build_options(shorts, sizeof(shorts));
	size_t n;
	const struct config_option *co = config_options(&n);
	struct pp_error err = {0};
	int ch, status = -1;

	opterr = 0;
	optind = 1;
	while (status < 0 && (ch = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		int id = short_to_id(ch);

		if (id >= OPT_CONFIG) {
			const struct config_option *o = &co[id - OPT_CONFIG];
			char label[48];

			if (ch == id)
				snprintf(label, sizeof(label), "--%s", o->name);
			else
				snprintf(label, sizeof(label), "-%c", ch);
			if (config_set(c, o, label, optarg, &err) != 0)
				status = cmd_fail(&err);
			continue;
		}
		switch (id) {
		case OPT_FORMAT:
			req->format = report_find(optarg);
			if (req->format == NULL)
				status = cmd_usage("--format '%s': unknown format", optarg);
			break;
		case OPT_TIMELINE:
			req->timeline_width = terminal_width();
			if (optarg != NULL && parse_width(optarg, &req->timeline_width) != 0)
				status = PP_EXIT_USAGE;
			break;
		case OPT_DUMP_OPS:
			req->dump_ops = optarg;
			break;
		case OPT_HELP:
			cmd_help(stdout);
			status = PP_EXIT_OK;
			break;
		case OPT_VERSION:
			printf("ppsim %s\n", PP_VERSION);
			status = PP_EXIT_OK;
			break;
		case ':':
			status = cmd_usage("option '%s' needs a value",
			                   bad_option(argv, name, sizeof(name)));
			break;
		default:
			bad_option(argv, name, sizeof(name));
			status = prefix_matches(opts, name) > 1
			                 ? cmd_usage("ambiguous option '%s'", name)
			                 : cmd_usage("unknown option '%s'", name);
			break;
		}
	}
	if (status < 0 && optind < argc)
		status = optind > 1 && strcmp(argv[optind - 1], "--timeline") == 0
		                 ? cmd_usage("unexpected argument '%s' (a width is written "
		                             "--timeline=%s)",
		                             argv[optind], argv[optind])
		                 : cmd_usage("unexpected argument '%s'", argv[optind]);
	if (status < 0 && req->timeline_width > 0 && strcmp(req->format->name, "text") != 0)
		status = cmd_usage("--timeline: only with --format=text");
	free(opts);
	return status;
}

static int dump_ops(const char *path, const struct sim *s)
{
	struct pp_error err = {0};
	struct outfile *f = outfile_open(path, &err);

	if (f == NULL)
		return cmd_fail(&err);
	report_ops_csv(outfile_stream(f), s);
	if (outfile_commit(f, &err) != 0)
		return cmd_fail(&err);
	return PP_EXIT_OK;
}

int cmd_run(int argc, char **argv)
{
	struct config c;
	struct run_request req = {report_find("text"), 0, NULL};
	struct pp_error err = {0};
	struct sim *s;
	int status;

	config_init(&c);
	status = parse_args(argc, argv, &c, &req);
	if (status >= 0)
		return status;
	s = sim_run(&c, &err);
	if (s == NULL)
		return cmd_fail(&err);
	status = req.dump_ops != NULL ? dump_ops(req.dump_ops, s) : PP_EXIT_OK;
	if (status == PP_EXIT_OK && req.format->write(stdout, s) != 0) {
		err = (struct pp_error){0};
		status = cmd_fail(
		        (pp_fail(&err, PP_ERR_IO, "out of memory building the report"), &err));
	}
	if (status == PP_EXIT_OK && req.timeline_width > 0) {
		fputc('\n', stdout);
		report_timeline(stdout, s, req.timeline_width);
	}
	sim_free(s);
	return status;
}
