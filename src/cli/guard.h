/*
 * What the program guards of the files around a run: no output replaces one of the run's inputs
 * or another output of it, no temporary file of an output outlives the process, even when a
 * signal stops it (any signal whose default action ends the process; standard output written
 * to a file is then cut back, as when the command fails), and the outputs of a command stand or
 * fall together with it: they are kept finished until the command ends and its standard output
 * is written, then committed together, or all aborted when it failed.
 * Outputs are opened, committed and aborted through here rather than through struct outfile
 * directly.
 */
#ifndef PPSIM_CLI_GUARD_H
#define PPSIM_CLI_GUARD_H

#include "ppsim/outfile.h"
#include "ppsim/util.h"

/* Installs the handlers that remove the temporary files of open outputs, then let the signal
 * stop the process as it would have. */
void guard_install(void);

/*
 * Checks the n output paths (NULL entries skipped) before anything runs: each must be writable
 * as outfile_open would take it (not a directory, not a read-only file), no two may name one
 * file (special files apart: /dev/null twice is fine), and none may be one of the ninputs
 * input paths (NULL or "" entries skipped), each named by its option in what[] for messages.
 * Returns 0, or -1 with a PP_ERR_IO or PP_ERR_USAGE error naming the paths.
 */
int guard_check_outputs(const char *const *outputs, const char *const *output_what, int n,
                        const char *const *inputs, const char *const *input_what, int ninputs,
                        struct pp_error *err);

/*
 * Lists f, an output written through (standard output), to be cut back as outfile_abort would
 * (outfile_cut_back) if a signal stops the process before the command ends (guard_end), or
 * until guard_abort(f).
 */
void guard_through(struct outfile *f);

/* outfile_open, with its temporary file removed, or the file it writes through cut back, if a
 * signal stops the process before it is committed or aborted. */
struct outfile *guard_open(const char *path, struct pp_error *err);

/* outfile_abort of a file from guard_open, signals held off meanwhile. */
void guard_abort(struct outfile *f);

/*
 * Finishes f, from guard_open, and keeps it for guard_end; the guard owns it from here. Returns
 * 0, or -1 with err (a full disk: f is aborted).
 */
int guard_keep(struct outfile *f, struct pp_error *err);

/*
 * The end of a command: commits every kept output together when ok (outfile_commit_all, with
 * signals held off), else aborts them; either way no output written through (guard_through) is
 * cut back on a signal any more. Returns 0, or -1 with err when a commit failed.
 */
int guard_end(bool ok, struct pp_error *err);

#endif
