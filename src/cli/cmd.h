/* Subcommands of the ppsim program: the dispatch table and what the commands share. */
#ifndef PPSIM_CMD_H
#define PPSIM_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "ppsim/report.h"
#include "ppsim/util.h"

/*
 * A row of the subcommand table: everything --help, completion, option parsing and --format
 * need to know about the command.
 */
struct cmd {
	const char *name;     /* "run" */
	const char *synopsis; /* arguments after the name, for the usage lines */
	const char *summary;  /* one line for --help */
	/* Runs the command on argv[0..argc-1] (argv[0] is the command name); returns the exit
	 * status. */
	int (*fn)(int argc, char **argv);
	/*
	 * The command's bit (enum cli_mode, the commands column of the option tables): the options
	 * it takes are the rows naming it. 0 for a command without options (list, validate).
	 */
	unsigned mode;
	enum report_kind kind; /* what --format writes (with mode != 0, and list) */
	/* --format: whether the command takes format f, when that is not "f writes kind" (merge:
	 * a format of any kind of shard's, checked against the shards' kind once they are read);
	 * NULL: the formats that write kind */
	bool (*takes_format)(const struct report_format *f);
	/* How a refused --format names what the command writes ("a sweep writes text, jsonl or
	 * csv"); NULL: the refusal says "unknown format". */
	const char *format_subject;
	bool file_args;        /* completion: its arguments are file names */
	const char *arg_words; /* completion: the words its arguments are, or NULL */
	const char *example;   /* --help: a command line that runs it, or NULL */
	/* --help: its exit statuses, a sentence "Exit status: ..." (wrapped as help text), when
	 * they are not the ones the commands that simulate share; NULL: those */
	const char *status;
	/* completion, for a command without a mode (parsing its options itself): its options */
	const char *options;
};

/* The subcommand table in --help order; *count receives the length. */
const struct cmd *cmd_table(size_t *count);
/* The row of the command whose bit is mode (enum cli_mode). */
const struct cmd *cmd_of_mode(unsigned mode);
/* The row of the command that fn runs. */
const struct cmd *cmd_of_fn(int (*fn)(int argc, char **argv));
/* An option of a command that reads its own few (list, validate, calibrate): its long name,
 * its short one ('\0': none), whether it takes a value, and the id cmd_getopt hands back. */
struct cmd_opt {
	const char *name;
	char short_name;
	bool value;
	int id;
};

/*
 * The argument that holds the short option byte c that getopt did not know (a byte past ASCII,
 * which getopt's optopt cannot name): the last one up to argv[optind] that starts with a single
 * '-' and holds it (optind is still that of the option before it inside a cluster); NULL when
 * none does.
 */
const char *cmd_short_holder(char **argv, int c);

/* What cmd_getopt returns at --help or -h (the caller writes its help), and at --version,
 * which it answered (the caller ends with status 0). */
#define CMD_OPT_HELP (-1)
#define CMD_OPT_DONE (-2)

/*
 * Reads the options of command cmd (its name, for messages) from argv as getopt_long reads
 * every command's: a long option by any prefix that names one, its value after '=' or next, a
 * short option's value attached or next, "--" ending them, operands anywhere (moved last; not
 * with POSIXLY_CORRECT set, as for every command). An unknown or ambiguous option, or one without
 * its value, is a usage error (its status, the message written). Once every option is read
 * without one, returns CMD_OPT_HELP if --help or -h was among them (whatever the others'
 * values), or CMD_OPT_DONE once --version has written the version; else an operand past the most the command takes (0 or 1) is a usage error, and
 * take(ctx, id, the option's name as --long or -s, its value or NULL) is called for each in
 * turn, stopping at the first that returns other than 0, which is returned. Returns 0 with the
 * operand in *operand (NULL when none was given).
 */
int cmd_getopt(const char *cmd, int argc, char **argv, const struct cmd_opt *opts, int n,
               int (*take)(void *ctx, int id, const char *opt, const char *value), void *ctx,
               int most, const char **operand);

int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_breakeven(int argc, char **argv);
int cmd_partition(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_completion(int argc, char **argv);

struct config;
struct serve_run;
struct pp_error;
/* Reads or generates the requests of serving config c and simulates them (serve, compare),
 * keeping every message when flags has SERVE_RECORD_MESSAGES (for a trace or an SVG); with
 * show, a run longer than a second shows its progress on a terminal's stderr. */
struct serve_run *cmd_serve_config(const struct config *c, unsigned flags, uint64_t max_steps,
                                   bool show, struct pp_error *err);

/*
 * Runs the command argv names (run by default), then writes out standard output and commits
 * the outputs the command kept (guard_keep) when it succeeded, or aborts them and cuts standard
 * output back when it failed; returns the exit status.
 */
int cmd_main(int argc, char **argv);

/*
 * Standard output, as every command writes it: a stream over it that holds at most an output
 * file's OUTFILE_MAX_BYTES and is cut back when the command fails. Nothing in the program
 * writes to stdout itself (tests/cli/t_layers.sh checks). Outside cmd_main, as in the fuzzing
 * harness of command lines that calls cli_parse, it is stdout.
 */
FILE *cmd_out(void);

/* Writes `ppsim --help`: the usage lines, the commands and the options of run. */
void cmd_help(FILE *out);
/* Writes `ppsim COMMAND --help` for command c (one taking options): its usage, summary, the
 * options it takes, the exit statuses and its example. */
void cmd_help_command(FILE *out, const struct cmd *c);
/* Writes the end of command c's --help, which a command that writes its own help ends with too:
 * a blank line, its exit statuses and its example. */
void cmd_help_end(FILE *out, const struct cmd *c);

/* Writes into buf (n bytes) what a run of the settings given that does not fit GPU memory can
 * try, "more GPUs, X or Y", leaving out what they already give (a framework's habits
 * included) and what the command searches itself (searches: advise, which tries tp and ep
 * unless they are given): a larger --tp, --distributed-optimizer=yes, --recompute=full (when
 * recompute: the command did not try it), a larger --ep (a mixture of experts), a smaller
 * --mbs. */
void cmd_memory_levers(char *buf, size_t n, const struct config *given, bool searches,
                       bool recompute);
/* Prints "ppsim: MSG" for err on stderr and returns the exit status its kind calls for. */
int cmd_fail(const struct pp_error *err);
/* Reports that a writer could not build the report (out of memory); returns its exit status. */
int cmd_report_failed(void);
/* Prints a usage error built from a printf format, with the pointer to --help; returns 2. */
int cmd_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Writes "ppsim: MESSAGE" to standard error as one line, with control bytes, C1 controls and
 * bytes that are not UTF-8 written \xNN, so that no input reaches the terminal raw. Every
 * message of the program goes through here. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
