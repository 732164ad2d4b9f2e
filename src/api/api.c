/*
 * The public facade of include/ppsim/ppsim.h: opaque handles over struct config and struct sim,
 * errors copied into the caller's buffer, reports written by the format registry's writers into
 * memory (open_memstream), so that each string is the bytes the command writes.
 */
#include "ppsim/ppsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/config.h"
#include "ppsim/report.h"
#include "ppsim/sim.h"

struct pp_config {
	struct config config; /* the settings, from config_init and the calls since */
};

struct pp_run {
	struct sim *sim; /* the finished simulation, owned */
};

/* Copies e's message into err[0..errlen-1] (when there is room) and returns -1. */
static int give_error(const struct pp_error *e, char *err, size_t errlen)
{
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, "%s", e->msg[0] ? e->msg : "unknown error");
	return -1;
}

const char *pp_version(int *major, int *minor, int *patch)
{
	if (major != NULL)
		*major = PP_VERSION_MAJOR;
	if (minor != NULL)
		*minor = PP_VERSION_MINOR;
	if (patch != NULL)
		*patch = PP_VERSION_PATCH;
	return PP_VERSION;
}

pp_config *pp_config_new(void)
{
	pp_config *c = pp_malloc(sizeof(*c));

	if (c != NULL)
		config_init(&c->config);
	return c;
}

void pp_config_free(pp_config *c)
{
	free(c);
}

pp_config *pp_config_copy(const pp_config *c)
{
	pp_config *copy = c != NULL ? pp_malloc(sizeof(*copy)) : NULL;

	if (copy != NULL)
		*copy = *c;
	return copy;
}

/* True when name is key with every '_' of key standing for a '-' of name. */
static bool same_name(const char *name, const char *key)
{
	for (; *name != '\0' && *key != '\0'; name++, key++)
		if (*name != *key && !(*name == '-' && *key == '_'))
			return false;
	return *name == *key;
}

/* The option row that key names: a config-file key, else a long option name; or NULL. */
static const struct config_option *find_option(const char *key)
{
	const struct config_option *opt = config_option_by_key(key);
	size_t n;
	const struct config_option *all = config_options(&n);

	for (size_t i = 0; opt == NULL && i < n; i++)
		if (same_name(all[i].name, key))
			opt = &all[i];
	return opt;
}

int pp_config_set(pp_config *c, const char *key, const char *value, char *err, size_t errlen)
{
	struct pp_error e = {0};
	const struct config_option *opt = key != NULL ? find_option(key) : NULL;
	char label[96];

	if (opt == NULL) {
		pp_fail(&e, PP_ERR_USAGE, "unknown key \"%s\"", key != NULL ? key : "(null)");
		return give_error(&e, err, errlen);
	}
	if (value == NULL) {
		pp_fail(&e, PP_ERR_USAGE, "key \"%s\": no value", key);
		return give_error(&e, err, errlen);
	}
	snprintf(label, sizeof(label), "--%s", opt->name);
	if (config_set(&c->config, opt, label, value, &e) != 0)
		return give_error(&e, err, errlen);
	return 0;
}

/* Applies a config file's text (path NULL) or the file at path to a copy of c's settings, and
 * keeps the copy only when all of it applied: a failed load leaves c as it was. */
static int load_whole(pp_config *c, const char *path, const char *name, const char *text,
                      char *err, size_t errlen)
{
	struct pp_error e = {0};
	struct config *t = pp_malloc(sizeof(*t));
	int rc;

	if (t == NULL) {
		pp_nomem(&e, 1, sizeof(*t));
		return give_error(&e, err, errlen);
	}
	*t = c->config;
	rc = path != NULL ? config_load_file(t, path, &e)
	                  : config_load_text(t, name != NULL ? name : "-", text, strlen(text), &e);
	if (rc == 0)
		c->config = *t;
	free(t);
	return rc == 0 ? 0 : give_error(&e, err, errlen);
}

int pp_config_load_json(pp_config *c, const char *json_text, const char *name, char *err,
                        size_t errlen)
{
	struct pp_error e = {0};

	if (json_text == NULL) {
		pp_fail(&e, PP_ERR_USAGE, "config: no text");
		return give_error(&e, err, errlen);
	}
	return load_whole(c, NULL, name, json_text, err, errlen);
}

int pp_config_load_file(pp_config *c, const char *path, char *err, size_t errlen)
{
	struct pp_error e = {0};

	if (path == NULL) {
		pp_fail(&e, PP_ERR_USAGE, "config: no path");
		return give_error(&e, err, errlen);
	}
	return load_whole(c, path, NULL, NULL, err, errlen);
}

pp_run *pp_simulate(const pp_config *c, char *err, size_t errlen)
{
	struct pp_error e = {0};
	pp_run *r = pp_zalloc(1, sizeof(*r), &e);

	if (r == NULL || config_check_command(&c->config, CONFIG_RUN, "run", &e) != 0 ||
	    (r->sim = sim_run(&c->config, &e)) == NULL) {
		free(r);
		give_error(&e, err, errlen);
		return NULL;
	}
	return r;
}

void pp_run_free(pp_run *r)
{
	if (r == NULL)
		return;
	sim_free(r->sim);
	free(r);
}

/* The writer of a report into memory: what the writers wrote, or NULL with err set. */
struct memout {
	FILE *out;  /* open_memstream's stream, NULL when it could not open */
	char *text; /* its buffer */
	size_t len;
};

/* Opens m's stream; returns it, or NULL with an out-of-memory error in e. */
static FILE *memout_open(struct memout *m, struct pp_error *e)
{
	m->text = NULL;
	m->len = 0;
	m->out = open_memstream(&m->text, &m->len);
	if (m->out == NULL)
		pp_nomem(e, 1, BUFSIZ);
	return m->out;
}

/* Closes m's stream after a writer returned rc; returns the text, or NULL with err set. */
static char *memout_close(struct memout *m, int rc, struct pp_error *e, char *err, size_t errlen)
{
	bool failed = rc != 0 || ferror(m->out);

	/* a stream whose buffer could not be made may close without one */
	if (fclose(m->out) != 0 || m->text == NULL)
		failed = true;
	if (failed) {
		free(m->text);
		if (e->kind == PP_ERR_NONE)
			pp_nomem(e, 1, m->len + BUFSIZ);
		give_error(e, err, errlen);
		return NULL;
	}
	return m->text;
}

/* The format named name (NULL: json) that writes kind, or NULL with err set in e. */
static const struct report_format *find_format(const char *name, enum report_kind kind,
                                               struct pp_error *e)
{
	const struct report_format *f = report_format_find(name != NULL ? name : "json", kind);
	char names[256];

	if (f == NULL)
		pp_fail(e, PP_ERR_USAGE, "format '%s': not one of %s", name,
		        report_format_names(kind, ", ", NULL, names, sizeof(names)));
	return f;
}

char *pp_run_report(const pp_run *r, const char *format, char *err, size_t errlen)
{
	struct pp_error e = {0};
	const struct report_format *f = find_format(format, REPORT_RUN, &e);
	struct memout m;

	if (f == NULL || memout_open(&m, &e) == NULL) {
		give_error(&e, err, errlen);
		return NULL;
	}
	return memout_close(&m, f->write(m.out, r->sim), &e, err, errlen);
}

char *pp_run_ops_csv(const pp_run *r, char *err, size_t errlen)
{
	struct pp_error e = {0};
	struct memout m;

	if (memout_open(&m, &e) == NULL) {
		give_error(&e, err, errlen);
		return NULL;
	}
	return memout_close(&m, report_ops_csv(m.out, r->sim), &e, err, errlen);
}

char *pp_compare_report(const pp_run *const *runs, const char *const *labels, int n,
                        const char *format, char *err, size_t errlen)
{
	struct pp_error e = {0};
	const struct report_format *f = find_format(format, REPORT_COMPARE, &e);
	struct report_row *rows = NULL;
	struct memout m;
	char *text;

	if (f != NULL && n < 1)
		pp_fail(&e, PP_ERR_USAGE, "compare: no runs");
	for (int i = 1; e.kind == PP_ERR_NONE && f != NULL && i < n; i++)
		report_compare_units(runs[0]->sim, runs[i]->sim, &e);
	if (e.kind == PP_ERR_NONE)
		rows = pp_zalloc((size_t)n, sizeof(*rows), &e);
	if (rows == NULL || memout_open(&m, &e) == NULL) {
		free(rows);
		give_error(&e, err, errlen);
		return NULL;
	}
	for (int i = 0; i < n; i++)
		rows[i] = (struct report_row){labels != NULL && labels[i] != NULL ? labels[i] : "-",
		                              runs[i]->sim};
	text = memout_close(&m, f->compare(m.out, rows, n), &e, err, errlen);
	free(rows);
	return text;
}

char *pp_list(const char *format, char *err, size_t errlen)
{
	struct pp_error e = {0};
	const struct report_format *f = find_format(format, REPORT_LIST, &e);
	struct memout m;

	if (f == NULL || memout_open(&m, &e) == NULL) {
		give_error(&e, err, errlen);
		return NULL;
	}
	return memout_close(&m, f->list(m.out), &e, err, errlen);
}

void pp_string_free(char *s)
{
	free(s);
}
