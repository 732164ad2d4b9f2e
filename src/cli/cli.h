/*
 * Command-line options shared by the commands (run, compare, sweep, advise): the config
 * table's options plus the commands' own, parsed with getopt_long into a list of assignments
 * that are applied on top of a config file's values (the command line wins). In a sweep, an
 * assignment's value may be a list of values.
 */
#ifndef PPSIM_CLI_H
#define PPSIM_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ppsim/config.h"
#include "ppsim/report.h"
#include "ppsim/schedfile.h"
#include "ppsim/sim.h"
#include "ppsim/sweep.h"

/* Which command parses: its bit in the commands column of the option tables. */
enum cli_mode {
	CLI_RUN = CONFIG_RUN,
	CLI_COMPARE = CONFIG_COMPARE,
	CLI_SWEEP = CONFIG_SWEEP,
	CLI_ADVISE = CONFIG_ADVISE,
	CLI_BREAKEVEN = CONFIG_BREAKEVEN,
	CLI_SERVE = CONFIG_SERVE,
	CLI_REPLAY = CONFIG_REPLAY,
	CLI_MERGE = CONFIG_MERGE,
	CLI_PARTITION = CONFIG_PARTITION,
};
#define CLI_ALL CONFIG_COMMANDS

/* One config option given on the command line, applied in order. */
struct cli_assignment {
	const struct config_option *opt; /* the option-table row */
	char label[48];                  /* "-p" or "--stages", for messages */
	const char *value;               /* the argument (points into argv) */
};

/* What a command line asked for. */
struct cli {
	enum cli_mode mode;                 /* the command parsing */
	const struct report_format *format; /* --format: writes the command's kind of result */
	const char *format_name;            /* --format as given, else "text" */
	bool format_set;                    /* --format was given */
	int timeline_width;                 /* run, serve: 0 for no timeline */
	bool timeline_set;         /* --timeline was given (else on a terminal by default) */
	const char *timeline_arg;  /* its WIDTH as given, or NULL (none: the default width) */
	const char *dump_ops;      /* run: CSV path, or NULL */
	const char *samples_file;  /* run: --samples-out CSV path, or NULL */
	const char *config_file;   /* run: -c FILE, or NULL */
	char *config_text;         /* sweep, advise, breakeven: its text (owned; cli_sweep_main
	                              reads it, merge takes it from the shards), or NULL */
	size_t config_len;         /* its bytes */
	const char *schedules;     /* compare: --schedules list, or NULL */
	bool fail_on_oom;          /* a device over its memory is a failure (exit 1) */
	bool quiet;                /* sweep, advise, serve: no progress line on a terminal */
	const char *export_file;   /* run: write the op order here, or NULL */
	const char *requests_file; /* serve: write the requests here, or NULL */
	const char *trace_file;    /* run: Chrome trace, or NULL */
	const char *svg_file;      /* SVG Gantt chart, or NULL */
	const char *html_file;     /* HTML report, or NULL */
	bool color;                /* run: colour the timeline */
	enum schedfile_format export_format; /* run: its format */
	bool export_format_set;              /* run: --export-format was given */
	char **files; /* compare: config files; replay: the measured files; merge: shard files
	                 (positional) */
	int nfiles;
	char **file_texts; /* compare: each config file's text, read once (cli_read_files;
	                      owned), or NULL */
	size_t *file_lens; /* their bytes */
	int top;                    /* sweep: rows of the ranked table */
	enum pp_rank_by rank_by;    /* compare, sweep, advise: what ranks runs */
	bool rank_set;              /* --rank-by was given */
	const char *rank_by_arg;    /* its value, as given */
	const char *records_file;   /* sweep: every record to this file, or NULL */
	const char *shard_file;     /* sweep: the shard file for ppsim merge, or NULL */
	bool fits;                  /* sweep, advise: skip points over GPU memory */
	int jobs;                   /* sweep, advise: threads (default: the cores) */
	uint64_t shard, nshards;    /* sweep: evaluate shard K of N (1 of 1) */
	bool without_slowest;       /* replay: the what-if without the slowest device */
	double w_share;             /* replay: --w-share, or -1 */
	struct cli_assignment *set; /* config options in command-line order */
	int nset;
};

/*
 * Parses argv for the command of mode: the options whose commands column names it, and
 * --format, which must name a format writing the command's kind of result. Returns -1 when the
 * command should go on, or the exit status when it should stop (after --help, --version or a
 * usage error, already reported). Free the result with cli_release.
 */
int cli_parse(int argc, char **argv, enum cli_mode mode, struct cli *cli);
void cli_release(struct cli *cli);

/*
 * Reads each of cli's positional config files (cli->files) once into cli->file_texts, so that a
 * command reading a file more than once (compare: once to tell a serving config, then once a
 * row) reads a pipe or a FIFO as it reads a file. Returns 0, or -1 with err.
 */
int cli_read_files(struct cli *cli, struct pp_error *err);

/*
 * The config of one simulation: defaults, then the config file (NULL for none), then the
 * command line's assignments; every option set must be for the command (config_check_command).
 * Returns 0, or -1 with err set.
 */
int cli_config(const struct cli *cli, const char *file, struct config *c, struct pp_error *err);
/*
 * Refuses an input file of the configs c[0..n-1] that is not a regular file (a pipe or a FIFO,
 * which reads once: --schedule-file, --requests, the jitters' files) when command reads it
 * more than once: reads times for each config that names it (a sweep's points, compare's
 * rows). Returns 0, or -1 with err.
 */
int cli_read_once(const struct config *c, int n, uint64_t reads, const char *command,
                  struct pp_error *err);
/* The input files c names besides its config files, "" where it names none: --schedule-file,
 * --requests, --jitter's and --link-jitter's (CLI_INPUTS of them, in that order). */
#define CLI_INPUTS 4
void cli_input_paths(const struct config *c, const char *path[CLI_INPUTS]);
/* cli_config of the assignments whose option take accepts (replay: those that are not the
 * what-if's). */
int cli_config_taking(const struct cli *cli, const char *file,
                      bool (*take)(const struct config_option *o), struct config *c,
                      struct pp_error *err);

/*
 * The sweep of a command line: the base config (defaults, then -c FILE, read from its text
 * config_text when that is not NULL) with one axis per
 * config option given, in command-line order (an option given one value is an axis of one
 * value and set in the base too), and require_fit from --fits. Returns 0, or -1 with err (sw
 * is then released).
 */
int cli_sweep(const struct cli *cli, struct sweep *sw, struct pp_error *err);

/*
 * The body of a command that searches a grid (sweep, advise, breakeven): cli_parse, the text
 * of -c FILE read into config_text, cli_sweep, then run(cli, sw), whose exit status it returns
 * after releasing both; a parse that ends the command (help, a usage error) returns its status
 * without calling run.
 */
int cli_sweep_main(int argc, char **argv, enum cli_mode mode,
                   int (*run)(const struct cli *cli, struct sweep *sw));

/* Reads the schedule file every point of sw runs (one no axis varies) once: one that is
 * malformed or deadlocks fails the sweep with its error, as it fails a run (every point was
 * skipped for it, and the sweep ended with status 0). Returns 0, or -1 with err set. */
int cli_check_shared_order(const struct sweep *sw, struct pp_error *err);

/*
 * Checks that every option sw's base sets or an axis varies is for the command parsed
 * (config_check_command). Returns 0, or -1 with err.
 */
int cli_check_sweep(const struct cli *cli, const struct sweep *sw, struct pp_error *err);

/*
 * Writes the options the command of mode takes, as a user types them ("--stages -p ..."),
 * separated by spaces: its own options and the config options whose commands column names it.
 */
void cli_write_option_names(FILE *out, enum cli_mode mode);

/* An option as completion scripts see it: the commands' own (config NULL) or a config row. */
struct cli_option_info {
	const char *name;  /* long name, without "--" */
	int short_name;    /* its letter, or 0 */
	bool takes_value;  /* it takes a value */
	bool file;         /* the value is a file name */
	const char *help;  /* the --help text */
	const struct config_option *config; /* the config row, or NULL */
};
typedef void cli_option_fn(void *ctx, const struct cli_option_info *o);
/* Calls fn for each option a command of mode (enum cli_mode bits) takes: the commands' own,
 * then the config options, in --help order. */
void cli_each_option(unsigned mode, cli_option_fn *fn, void *ctx);

/* Writes the option lines of --help for the command of mode (one enum cli_mode bit): its own
 * options, then the config options it takes under their groups' titles, every line within 80
 * columns. */
void cli_help_options(FILE *out, unsigned mode);
/* Writes one --help entry: left, then text wrapped within 80 columns; without left (NULL) a
 * paragraph. */
void cli_help_text(FILE *out, const char *left, const char *text);

/*
 * Writes the --format choices of the commands whose lists differ from run's, grouped by list,
 * as bash case branches for the completion script, run's list last as the default branch.
 */
void cli_write_format_cases(FILE *out);

/* The usage error of a --format the command of mode does not write; returns 2. */
int cli_bad_format(unsigned mode, const char *name);
struct cmd;
/* Writes the names of the formats the command of row c takes into buf of size n, joined as
 * report_format_names joins them; returns buf. */
char *cli_format_names(const struct cmd *c, const char *sep, const char *last, char *buf,
                       size_t n);
/* The same for the command of row c (a command without a mode: list). */
int cli_bad_format_of(const struct cmd *c, const char *name);

/* One output file: its path and the function that writes it from ctx (0, or -1 out of memory). */
struct cli_output {
	const char *path;                         /* the target as named */
	int (*write)(FILE *out, const void *ctx); /* writes the contents */
	const void *ctx;                          /* what write reads */
	bool gzip;                                /* compress the file as gzip */
};

/*
 * Writes the n files as one: each goes to a temporary file (struct outfile), finished and kept
 * (guard_keep) until the command ends, when they replace their targets together, after its
 * report, or not at all if anything failed. Returns PP_EXIT_OK, or the exit status of the
 * first failure after reporting it.
 */
int cli_write_files(const struct cli_output *outs, int n);

/* cli_write_files of the one file path. */
int cli_write_file(const char *path, int (*write)(FILE *out, const void *ctx), const void *ctx);

/* True when an output named path is written as gzip: a name ending in ".gz" (a trace). */
bool cli_gzip_name(const char *path);
/* True when a trace named path is written in Perfetto's protobuf format: a name ending in
 * ".pftrace" or ".perfetto-trace" (before a ".gz"). */
bool cli_pftrace_name(const char *path);

/*
 * Writes the output files the command line asks for (--dump-ops, --export-schedule, --trace,
 * --svg, --html) from the training step s, or from serving run serve when that is not NULL (s
 * is then ignored; its HTML report shows the requests too), plus extra when it is not NULL and
 * names a path, all-or-nothing as cli_write_files. Returns PP_EXIT_OK or the failure's status.
 */
int cli_write_outputs(const struct cli *cli, const struct sim *s, const struct serve_run *serve,
                      const struct cli_output *extra);

/* An output the command line asks for: the option that names it, its file (NULL: standard
 * output, which has no size limit) and what its writer needs (a row of a report registry). */
struct cli_asked {
	const char *option;
	const char *path;
	const struct report_need *need;
};
#define CLI_MAX_ASKED 12

/* The outputs cli asks for into out (CLI_MAX_ASKED at most): its files, in a fixed order, then
 * the timeline and the report; returns how many. */
int cli_outputs(const struct cli *cli, struct cli_asked *out);

/* The sim_run_flags the outputs asked for need: SIM_RECORD_MESSAGES when one reads the
 * messages, SIM_NO_OP_TIMES when none reads per-op times (the report alone, or with an exported
 * schedule). */
unsigned cli_sim_flags(const struct cli *cli);
/* The serve_run_flags the outputs need: SERVE_RECORD_MESSAGES when one reads the messages. */
unsigned cli_serve_flags(const struct cli *cli);

/*
 * What the outputs asked for need of a command's runs, added run by run before any runs: the
 * sizes of the runs, the fewest bytes each output writes for them and the memory they hold at
 * their peaks (a comparison holds all its rows), against the memory --max-ops allows.
 */
struct cli_need {
	struct cli_asked asked[CLI_MAX_ASKED];
	int nasked;
	unsigned flags;                /* the runs' sim_run_flags (cli_sim_flags) */
	const char *subject;           /* the command, named when no output is at fault */
	struct sim_size all;           /* ops and messages of every run added */
	uint64_t bytes[CLI_MAX_ASKED]; /* each output's fewest bytes for them */
	uint64_t memory;               /* the runs' peaks added up (sim_peak_bytes) */
	uint64_t budget;               /* the memory --max-ops allows: the largest of the runs' */
};

void cli_need_init(struct cli_need *nd, const struct cli *cli);
/*
 * Adds the run of c, of size z, and checks the totals: each output's file within the
 * OUTFILE_MAX_BYTES a file may hold, and the runs' memory with the writer that holds the most
 * within PP_BYTES_PER_MAX_OP bytes for each op --max-ops allows. Returns 0, or -1 with a
 * PP_ERR_USAGE error naming the output, the counts and the limit.
 */
int cli_need_add(struct cli_need *nd, const struct config *c, const struct sim_size *z,
                 struct pp_error *err);
/* cli_need_add of c's run when its settings say its size (sim_size_of_config); 0 when they do
 * not (cli_simulate adds a schedule file's run once it is read). */
int cli_need_config(struct cli_need *nd, const struct config *c, struct pp_error *err);
/* sim_run_flags of c with nd's flags, a run of a schedule file added to nd (and refused, before
 * it is simulated, when it does not fit) once the file is read. */
struct sim *cli_simulate(struct cli_need *nd, const struct config *c, struct pp_error *err);

/*
 * The most stage steps a serving run of c may take so that runs of them, held together (a
 * comparison's rows), fit the memory --max-ops allows and each file asked for fits an output
 * file: its size is known only as it runs, which stops there (serve_run_flags' max_steps).
 */
uint64_t cli_serve_steps(const struct cli *cli, const struct config *c, int runs);

/*
 * With --fail-on-oom, the error for a simulation with a device over its GPU's memory: returns
 * 0 when there is none (or the option is off), else -1 with a PP_ERR_DEVICE_MEM error naming the
 * device.
 */
int cli_check_memory(const struct cli *cli, const struct sim *s, struct pp_error *err);

#endif
