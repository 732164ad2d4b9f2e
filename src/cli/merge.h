/*
 * What `ppsim merge` (cmd_merge.c) hands the merger of a kind of shard: the shard files of one
 * run, checked to be all of them, each once, in order; and how the merger reads their records.
 */
#ifndef PPSIM_MERGE_H
#define PPSIM_MERGE_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "ppsim/shard.h"

/* The shards of one run, in order. */
struct merge_shards {
	char **paths;                    /* the file of shard k + 1 at paths[k] */
	FILE **spools;                   /* its bytes when it is not a regular file (a pipe, a
	                                    FIFO), read once at spools[k], else NULL */
	uint64_t n;                      /* the run's shards */
	const struct shard_head *head;   /* the first shard's head: the run's settings */
	const struct shard_codec *codec; /* their records' kind */
};

/*
 * Reads the records of every shard of s in index order and passes each to emit(ctx, record),
 * a struct of s's codec. Each file's head is read again and must still be the one checked (a
 * file replaced meanwhile is refused). Returns 0, the first non-zero value emit returned, or -1
 * with err when a file does not read or holds a malformed record (nothing of it is emitted
 * after the record at fault).
 */
int merge_records(const struct merge_shards *s, int (*emit)(void *ctx, const void *record),
                  void *ctx, struct pp_error *err);

/*
 * Opens cli's --shard-file (guard_open: kept until the command ends) and writes its head: shard
 * cli->shard of cli->nshards, records of codec's kind [first, last) of total, and what made the
 * run (shard_out.c), with the fingerprints of the input files of c and of sw's schedule-file
 * axis (sw NULL for a run). Returns the file, or NULL with err.
 */
struct outfile *cli_open_shard(const struct cli *cli, const struct config *c,
                               const struct sweep *sw, const struct shard_codec *codec,
                               uint64_t first, uint64_t last, uint64_t total,
                               struct pp_error *err);

/*
 * For a merger that reads the input file at path again (a run's schedule file, simulated
 * again): fails err (PP_ERR_CONFIG) when the shards' head holds the file's fingerprint and the
 * file now holds other bytes. Returns 0 (also for a file the head does not name), or -1.
 */
int merge_check_input(const struct merge_shards *s, const char *path, struct pp_error *err);

/*
 * Reads the settings of head h back (shard_out.c): its "arg" entries into words[1..] (room for
 * h->nrun + 1; words[0] is the caller's command name), its config text into *text (NULL:
 * none), and the entry named names[k] (a NULL-terminated list) into values[k] (NULL when
 * absent). Returns the words in words, the name included, or -1 for an entry of another name.
 */
int merge_settings(const struct shard_head *h, char **words, const char **text,
                   const char *const *names, const char **values);

/*
 * Parses words[0..n-1] as command mode's command line into cli, with the config text of the
 * shards s (text; NULL with no -c) as the text of its -c file. Returns -1 to go on, or the exit
 * status of a failure, told (a -c without its text or the other way round, out of memory,
 * what cli_parse refuses); cli is then to be released all the same.
 */
int merge_parse(const struct merge_shards *s, char **words, int n, enum cli_mode mode,
                const char *text, struct cli *cli);

/*
 * Whether merge takes --format f: f writes what some kind of shard merges into (a sweep's
 * report, a run's). The shards' kind, once read, narrows it to the formats of its report.
 */
bool merge_takes_format(const struct report_format *f);

/*
 * The merger of a sweep's shards (cmd_sweep.c): the sweep their settings describe, with merge's
 * own options (cli: --format, --top, --records, --html, --quiet) over them, reported from the
 * records as the sweep without --shard would have; it draws no timeline, and refuses
 * --timeline. Returns the exit status.
 */
int cmd_sweep_merge(const struct cli *cli, const struct merge_shards *s);

/*
 * The merger of a run's noise-sample shards (cmd_run.c): the run their settings describe,
 * simulated again, with the samples read from the shards, reported as the run without --shard
 * would have, its timeline too (merge's --format, --timeline, --samples-out and --html over
 * them). Returns the exit status.
 */
int cmd_samples_merge(const struct cli *cli, const struct merge_shards *s);

#endif
