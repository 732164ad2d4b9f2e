/* Subcommands of the ppsim program: the dispatch table and what the commands share. */
#ifndef PPSIM_CMD_H
#define PPSIM_CMD_H

#include <stdio.h>

#include "ppsim/util.h"

/* A row of the subcommand table. */
struct cmd {
	const char *name;     /* "run" */
	const char *synopsis; /* arguments after the name, for the usage lines */
	const char *summary;  /* one line for --help */
	/* Runs the command on argv[0..argc-1] (argv[0] is the command name); returns the exit
	 * status. */
	int (*fn)(int argc, char **argv);
};

/* The subcommand table in --help order; *count receives the length. */
const struct cmd *cmd_table(size_t *count);

int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_breakeven(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_completion(int argc, char **argv);

struct config;
struct serve_run;
struct pp_error;
/* Reads or generates the requests of serving config c and simulates them (serve, compare). */
struct serve_run *cmd_serve_config(const struct config *c, struct pp_error *err);

/* Runs the command argv names (run by default) and checks standard output; returns the exit
 * status. */
int cmd_main(int argc, char **argv);

/* Writes the full --help text. */
void cmd_help(FILE *out);

/* Prints "ppsim: MSG" for err on stderr and returns the exit status its kind calls for. */
int cmd_fail(const struct pp_error *err);
/* Prints a usage error built from a printf format, with the pointer to --help; returns 2. */
int cmd_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
