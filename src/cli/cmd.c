/*
 * The commands of the ppsim program: the dispatch table, what they share (error reporting,
 * help), and cmd_main, which runs one and checks that standard output was written. A row holds
 * all a command's properties: its bit in the options' commands column (so the options it takes
 * come from the option tables), the kind of result its --format picks a writer for, and what
 * completion offers for its arguments; --help and the completion script are generated from it.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/text.h"
#include "cli.h"
#include "cmd.h"
#include "guard.h"
#include "merge.h"
#include "ppsim/preset.h"

static const struct cmd commands[] = {
        {"run", "[OPTIONS]", "simulate one configuration (the default command)", cmd_run,
         .mode = CLI_RUN, .kind = REPORT_RUN, .example = "ppsim --schedule=1f1b -p 4 -m 8 --timeline"},
        {"compare", "[OPTIONS] [CONFIG.json]...",
         "several schedules or configs side by side (--schedules=a,b,...)", cmd_compare,
         .mode = CLI_COMPARE, .kind = REPORT_COMPARE, .format_subject = "compare",
         .file_args = true,
         .example = "ppsim compare --schedules=1f1b,interleaved,zb-auto -p 4 -m 8 -v 2"},
        {"sweep", "[OPTIONS]",
         "simulate a grid of options given as lists (-p 2,4,8 -m 8:64:x2) and rank it", cmd_sweep,
         .mode = CLI_SWEEP, .kind = REPORT_SWEEP, .format_subject = "a sweep",
         .example = "ppsim sweep -s 1f1b,interleaved -p 2,4,8 -m 8:64:x2"},
        {"merge", "[OPTIONS] SHARD...",
         "join the shard files (--shard-file) of a sweep or of a run's noise samples into the "
         "whole report, in its --format (and --top or --timeline) unless given",
         cmd_merge, .mode = CLI_MERGE, .kind = REPORT_SWEEP, .format_subject = "merge",
         .takes_format = merge_takes_format,
         .file_args = true, .example = "ppsim merge shard-*.pps"},
        {"advise", "[OPTIONS]",
         "recommend tp, p, v, m, ep and a schedule for a model on a cluster (--gpus, --global-batch)",
         cmd_advise, .mode = CLI_ADVISE, .kind = REPORT_ADVICE, .format_subject = "advise",
         .example = "ppsim advise --model=llama3-70b --gpus=32 --global-batch=512"},
        {"partition", "[OPTIONS]",
         "place a model's layers and each stage's recomputation for the shortest step that "
         "fits",
         cmd_partition, .mode = CLI_PARTITION, .kind = REPORT_PARTITION,
         .format_subject = "partition",
         .example = "ppsim partition --model=llama3-70b --tp=8 -p 8 -s interleaved"},
        {"breakeven", "[OPTIONS]",
         "where interleaving stops paying: 1F1B against interleaved per link and comm mode",
         cmd_breakeven, .mode = CLI_BREAKEVEN, .kind = REPORT_BREAKEVEN,
         .format_subject = "breakeven",
         .example = "ppsim breakeven --model=llama3-70b -p 8 --link=nvlink3,pcie4"},
        {"serve", "[OPTIONS]",
         "simulate an inference pipeline serving requests: batching, TTFT, TPOT, bubbles",
         cmd_serve, .mode = CLI_SERVE, .kind = REPORT_SERVE, .format_subject = "serve",
         .example = "ppsim serve --model=llama3-8b -p 4 --batching=chunked --rate=8"},
        {"validate", "[--format=FMT] [--max-ops=N] [-p N] [-m N] [-v N] FILE",
         "check a schedule file: coverage, placement, dependencies", cmd_validate,
         .kind = REPORT_VALIDATION, .format_subject = "validate", .file_args = true,
         .options = "--format -f --max-ops --stages -p --microbatches -m --chunks -v --help -h",
         .example = "ppsim validate schedule.csv",
         .status = "Exit status: 0 a valid schedule file, 1 its order deadlocks (or out of "
                   "memory), 2 usage error, 3 invalid schedule file (or not one of the job that "
                   "-p, -m or -v give), 4 I/O error."},
        {"calibrate", "[OPTIONS] MEASURED",
         "write a config whose ops take measured times (a CSV, a Megatron-LM log)", cmd_calibrate,
         .file_args = true,
         .options = "--microbatches -m --chunks -v --w-share --output -o --jitter-out --help -h",
         .example = "ppsim calibrate -o calibrated.json measured.csv",
         .status = "Exit status: 0 success, 1 out of memory, 2 usage error (also a fused "
                   "backward without --w-share, a Megatron-LM log without -m, or a fitted "
                   "config ppsim would not run), 3 invalid measured file, 4 I/O error."},
        {"replay", "[OPTIONS] MEASURED...",
         "simulate a measured step (a profiler trace, a CSV of op times) again, and what-ifs",
         cmd_replay, .mode = CLI_REPLAY, .kind = REPORT_REPLAY, .format_subject = "replay",
         .file_args = true, .example = "ppsim replay --without-slowest trace.json"},
        {"list", "[--format=FMT]", "list the schedules, presets and report formats", cmd_list,
         .mode = 0, .kind = REPORT_LIST, .format_subject = "list",
         .options = "--format -f --help -h", .example = "ppsim list --format=json",
         .status = "Exit status: 0 success, 1 out of memory, 2 usage error (a format list does "
                   "not write), 4 I/O error."},
        {"completion", "bash|zsh|fish",
         "print a completion script for bash, zsh or fish: source <(ppsim completion bash)",
         cmd_completion, .arg_words = "bash zsh fish", .example = "ppsim completion bash",
         .status = "Exit status: 0 success, 2 usage error (no shell, or one ppsim does not "
                   "complete), 4 I/O error."},
};

const struct cmd *cmd_table(size_t *count)
{
	*count = sizeof(commands) / sizeof(commands[0]);
	return commands;
}

const struct cmd *cmd_of_mode(unsigned mode)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].mode == mode)
			return &commands[i];
	return NULL;
}

static void report_before_message(void);
static void report_after_message(void);

/*
 * Writes "ppsim: " and the message of fmt and ap, then tail, as one visible line: after what
 * the command wrote to standard output so far, and, when both go to one file (2>&1), kept there
 * even if the command then fails and standard output is cut back.
 */
static void error_line(const char *tail, const char *fmt, va_list ap)
{
	char buf[2048];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	report_before_message();
	fputs("ppsim: ", stderr);
	text_put_visible(stderr, buf);
	fputs(tail, stderr);
	fputc('\n', stderr);
	fflush(stderr);
	report_after_message();
}

void cmd_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_line("", fmt, ap);
	va_end(ap);
}

void cmd_memory_levers(char *buf, size_t n, const struct config *given, bool searches,
                       bool recompute)
{
	/* the settings as the run took them, a framework's habits included (as given when they
	 * cannot be settled: out of memory, say) */
	struct config *settled = pp_malloc(sizeof(*settled));
	struct pp_error err = {0};
	const struct config *c =
	        settled != NULL && config_settle(given, settled, &err) == 0 ? settled : given;
	const struct model_preset *mp = preset_model(c->model);
	bool moe = c->experts > 0 || (c->experts < 0 && mp != NULL && mp->experts > 0);
	const char *lever[6];
	int k = 0;

	lever[k++] = "more GPUs";
	if (!searches || config_is_set(c, "tp"))
		lever[k++] = "a larger --tp";
	/* a distributed optimizer shards over dp x cp: nothing to shard over one replica */
	if (c->distributed_optimizer != 1 && (searches || (long long)c->dp * c->cp > 1))
		lever[k++] = "--distributed-optimizer=yes";
	if (recompute && c->recompute != PP_RECOMPUTE_FULL)
		lever[k++] = "--recompute=full";
	if (moe && (!searches || config_is_set(c, "ep")))
		lever[k++] = "a larger --ep";
	if (c->mbs > 1)
		lever[k++] = "a smaller --mbs";
	buf[0] = '\0';
	for (int i = 0; i < k; i++) {
		size_t len = strlen(buf);
		const char *sep = i == 0 ? "" : i == k - 1 ? " or " : ", ";

		snprintf(buf + len, n - len, "%s%s", sep, lever[i]);
	}
	free(settled);
}

int cmd_fail(const struct pp_error *err)
{
	cmd_error("%s", err->msg);
	switch (err->kind) {
	case PP_ERR_SIM:
	case PP_ERR_DEVICE_MEM:
	case PP_ERR_NOMEM:
		return PP_EXIT_SIM;
	case PP_ERR_CONFIG:
		return PP_EXIT_CONFIG;
	case PP_ERR_IO:
		return PP_EXIT_IO;
	case PP_ERR_USAGE:
	case PP_ERR_NONE:
		break;
	}
	return PP_EXIT_USAGE;
}

int cmd_report_failed(void)
{
	struct pp_error err = {0};

	/* the writers say only that they failed, not for how many bytes */
	pp_fail(&err, PP_ERR_NOMEM, "out of memory building the report");
	return cmd_fail(&err);
}

/* Where a usage error points: the running command's own help (the program's state, set once
 * by cmd_main before the command runs). */
static char see_help[64] = " (see 'ppsim --help')";

int cmd_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_line(see_help, fmt, ap);
	va_end(ap);
	return PP_EXIT_USAGE;
}

/* The most options a command of its own few has (cmd_getopt). */
#define CMD_OPTS_MAX 8

const char *cmd_short_holder(char **argv, int c)
{
	for (int i = optind; i >= 1; i--)
		if (argv[i] != NULL && argv[i][0] == '-' && argv[i][1] != '-' &&
		    strchr(argv[i] + 1, c) != NULL)
			return argv[i];
	return NULL;
}

int cmd_getopt(const char *cmd, int argc, char **argv, const struct cmd_opt *opts, int n,
               int (*take)(void *ctx, int id, const char *opt, const char *value), void *ctx,
               int most, const char **operand)
{
	struct option lo[CMD_OPTS_MAX + 3];
	char shorts[3 * CMD_OPTS_MAX + 4] = ":", name[64];
	size_t ns = 1;
	int ch, at = -1, status = 0;

	if (n > CMD_OPTS_MAX)
		return cmd_usage("%s: internal error: too many options", cmd);
	for (int k = 0; k < n; k++) {
		lo[k] = (struct option){opts[k].name, opts[k].value ? required_argument : no_argument,
		                        NULL, 256 + k};
		if (opts[k].short_name != '\0') {
			shorts[ns++] = opts[k].short_name;
			if (opts[k].value)
				shorts[ns++] = ':';
		}
	}
	lo[n] = (struct option){"help", no_argument, NULL, 'h'};
	lo[n + 1] = (struct option){"version", no_argument, NULL, 'V'};
	lo[n + 2] = (struct option){NULL, 0, NULL, 0};
	shorts[ns++] = 'h';
	shorts[ns] = '\0';
	opterr = 0;
	optind = 0; /* GNU getopt: a full reset, also of a scan left inside a cluster */
	while (status == 0 && (ch = getopt_long(argc, argv, shorts, lo, &at)) != -1) {
		const char *arg = argv[optind - 1];

		/* the first reading: --help, and what is refused whatever the values */
		if (ch == 'h') {
			status = CMD_OPT_HELP;
		} else if (ch == 'V') { /* as every command's --version */
			fprintf(cmd_out(), "ppsim %s\n", PP_VERSION);
			status = CMD_OPT_DONE;
		} else if (ch == ':') { /* a value missing at the end of the line */
			if (optopt > 0 && optopt < 128)
				status = cmd_usage("option '-%c' needs a value", optopt);
			else {
				snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="), arg);
				status = cmd_usage("option '%s' needs a value", name);
			}
		} else if (ch == '?') {
			char names[256] = "";
			size_t len, used = 0;
			int m = 0;
			const char *holder;

			if ((optopt == 'h' || optopt == 'V') && strncmp(arg, "--", 2) == 0) {
				status = cmd_usage("option '--%s' takes no value",
				                   optopt == 'h' ? "help" : "version");
				continue;
			}
			if (optopt > 0 && optopt < 128) {
				status = cmd_usage("%s: unknown option '-%c'", cmd, optopt);
				continue;
			}
			if (optopt != 0) { /* a byte past ASCII: name the argument that holds it */
				holder = cmd_short_holder(argv, (char)optopt);
				status = cmd_usage("%s: unknown option '%s'", cmd,
				                   holder != NULL ? holder : arg);
				continue;
			}
			len = strncmp(arg, "--", 2) == 0 ? strcspn(arg + 2, "=") : 0;
			for (int q = 0; len > 0 && q < n; q++)
				if (strncmp(opts[q].name, arg + 2, len) == 0 && used < sizeof(names)) {
					used += (size_t)snprintf(names + used, sizeof(names) - used,
					                         "%s--%s", m++ ? ", " : "", opts[q].name);
				}
			status = m > 1 ? cmd_usage("%s: ambiguous option '%s': %s", cmd, arg, names)
			               : cmd_usage("%s: unknown option '%s'", cmd, arg);
		}
	}
	if (status != 0)
		return status;
	if (argc - optind > most)
		return cmd_usage("%s: unexpected argument '%s'", cmd, argv[optind + most]);
	*operand = optind < argc ? argv[optind] : NULL;
	/* every option read, none --help (which wins over a bad value, as for every command):
	 * read them again, each taken in turn */
	optind = 0;
	while (status == 0 && (ch = getopt_long(argc, argv, shorts, lo, &at)) != -1) {
		const struct cmd_opt *o = NULL;

		for (int q = 0; q < n; q++)
			if (ch == 256 + q || (opts[q].short_name != '\0' && ch == opts[q].short_name))
				o = &opts[q];
		if (o == NULL)
			continue; /* --help: the first reading returned at it */
		/* the option as its name (as the user wrote it: long or short) */
		if (ch >= 256)
			snprintf(name, sizeof(name), "--%s", o->name);
		else
			snprintf(name, sizeof(name), "-%c", o->short_name);
		if (o->value && *optarg == '\0')
			status = cmd_usage("option '%s' needs a value", name);
		else
			status = take(ctx, o->id, name, o->value ? optarg : NULL);
	}
	return status;
}

const struct cmd *cmd_of_fn(int (*fn)(int argc, char **argv))
{
	size_t n;
	const struct cmd *c = cmd_table(&n);

	for (size_t i = 0; i < n; i++)
		if (c[i].fn == fn)
			return &c[i];
	return NULL;
}

/* The exit statuses of the commands that simulate, for the end of their help. */
static void help_exit_status(FILE *out)
{
	fputs("\nExit status: 0 success, 1 simulation failure (a deadlock, a device out of\n"
	      "memory with --fail-on-oom, nothing advise tried fits, or ppsim out of memory),\n"
	      "2 usage error (advise: also settings no configuration meets; merge: shards not\n"
	      "of one run, each once),\n"
	      "3 invalid config, schedule file, request trace, shard file or measured step\n"
	      "(replay, calibrate), 4 I/O error.\n",
	      out);
}

void cmd_help(FILE *out)
{
	size_t n;
	const struct cmd *c = cmd_table(&n);

	fputs("Usage: ppsim [run] [OPTIONS]\n", out);
	for (size_t i = 1; i < n; i++)
		fprintf(out, "       ppsim %s%s%s\n", c[i].name, *c[i].synopsis ? " " : "",
		        c[i].synopsis);
	fputs("       ppsim --help | --version\n\n"
	      "Simulate a pipeline-parallel training schedule: per-device timelines of forward\n"
	      "and backward ops, the pipeline bubble, activation memory and point-to-point\n"
	      "traffic.\n\n"
	      "Commands ('ppsim COMMAND --help' shows a command's own options):\n",
	      out);
	for (size_t i = 0; i < n; i++)
		cli_help_text(out, c[i].name, c[i].summary);
	fputs("\nOptions of run, the default command:\n", out);
	cli_help_options(out, CLI_RUN);
	help_exit_status(out);
	fprintf(out, "Example: %s\n", c[0].example);
}

void cmd_help_command(FILE *out, const struct cmd *c)
{
	char summary[256];

	snprintf(summary, sizeof(summary), "%c%s.", toupper((unsigned char)c->summary[0]),
	         c->summary + 1);
	fprintf(out, "Usage: ppsim %s%s%s\n", c->name, *c->synopsis ? " " : "", c->synopsis);
	cli_help_text(out, NULL, summary);
	fputc('\n', out);
	cli_help_options(out, c->mode);
	cmd_help_end(out, c);
}

void cmd_help_end(FILE *out, const struct cmd *c)
{
	if (c->status != NULL) {
		fputc('\n', out);
		cli_help_text(out, NULL, c->status);
	} else {
		help_exit_status(out);
	}
	if (c->example != NULL)
		fprintf(out, "Example: %s\n", c->example);
}

/* True when standard output is a pipe whose reader has gone (`ppsim ... | head -1`). */
static bool reader_gone(void)
{
	struct pollfd p = {STDOUT_FILENO, POLLOUT, 0};

	return poll(&p, 1, 0) == 1 && (p.revents & POLLERR) != 0;
}

/* Standard output as the commands write it (cmd_out): counted against the limit of an output
 * file, and cut back when the command fails. */
static struct outfile *out;

FILE *cmd_out(void)
{
	/* outside cmd_main (the fuzzing harness of command lines), the C library's own */
	return out != NULL ? outfile_stream(out) : stdout;
}

/* Before an error message: what the command wrote to standard output goes first (a write
 * error stays on the stream, for cmd_end). */
static void report_before_message(void)
{
	if (out != NULL && outfile_stream(out) != NULL)
		fflush(outfile_stream(out));
}

/* After an error message: when it went to the file standard output writes (2>&1), it stays
 * there even if the command then fails and standard output is cut back. */
static void report_after_message(void)
{
	if (out != NULL)
		outfile_note_other_writer(out);
}

/*
 * The end of every command of status: standard output written out, then the outputs the command
 * kept committed together; a command that fails leaves every file as it was, standard output's
 * too when it is a file (cut back to where it stood). Returns the status to exit with.
 */
static int cmd_end(int status)
{
	struct pp_error err = {0};

	if (outfile_finish(out, &err) != 0 && status == PP_EXIT_OK) {
		/* whoever read the output has stopped reading: nothing went wrong here */
		if (errno != EPIPE && !reader_gone())
			status = cmd_fail(&err);
	}
	if (guard_end(status == PP_EXIT_OK, &err) != 0)
		status = cmd_fail(&err);
	if (status == PP_EXIT_OK)
		outfile_commit(out, &err);
	else
		outfile_abort(out);
	out = NULL;
	return status;
}

/*
 * Opens /dev/null on each of standard input, output and error that the process started without
 * (<&-, >&-, 2>&-), so that no file the command opens takes their place: a duplicate of standard
 * output would become standard error, and the error messages part of the report. Standard
 * output is opened for reading only, so that writing the report still fails (EBADF) as it
 * would have; standard error for writing, so that messages go nowhere, as they would have.
 */
static void fill_closed_std_fds(void)
{
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
		if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
			int null = open("/dev/null", fd == STDERR_FILENO ? O_WRONLY : O_RDONLY);

			if (null >= 0 && null != fd) {
				dup2(null, fd);
				close(null);
			}
		}
}

int cmd_main(int argc, char **argv)
{
	size_t n;
	const struct cmd *c = cmd_table(&n);
	struct pp_error err = {0};
	int status = -1;

	static char err_line[BUFSIZ];

	fill_closed_std_fds();
	/* a message goes out as one write a line, so that the messages of runs sharing a log do
	 * not interleave within a line (unbuffered, each piece of a line was a write of its own) */
	setvbuf(stderr, err_line, _IOLBF, sizeof(err_line));
	/* a closed pipe is an error on a write, not a signal that kills the process */
	signal(SIGPIPE, SIG_IGN);
	/* a file-size limit is a write error (EFBIG) that removes the output, not a signal that
	 * kills the process and leaves the temporary file */
	signal(SIGXFSZ, SIG_IGN);
	guard_install();
	out = outfile_open_fd(STDOUT_FILENO, "standard output", &err);
	if (out == NULL)
		return cmd_fail(&err);
	guard_through(out); /* a signal cuts it back as a failure would */
	if (argc > 1)
		for (size_t i = 0; i < n && status < 0; i++)
			if (strcmp(argv[1], c[i].name) == 0) {
				snprintf(see_help, sizeof(see_help), " (see 'ppsim %s --help')",
				         c[i].name);
				status = c[i].fn(argc - 1, argv + 1);
			}
	if (status < 0)
		status = cmd_run(argc, argv);
	return cmd_end(status);
}
