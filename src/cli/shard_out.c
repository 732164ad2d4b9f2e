/*
 * Shard files (shard.h) for the commands that shard their work, sweep's points and run's noise
 * samples: what a shard file keeps before its records of what made the run (struct
 * shard_head's run): the words of the command line that make the records ("arg": -c FILE, each
 * config option as given, --fits, --rank-by) with the text of FILE ("config"), then what shapes
 * the report ("format", "top", and a run's "timeline": its WIDTH as given, empty for the
 * default width); the fingerprint of each input file the run read by name ("input": 16 hex
 * digits, a blank, the path), so that shards run on other contents of a file are told apart;
 * and how a kind's merger (merge.h) reads them back into the command line the run had.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "cli.h"
#include "cmd.h"
#include "guard.h"
#include "merge.h"

/* The run entries of a shard file, growing. */
struct entries {
	struct shard_entry *e;
	size_t n, cap;
};

static void entries_release(struct entries *es)
{
	for (size_t i = 0; i < es->n; i++)
		free(es->e[i].value);
	free(es->e);
}

/* Appends the entry name (a constant) with the value of fmt; 0 or -1 with err. */
static int add_entry(struct entries *es, struct pp_error *err, const char *name, const char *fmt,
                     ...) __attribute__((format(printf, 4, 5)));

static int add_entry(struct entries *es, struct pp_error *err, const char *name, const char *fmt,
                     ...)
{
	va_list ap;
	char *value;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (pp_grow((void **)&es->e, &es->cap, es->n + 1, sizeof(*es->e), err) != 0)
		return -1;
	if ((value = pp_malloc((size_t)len + 1)) == NULL)
		return pp_nomem(err, (size_t)len + 1, 1);
	va_start(ap, fmt);
	vsnprintf(value, (size_t)len + 1, fmt, ap);
	va_end(ap);
	es->e[es->n++] = (struct shard_entry){(char *)name, value};
	return 0;
}

/* The input entry of the file at path, unless es has one of it. */
static int add_input(struct entries *es, const char *path, struct pp_error *err)
{
	uint64_t fp;

	struct stat st;

	for (size_t i = 0; i < es->n; i++)
		if (strcmp(es->e[i].name, "input") == 0 && strcmp(es->e[i].value + 17, path) == 0)
			return 0;
	/* a pipe's bytes are gone once read: neither the fingerprint nor merge could see them */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return pp_fail(err, PP_ERR_USAGE,
		               "--shard-file: the run read '%s', not a regular file (a pipe or a "
		               "FIFO reads once), whose bytes a shard cannot be checked against at "
		               "the merge: give a file",
		               path);
	if (text_file_fingerprint(path, &fp, err) != 0)
		return -1;
	return add_entry(es, err, "input", "%016" PRIx64 " %s", fp, path);
}

/* The input entries of the files the run of c reads by name, with those of sw's axes that name
 * schedule files (sw NULL: a run's). */
static int input_entries(struct entries *es, const struct config *c, const struct sweep *sw,
                         struct pp_error *err)
{
	const char *path[CLI_INPUTS];

	cli_input_paths(c, path);
	for (int k = 0; k < CLI_INPUTS; k++)
		if (path[k][0] != '\0' && add_input(es, path[k], err) != 0)
			return -1;
	for (int a = 0; sw != NULL && a < sw->naxes; a++)
		for (int i = 0; strcmp(sw->axes[a].opt->key, "schedule_file") == 0 &&
		                i < sw->axes[a].nvalues;
		     i++)
			if (sw->axes[a].values[i][0] != '\0' &&
			    add_input(es, sw->axes[a].values[i], err) != 0)
				return -1;
	return 0;
}

static int shard_entries(const struct cli *cli, const struct config *c, const struct sweep *sw,
                         struct entries *es, struct pp_error *err)
{
	int rc = 0;

	memset(es, 0, sizeof(*es));
	if (cli->config_file != NULL)
		rc = add_entry(es, err, "arg", "--config=%s", cli->config_file) ||
		     add_entry(es, err, "config", "%s", cli->config_text);
	for (int i = 0; i < cli->nset && rc == 0; i++) {
		const struct cli_assignment *a = &cli->set[i];

		/* as cli_parse reads it again: --name=VALUE, or -x VALUE */
		if (strncmp(a->label, "--", 2) == 0)
			rc = add_entry(es, err, "arg", "%s=%s", a->label, a->value);
		else
			rc = add_entry(es, err, "arg", "%s", a->label) ||
			     add_entry(es, err, "arg", "%s", a->value);
	}
	if (rc == 0 && cli->fits)
		rc = add_entry(es, err, "arg", "--fits");
	if (rc == 0 && cli->rank_set)
		rc = add_entry(es, err, "arg", "--rank-by=%s", cli->rank_by_arg);
	if (rc == 0)
		rc = add_entry(es, err, "format", "%s", cli->format->name);
	if (rc == 0 && cli->top > 0)
		rc = add_entry(es, err, "top", "%d", cli->top);
	if (rc == 0 && cli->timeline_set)
		rc = cli->timeline_arg != NULL
		             ? add_entry(es, err, "timeline", "%d", cli->timeline_width)
		             : add_entry(es, err, "timeline", "%s", "");
	if (rc == 0)
		rc = input_entries(es, c, sw, err);
	return rc == 0 ? 0 : -1;
}

struct outfile *cli_open_shard(const struct cli *cli, const struct config *c,
                               const struct sweep *sw, const struct shard_codec *codec,
                               uint64_t first, uint64_t last, uint64_t total,
                               struct pp_error *err)
{
	struct entries es;
	struct outfile *f;

	if (shard_entries(cli, c, sw, &es, err) != 0) {
		entries_release(&es);
		return NULL;
	}
	f = guard_open(cli->shard_file, err);
	if (f != NULL)
		shard_write_head(outfile_stream(f), codec,
		                 &(struct shard_head){.k = cli->shard,
		                                      .n = cli->nshards,
		                                      .first = first,
		                                      .last = last,
		                                      .total = total,
		                                      .run = es.e,
		                                      .nrun = es.n});
	entries_release(&es);
	return f;
}

int merge_settings(const struct shard_head *h, char **words, const char **text,
                   const char *const *names, const char **values)
{
	int n = 1;

	*text = NULL;
	for (size_t k = 0; names[k] != NULL; k++)
		values[k] = NULL;
	for (size_t i = 0; i < h->nrun; i++) {
		const char *name = h->run[i].name, *value = h->run[i].value;
		size_t k = 0;

		if (strcmp(name, "arg") == 0) {
			words[n++] = (char *)value;
			continue;
		}
		if (strcmp(name, "config") == 0) {
			*text = value;
			continue;
		}
		if (strcmp(name, "input") == 0) { /* merge_check_input's: 16 hex digits, a path */
			if (strlen(value) < 18 || strspn(value, "0123456789abcdef") != 16 ||
			    value[16] != ' ')
				return -1;
			continue;
		}
		while (names[k] != NULL && strcmp(names[k], name) != 0)
			k++;
		if (names[k] == NULL)
			return -1;
		values[k] = value;
	}
	return n;
}

int merge_parse(const struct merge_shards *s, char **words, int n, enum cli_mode mode,
                const char *text, struct cli *cli)
{
	struct pp_error err = {0};
	int status = cli_parse(n, words, mode, cli);

	if (status < 0 && (cli->config_file == NULL) != (text == NULL)) {
		pp_fail(&err, PP_ERR_CONFIG,
		        "shard '%s': a config file without its text, or a text without a file",
		        s->paths[0]);
		return cmd_fail(&err);
	}
	if (status < 0 && text != NULL) {
		cli->config_len = strlen(text);
		if ((cli->config_text = pp_strdup(text)) == NULL) {
			pp_nomem(&err, cli->config_len + 1, 1);
			return cmd_fail(&err);
		}
	}
	return status;
}

int merge_check_input(const struct merge_shards *s, const char *path, struct pp_error *err)
{
	const struct shard_head *h = s->head;
	uint64_t fp;
	char now[17];

	for (size_t i = 0; path[0] != '\0' && i < h->nrun; i++) {
		const char *value = h->run[i].value;

		if (strcmp(h->run[i].name, "input") != 0 || strlen(value) < 17 ||
		    strcmp(value + 17, path) != 0)
			continue;
		if (text_file_fingerprint(path, &fp, err) != 0)
			return -1;
		snprintf(now, sizeof(now), "%016" PRIx64, fp);
		if (strncmp(value, now, 16) != 0)
			return pp_fail(err, PP_ERR_CONFIG,
			               "'%s' holds other bytes than when shard '%s' was run (its "
			               "fingerprint %.16s, now %s), and merge runs it again: put back "
			               "the file the shards read, or run them again",
			               path, s->paths[0], value, now);
	}
	return 0;
}
