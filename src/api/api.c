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
#include "ppsim/samples.h"
#include "ppsim/sim.h"

struct pp_config {
	struct config config; /* the settings, from config_init and the calls since */
};

struct pp_run {
	struct sim *sim; /* the finished simulation, owned */
};

/*
 * One call of the facade, from its first line to its return (call_begin, call_end): its error,
 * copied into the caller's buffer at the end, and the calling thread in the "C" locale in
 * between (util.h: the library never reads or writes numbers in the caller's locale).
 */
struct call {
	char *err; /* the caller's buffer of errlen bytes (may be NULL) */
	size_t errlen;
	struct pp_error e;       /* the call's error */
	struct pp_locale locale; /* the caller's locale, put back at the end */
};

/* An argument that must not be NULL: its value and its name in ppsim.h. */
struct arg {
	const void *value;
	const char *name;
};

/* Copies k's error message into the caller's buffer (when there is room). */
static void give_error(const struct call *k)
{
	if (k->err != NULL && k->errlen > 0)
		snprintf(k->err, k->errlen, "%s", k->e.msg[0] ? k->e.msg : "unknown error");
}

/*
 * Starts call k of the function name: refuses the first NULL among the n arguments args (the
 * message names the function and the argument), then switches the thread to the "C" locale.
 * Returns 0, or -1 with err set and nothing to end.
 */
static int call_begin(struct call *k, const char *name, const struct arg *args, size_t n, char *err,
                      size_t errlen)
{
	*k = (struct call){.err = err, .errlen = errlen};
	for (size_t i = 0; i < n; i++)
		if (args[i].value == NULL) {
			pp_fail(&k->e, PP_ERR_USAGE, "%s: argument '%s' is NULL", name,
			        args[i].name);
			give_error(k);
			return -1;
		}
	if (pp_locale_enter(&k->locale, &k->e) != 0) {
		give_error(k);
		return -1;
	}
	return 0;
}

/* Ends call k, which returns status (0, or -1 with k's error set): the caller's locale back,
 * its error in err. Returns status. */
static int call_end(struct call *k, int status)
{
	pp_locale_leave(&k->locale);
	if (status != 0)
		give_error(k);
	return status;
}

/* Ends call k, which returns p (NULL with k's error set), as call_end does. Returns p. */
static void *call_end_with(struct call *k, void *p)
{
	call_end(k, p != NULL ? 0 : -1);
	return p;
}

/* The arguments of a call, for call_begin: ARGS({c, "c"}, {key, "key"}). */
#define ARGS(...)                                                                                  \
	(const struct arg[]){__VA_ARGS__},                                                         \
	        sizeof((const struct arg[]){__VA_ARGS__}) / sizeof(struct arg)

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
	struct call k;
	const struct config_option *opt;
	char label[96];
	int rc = -1;

	if (call_begin(&k, "pp_config_set", ARGS({c, "c"}, {key, "key"}, {value, "value"}), err,
	               errlen) != 0)
		return -1;
	opt = find_option(key);
	if (opt == NULL) {
		pp_fail(&k.e, PP_ERR_USAGE, "unknown key \"%s\"", key);
	} else {
		snprintf(label, sizeof(label), "--%s", opt->name);
		rc = config_set(&c->config, opt, label, value, &k.e);
	}
	return call_end(&k, rc);
}

/* Applies a config file's text (path NULL) or the file at path to a copy of c's settings, and
 * keeps the copy only when all of it applied: a failed load leaves c as it was. Returns 0, or
 * -1 with e set. */
static int load_whole(pp_config *c, const char *path, const char *name, const char *text,
                      struct pp_error *e)
{
	struct config *t = pp_malloc(sizeof(*t));
	int rc;

	if (t == NULL)
		return pp_nomem(e, 1, sizeof(*t));
	*t = c->config;
	rc = path != NULL ? config_load_file(t, path, e)
	                  : config_load_text(t, name != NULL ? name : "-", text, strlen(text), e);
	if (rc == 0)
		c->config = *t;
	free(t);
	return rc == 0 ? 0 : -1;
}

int pp_config_load_json(pp_config *c, const char *json_text, const char *name, char *err,
                        size_t errlen)
{
	struct call k;

	if (call_begin(&k, "pp_config_load_json", ARGS({c, "c"}, {json_text, "json_text"}), err,
	               errlen) != 0)
		return -1;
	return call_end(&k, load_whole(c, NULL, name, json_text, &k.e));
}

int pp_config_load_file(pp_config *c, const char *path, char *err, size_t errlen)
{
	struct call k;

	if (call_begin(&k, "pp_config_load_file", ARGS({c, "c"}, {path, "path"}), err, errlen) != 0)
		return -1;
	return call_end(&k, load_whole(c, path, NULL, NULL, &k.e));
}

pp_run *pp_simulate(const pp_config *c, char *err, size_t errlen)
{
	struct call k;
	pp_run *r;

	if (call_begin(&k, "pp_simulate", ARGS({c, "c"}), err, errlen) != 0)
		return NULL;
	r = pp_zalloc(1, sizeof(*r), &k.e);
	if (r != NULL && (config_check_command(&c->config, CONFIG_RUN, "run", &k.e) != 0 ||
	                  (r->sim = sim_run_flags(&c->config, SIM_SLACK, &k.e)) == NULL)) {
		free(r);
		r = NULL;
	}
	/* the noise samples run in the calling thread: the figures are the same on any number */
	if (r != NULL && c->config.samples > 0 &&
	    sim_sample(r->sim, 0, c->config.samples, 1, &k.e) != 0) {
		pp_run_free(r);
		r = NULL;
	}
	return call_end_with(&k, r);
}

void pp_run_free(pp_run *r)
{
	if (r == NULL)
		return;
	sim_free(r->sim);
	free(r);
}

/* A report written into memory: the stream the writers write to and its buffer. */
struct memout {
	FILE *out;  /* open_memstream's stream */
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

/* Closes m's stream after a writer returned rc; returns the text, or NULL with e set. */
static char *memout_close(struct memout *m, int rc, struct pp_error *e)
{
	bool failed = rc != 0 || ferror(m->out);

	/* a stream whose buffer could not be made may close without one */
	if (fclose(m->out) != 0 || m->text == NULL)
		failed = true;
	if (failed) {
		free(m->text);
		if (e->kind == PP_ERR_NONE)
			pp_nomem(e, 1, m->len + BUFSIZ);
		return NULL;
	}
	return m->text;
}

/* The format named name (NULL: json) that writes kind, or NULL with e set. */
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
	struct call k;
	const struct report_format *f;
	struct memout m;
	char *text = NULL;

	if (call_begin(&k, "pp_run_report", ARGS({r, "r"}), err, errlen) != 0)
		return NULL;
	f = find_format(format, REPORT_RUN, &k.e);
	if (f != NULL && memout_open(&m, &k.e) != NULL)
		text = memout_close(&m, f->write(m.out, r->sim), &k.e);
	return call_end_with(&k, text);
}

char *pp_run_ops_csv(const pp_run *r, char *err, size_t errlen)
{
	struct call k;
	struct memout m;
	char *text = NULL;

	if (call_begin(&k, "pp_run_ops_csv", ARGS({r, "r"}), err, errlen) != 0)
		return NULL;
	if (memout_open(&m, &k.e) != NULL)
		text = memout_close(&m, report_ops_csv(m.out, r->sim), &k.e);
	return call_end_with(&k, text);
}

/* The rows of runs[0..n-1] for a comparison, labelled by labels (NULL or a NULL label: "-"), or
 * NULL with e set: no runs, a NULL run, runs in different time units, out of memory. */
static struct report_row *compare_rows(const pp_run *const *runs, const char *const *labels, int n,
                                       struct pp_error *e)
{
	struct report_row *rows;

	if (n < 1) {
		pp_fail(e, PP_ERR_USAGE, "compare: no runs");
		return NULL;
	}
	for (int i = 0; i < n; i++)
		if (runs[i] == NULL) {
			pp_fail(e, PP_ERR_USAGE, "pp_compare_report: argument 'runs[%d]' is NULL",
			        i);
			return NULL;
		} else if (i > 0 && report_compare_units(runs[0]->sim, runs[i]->sim, e) != 0) {
			return NULL;
		}
	rows = pp_zalloc((size_t)n, sizeof(*rows), e);
	for (int i = 0; rows != NULL && i < n; i++)
		rows[i] = (struct report_row){labels != NULL && labels[i] != NULL ? labels[i] : "-",
		                              runs[i]->sim, 0};
	return rows;
}

char *pp_compare_report(const pp_run *const *runs, const char *const *labels, int n,
                        const char *format, char *err, size_t errlen)
{
	struct call k;
	const struct report_format *f;
	struct report_row *rows = NULL;
	struct memout m;
	char *text = NULL;

	if (call_begin(&k, "pp_compare_report", ARGS({runs, "runs"}), err, errlen) != 0)
		return NULL;
	f = find_format(format, REPORT_COMPARE, &k.e);
	if (f != NULL && (rows = compare_rows(runs, labels, n, &k.e)) != NULL &&
	    memout_open(&m, &k.e) != NULL)
		text = memout_close(&m, f->compare(m.out, rows, n), &k.e);
	free(rows);
	return call_end_with(&k, text);
}

char *pp_list(const char *format, char *err, size_t errlen)
{
	struct call k;
	const struct report_format *f;
	struct memout m;
	char *text = NULL;

	if (call_begin(&k, "pp_list", NULL, 0, err, errlen) != 0)
		return NULL;
	f = find_format(format, REPORT_LIST, &k.e);
	if (f != NULL && memout_open(&m, &k.e) != NULL)
		text = memout_close(&m, f->list(m.out), &k.e);
	return call_end_with(&k, text);
}

void pp_string_free(char *s)
{
	free(s);
}
