/*
 * The facade of include/ppsim/ppsim.h, its configurations, runs and reports: opaque handles over
 * struct config, struct sim and struct serve_run; errors copied into the caller's buffer in a
 * library user's words; reports written by the format registry's writers into memory
 * (open_memstream), so that each string is the bytes the command writes. api_data.c reads the
 * runs as data.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "base/memfile.h"
#include "ppsim/report.h"
#include "ppsim/samples.h"

/* Copies k's error message, in a library user's words, into the caller's buffer. */
static void give_error(struct call *k)
{
	if (k->err == NULL || k->errlen == 0)
		return;
	api_words(k->e.msg, sizeof(k->e.msg));
	snprintf(k->err, k->errlen, "%s", k->e.msg[0] ? k->e.msg : "unknown error");
}

int api_begin(struct call *k, const char *name, const struct arg *args, size_t n, char *err,
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

/* The status (ppsim.h) of a failure of kind kind. */
static int status_of(enum pp_errkind kind)
{
	switch (kind) {
	case PP_ERR_SIM:
	case PP_ERR_DEVICE_MEM:
		return PP_E_SIM;
	case PP_ERR_IO:
		return PP_E_FILE;
	case PP_ERR_NOMEM:
		return PP_E_NOMEM;
	default:
		return PP_E_INPUT;
	}
}

int api_end(struct call *k, int status)
{
	pp_locale_leave(&k->locale);
	if (status == 0)
		return PP_OK;
	give_error(k);
	return status_of(k->e.kind);
}

/* The commands the library's messages name, and the calls that do their work. */
static const struct {
	const char *command, *call;
} calls[] = {
        {"ppsim serve", "pp_serve"},
        {"ppsim run", "pp_simulate"},
        {"ppsim replay", "pp_replay"},
        {"ppsim sweep", "pp_sweep_run"},
        {"ppsim advise", "pp_advise"},
};

/* The options of commands that are arguments of the calls that do their work, by their names
 * there (pp_calibrate's and pp_replay_whatif's w_share, pp_replay_whatif's without_slowest). */
static const struct {
	const char *option, *key;
} arguments[] = {
        {"w-share", "w_share"},
        {"without-slowest", "without_slowest"},
};

/* The config key or argument that the long option name[0..len-1] sets, or NULL. */
static const char *key_named(const char *name, size_t len)
{
	size_t n;
	const struct config_option *all = config_options(&n);

	for (size_t i = 0; i < n; i++)
		if (strlen(all[i].name) == len && strncmp(all[i].name, name, len) == 0)
			return all[i].key;
	for (size_t i = 0; i < sizeof(arguments) / sizeof(arguments[0]); i++)
		if (strlen(arguments[i].option) == len &&
		    strncmp(arguments[i].option, name, len) == 0)
			return arguments[i].key;
	return NULL;
}

const char *api_key_named(const char *name)
{
	return key_named(name, strlen(name));
}

/* The config key of the option whose short name is c, or NULL. */
static const char *key_of_short(char c)
{
	size_t n;
	const struct config_option *all = config_options(&n);

	for (size_t i = 0; i < n; i++)
		if (all[i].short_name != 0 && all[i].short_name == c)
			return all[i].key;
	return NULL;
}

void api_words(char *msg, size_t n)
{
	char out[sizeof(((struct pp_error *)0)->msg)];
	size_t o = 0;
	bool quoted = false, dquoted = false;

	for (const char *s = msg; *s != '\0' && o + 1 < sizeof(out);) {
		size_t len = 0, k;
		const char *key = NULL;

		/* a quote opens before a word and closes after one: "GPU's" holds none; what is
		 * in double quotes is a key, or a name the caller gave, kept as it is */
		if (*s == '"' && !quoted)
			dquoted = !dquoted;
		else if (!dquoted && *s == '\'' && !quoted &&
		         (s == msg || !isalnum((unsigned char)s[-1])))
			quoted = true;
		else if (!dquoted && *s == '\'' && quoted && !isalnum((unsigned char)s[1]))
			quoted = false;
		/* "the key of --stages": the option's name, which the library takes too */
		if (!quoted && !dquoted && strncmp(s, "the key of --", 13) == 0) {
			o += (size_t)snprintf(out + o, sizeof(out) - o, "the key of ");
			o = o < sizeof(out) ? o : sizeof(out) - 1;
			s += 13;
			continue;
		}
		if (dquoted) {
			out[o++] = *s++;
			continue;
		}
		if (!quoted && s[0] == '-' && s[1] == '-' &&
		    (s == msg || !isalnum((unsigned char)s[-1]))) {
			while (isalnum((unsigned char)s[2 + len]) || s[2 + len] == '-')
				len++;
			key = key_named(s + 2, len);
		}
		/* an option and its value as the command line quotes it, "--microbatches '8': ...",
		 * is a key and its value as the library's own messages give them, "key "m" = 8" */
		if (key != NULL && s[2 + len] == ' ' && s[3 + len] == '\'') {
			/* the value ends at the quote before ": " (an apostrophe inside it, "it's.csv",
			 * does not end it), or at the message's last character */
			const char *v = s + 4 + len, *q = strstr(v, "': ");

			const char *next = strstr(v, " '"); /* another quoted value: not this one's */

			if (q == NULL && *v != '\0' && v[strlen(v) - 1] == '\'' && strlen(v) > 1)
				q = v + strlen(v) - 1;
			if (q != NULL && (next == NULL || next > q)) {
				o += (size_t)snprintf(out + o, sizeof(out) - o, "key \"%s\" = %.*s", key,
				                      (int)(q - v), v);
				o = o < sizeof(out) ? o : sizeof(out) - 1;
				s = q + 1;
				continue;
			}
		}
		if (key != NULL) {
			o += (size_t)snprintf(out + o, sizeof(out) - o, "\"%s\"%s", key,
			                      s[2 + len] == '=' ? " = " : "");
			o = o < sizeof(out) ? o : sizeof(out) - 1;
			s += 2 + len + (s[2 + len] == '=');
			continue;
		}
		/* a short option and its number: "-p 64" */
		if (!quoted && s[0] == '-' && isalpha((unsigned char)s[1]) && s[2] == ' ' &&
		    isdigit((unsigned char)s[3]) && (s == msg || s[-1] == ' ') &&
		    (key = key_of_short(s[1])) != NULL) {
			o += (size_t)snprintf(out + o, sizeof(out) - o, "\"%s\" = ", key);
			o = o < sizeof(out) ? o : sizeof(out) - 1;
			s += 3;
			continue;
		}
		/* a short option before a word, "-s interleaved", or ending a sentence, "give -m" */
		if (!quoted && s[0] == '-' && isalpha((unsigned char)s[1]) &&
		    (s[2] == '\0' || s[2] == '.' || s[2] == ';' ||
		     (s[2] == ' ' && isalpha((unsigned char)s[3]))) &&
		    s > msg && s[-1] == ' ' && (key = key_of_short(s[1])) != NULL) {
			bool value = s[2] == ' ';

			o += (size_t)snprintf(out + o, sizeof(out) - o, "\"%s\"%s", key,
			                      value ? " = " : "");
			o = o < sizeof(out) ? o : sizeof(out) - 1;
			s += value ? 3 : 2;
			continue;
		}
		/* a short option in a list of them: "(-s, -m, -v)" */
		if (!quoted && s[0] == '-' && isalpha((unsigned char)s[1]) &&
		    (s[2] == ',' || s[2] == ')') && s > msg && (s[-1] == ' ' || s[-1] == '(') &&
		    (key = key_of_short(s[1])) != NULL) {
			o += (size_t)snprintf(out + o, sizeof(out) - o, "\"%s\"", key);
			o = o < sizeof(out) ? o : sizeof(out) - 1;
			s += 2;
			continue;
		}
		for (k = 0; !quoted && k < sizeof(calls) / sizeof(calls[0]); k++)
			if (strncmp(s, calls[k].command, strlen(calls[k].command)) == 0 &&
			    !isalnum((unsigned char)s[strlen(calls[k].command)]))
				break;
		if (!quoted && k < sizeof(calls) / sizeof(calls[0])) {
			o += (size_t)snprintf(out + o, sizeof(out) - o, "%s", calls[k].call);
			o = o < sizeof(out) ? o : sizeof(out) - 1;
			s += strlen(calls[k].command);
			continue;
		}
		out[o++] = *s++;
	}
	out[o] = '\0';
	snprintf(msg, n, "%s", out);
}

int pp_abi_version(void)
{
	return PP_ABI_VERSION;
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

const struct config_option *api_find_option(const char *key)
{
	const struct config_option *opt = config_option_by_key(key);
	size_t n;
	const struct config_option *all = config_options(&n);

	for (size_t i = 0; opt == NULL && i < n; i++)
		if (same_name(all[i].name, key))
			opt = &all[i];
	return opt;
}

const char *pp_config_key(const char *name)
{
	const struct config_option *opt = name != NULL ? api_find_option(name) : NULL;

	return opt != NULL ? opt->key : NULL;
}

int pp_config_set(pp_config *c, const char *key, const char *value, char *err, size_t errlen)
{
	struct call k;
	const struct config_option *opt, *all;
	char label[96];
	size_t n;
	int rc = -1;

	if (api_begin(&k, "pp_config_set", ARGS({c, "c"}, {key, "key"}, {value, "value"}), err,
	              errlen) != 0)
		return PP_E_INPUT;
	opt = api_find_option(key);
	all = config_options(&n);
	if (opt == NULL) {
		pp_fail(&k.e, PP_ERR_USAGE, "unknown key \"%s\"", key);
	} else {
		snprintf(label, sizeof(label), "key \"%s\"", opt->key);
		rc = config_set(&c->config, opt, label, value, &k.e);
		/* the checks of the whole config name the value by its key */
		if (rc == 0)
			c->config.origin[opt - all] = (struct config_origin){CONFIG_LINE_CALLER, 0};
	}
	return api_end(&k, rc);
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

	if (api_begin(&k, "pp_config_load_json", ARGS({c, "c"}, {json_text, "json_text"}), err,
	              errlen) != 0)
		return PP_E_INPUT;
	return api_end(&k, load_whole(c, NULL, name, json_text, &k.e));
}

int pp_config_load_file(pp_config *c, const char *path, char *err, size_t errlen)
{
	struct call k;

	if (api_begin(&k, "pp_config_load_file", ARGS({c, "c"}, {path, "path"}), err, errlen) != 0)
		return PP_E_INPUT;
	return api_end(&k, load_whole(c, path, NULL, NULL, &k.e));
}

/* The PP_KEEP_* bits pp_simulate knows. */
#define KEEP_ALL (PP_KEEP_OP_TIMES | PP_KEEP_SLACK)

/* The training step of config c with the PP_KEEP_* bits flags, or NULL with e set. */
static pp_run *simulate(const struct config *c, unsigned flags, struct pp_error *e)
{
	pp_run *r;
	unsigned sim_flags = flags & PP_KEEP_SLACK      ? SIM_SLACK
	                     : flags & PP_KEEP_OP_TIMES ? 0
	                                                : SIM_NO_OP_TIMES;

	if (flags & ~KEEP_ALL) {
		pp_fail(e, PP_ERR_USAGE, "pp_simulate: flags 0x%x: not PP_KEEP_* bits", flags);
		return NULL;
	}
	if (config_check_command(c, CONFIG_RUN, "run", e) != 0 ||
	    (r = pp_zalloc(1, sizeof(*r), e)) == NULL)
		return NULL;
	if ((r->sim = sim_run_flags(c, sim_flags, e)) == NULL) {
		free(r);
		return NULL;
	}
	r->config = &r->sim->config;
	r->kept = flags & PP_KEEP_SLACK ? KEEP_ALL : flags;
	/* the noise samples run in the calling thread: the figures are the same on any number */
	if (c->samples > 0 && sim_sample(r->sim, 0, c->samples, 1, e) != 0) {
		pp_run_free(r);
		return NULL;
	}
	r->view = sim_drawing(r->sim);
	return r;
}

int pp_simulate(const pp_config *c, unsigned flags, pp_run **run, char *err, size_t errlen)
{
	struct call k;

	if (run != NULL)
		*run = NULL;
	if (api_begin(&k, "pp_simulate", ARGS({c, "c"}, {run, "run"}), err, errlen) != 0)
		return PP_E_INPUT;
	*run = simulate(&c->config, flags, &k.e);
	return api_end(&k, *run != NULL ? 0 : -1);
}

int pp_simulate_schedules(const pp_config *c, const char *const *schedules, int n, unsigned flags,
                          pp_run **runs, char *err, size_t errlen)
{
	struct call k;
	struct config *each;
	int made = 0;

	for (int i = 0; runs != NULL && i < n; i++)
		runs[i] = NULL;
	if (api_begin(&k, "pp_simulate_schedules",
	              ARGS({c, "c"}, {schedules, "schedules"}, {runs, "runs"}), err, errlen) != 0)
		return PP_E_INPUT;
	if (n < 1) {
		pp_fail(&k.e, PP_ERR_USAGE, "pp_simulate_schedules: no schedules (n = %d)", n);
		return api_end(&k, -1);
	}
	if ((each = pp_malloc(sizeof(*each))) == NULL)
		return api_end(&k, pp_nomem(&k.e, 1, sizeof(*each)));
	for (; made < n; made++) {
		const struct config_option *opt = config_option_by_key("schedule");
		const struct sched_desc *d;

		*each = c->config;
		if (schedules[made] == NULL) {
			pp_fail(&k.e, PP_ERR_USAGE,
			        "pp_simulate_schedules: argument 'schedules[%d]' is NULL", made);
			break;
		}
		if (config_set(each, opt, "key \"schedule\"", schedules[made], &k.e) != 0)
			break;
		d = sched_find(each->schedule);
		each->v = sched_desc_fit_v(d, each->p, each->v);
		if ((runs[made] = simulate(each, flags, &k.e)) == NULL)
			break;
	}
	free(each);
	if (made < n)
		for (int i = 0; i < made; i++) {
			pp_run_free(runs[i]);
			runs[i] = NULL;
		}
	return api_end(&k, made < n ? -1 : 0);
}

/* The serving run of config c, or NULL with e set. */
static pp_run *serve(const struct config *c, unsigned flags, struct pp_error *e)
{
	pp_run *r;

	if (flags != 0) {
		pp_fail(e, PP_ERR_USAGE, "pp_serve: flags 0x%x: it takes none (0)", flags);
		return NULL;
	}
	if ((r = pp_zalloc(1, sizeof(*r), e)) == NULL)
		return NULL;
	if ((r->serve = serve_run_config(c, 0, 0, NULL, e)) == NULL) {
		free(r);
		return NULL;
	}
	r->view = serve_drawing(r->serve);
	r->config = &r->serve->config;
	r->kept = PP_KEEP_OP_TIMES;
	if (serve_metrics_init(&r->served, r->serve, e) != 0) {
		pp_run_free(r);
		return NULL;
	}
	return r;
}

int pp_serve(const pp_config *c, unsigned flags, pp_run **run, char *err, size_t errlen)
{
	struct call k;

	if (run != NULL)
		*run = NULL;
	if (api_begin(&k, "pp_serve", ARGS({c, "c"}, {run, "run"}), err, errlen) != 0)
		return PP_E_INPUT;
	*run = serve(&c->config, flags, &k.e);
	return api_end(&k, *run != NULL ? 0 : -1);
}

void pp_run_free(pp_run *r)
{
	if (r == NULL)
		return;
	if (r->serve != NULL) {
		serve_metrics_release(&r->served);
		serve_free(r->serve);
	} else if (r->replay != NULL) {
		replay_free(r->replay);
	} else {
		sim_free(r->sim);
	}
	free(r);
}

int pp_run_is_serving(const pp_run *r)
{
	return r != NULL && r->serve != NULL;
}

const char *pp_run_time_unit(const pp_run *r)
{
	return r != NULL ? r->view.time_unit : NULL;
}

/* A report written into memory: the stream the writers write to and its buffer. */
struct memout {
	struct memfile file;
	FILE *out; /* file's stream */
};

/* Opens m's stream; returns it, or NULL with an out-of-memory error in e. */
static FILE *memout_open(struct memout *m, struct pp_error *e)
{
	m->out = memfile_open(&m->file);
	if (m->out == NULL)
		pp_nomem(e, 1, BUFSIZ);
	return m->out;
}

/* Closes m's stream after a writer returned rc; returns the text, or NULL with e set (out of
 * memory when the writer did not say why). */
static char *memout_close(struct memout *m, int rc, struct pp_error *e)
{
	size_t len = m->file.len;
	char *text = memfile_close(&m->file, NULL);

	if (text != NULL && rc == 0)
		return text;
	free(text);
	if (e->kind == PP_ERR_NONE)
		pp_nomem(e, 1, len + BUFSIZ);
	return NULL;
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

int pp_run_report(const pp_run *r, const char *format, char **out, char *err, size_t errlen)
{
	struct call k;
	const struct report_format *f;
	struct memout m;
	char *text = NULL;

	if (out != NULL)
		*out = NULL;
	if (api_begin(&k, "pp_run_report", ARGS({r, "r"}, {out, "text"}), err, errlen) != 0)
		return PP_E_INPUT;
	f = find_format(format,
	                r->serve != NULL    ? REPORT_SERVE
	                : r->replay != NULL ? REPORT_REPLAY
	                                    : REPORT_RUN,
	                &k.e);
	if (f != NULL && memout_open(&m, &k.e) != NULL)
		text = memout_close(&m,
		                    r->serve != NULL    ? f->serve(m.out, r->serve, &r->served)
		                    : r->replay != NULL ? f->replay(m.out, r->replay)
		                                        : f->write(m.out, r->sim),
		                    &k.e);
	*out = text;
	return api_end(&k, text != NULL ? 0 : -1);
}

/* Writes s to out as a JSON string. */
static void put_json_string(FILE *out, const char *s)
{
	putc('"', out);
	for (; *s != '\0'; s++)
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\u%04x", (unsigned)(unsigned char)*s);
		else
			putc(*s, out);
	putc('"', out);
}

/* Writes the value of option opt in c to out as a config file's JSON has it. */
static void put_setting(FILE *out, const struct config *c, const struct config_option *opt)
{
	char buf[PP_MAX_LIST * 32];

	switch (opt->arg) {
	case CONFIG_ARG_NAME:
	case CONFIG_ARG_PATH:
		put_json_string(out, config_format_value(c, opt, buf, sizeof(buf)));
		break;
	case CONFIG_ARG_BOOL:
		fputs(*(const int *)(const void *)((const char *)c + opt->offset) > 0 ? "true"
		                                                                      : "false",
		      out);
		break;
	case CONFIG_ARG_LIST:
		fprintf(out, "[%s]", config_format_value(c, opt, buf, sizeof(buf)));
		break;
	case CONFIG_ARG_BYTES: {
		/* an integer from 2^53 on as a string of its digits, which a JSON number may not
		 * hold exactly and pp_config_load_json reads back whole */
		uint64_t x = *(const uint64_t *)(const void *)((const char *)c + opt->offset);

		if (x >= ((uint64_t)1 << 53))
			fprintf(out, "\"%" PRIu64 "\"", x);
		else
			fprintf(out, "%" PRIu64, x);
		break;
	}
	case CONFIG_ARG_SCALES:
		putc('[', out);
		for (int i = 0; i < c->nstage_scale; i++)
			fprintf(out, "%s%s", i > 0 ? "," : "",
			        pp_double_format(buf, sizeof(buf), c->stage_scale[i]));
		putc(']', out);
		break;
	default: /* numbers: counts, byte counts, times, rates, shares (the shortest exact) */
		fputs(config_format_value(c, opt, buf, sizeof(buf)), out);
		break;
	}
}

int pp_config_json(const pp_config *c, char **text, char *err, size_t errlen)
{
	struct call k;
	struct memout m;
	size_t n;
	const struct config_option *all = config_options(&n);
	bool first = true;

	if (text != NULL)
		*text = NULL;
	if (api_begin(&k, "pp_config_json", ARGS({c, "c"}, {text, "text"}), err, errlen) != 0)
		return PP_E_INPUT;
	if (memout_open(&m, &k.e) == NULL)
		return api_end(&k, -1);
	fputs("{", m.out);
	for (size_t i = 0; i < n; i++) {
		if (!config_is_set(&c->config, all[i].key))
			continue;
		fprintf(m.out, "%s\n\t\"%s\": ", first ? "" : ",", all[i].key);
		put_setting(m.out, &c->config, &all[i]);
		first = false;
	}
	fputs(first ? "}\n" : "\n}\n", m.out);
	*text = memout_close(&m, 0, &k.e);
	return api_end(&k, *text != NULL ? 0 : -1);
}

int pp_run_ops_csv(const pp_run *r, char **out, char *err, size_t errlen)
{
	struct call k;
	struct memout m;
	char *text = NULL;

	if (out != NULL)
		*out = NULL;
	if (api_begin(&k, "pp_run_ops_csv", ARGS({r, "r"}, {out, "text"}), err, errlen) != 0)
		return PP_E_INPUT;
	if (r->view.result->times == NULL)
		pp_fail(&k.e, PP_ERR_USAGE,
		        "pp_run_ops_csv: the run kept no op times (simulate it with "
		        "PP_KEEP_OP_TIMES)");
	else if (memout_open(&m, &k.e) != NULL)
		text = memout_close(&m, report_ops_csv(m.out, &r->view), &k.e);
	*out = text;
	return api_end(&k, text != NULL ? 0 : -1);
}

/* Checks runs[0..n-1] for a comparison: n >= 1, none NULL, all of one kind and time unit.
 * Returns 0, or -1 with e set. */
static int check_rows(const pp_run *const *runs, int n, struct pp_error *e)
{
	if (n < 1)
		return pp_fail(e, PP_ERR_USAGE, "pp_compare_report: no runs (n = %d)", n);
	for (int i = 0; i < n; i++)
		if (runs[i] == NULL)
			return pp_fail(e, PP_ERR_USAGE,
			               "pp_compare_report: argument 'runs[%d]' is NULL", i);
	for (int i = 1; i < n; i++) {
		if ((runs[i]->serve != NULL) != (runs[0]->serve != NULL))
			return pp_fail(e, PP_ERR_USAGE,
			               "pp_compare_report: runs[%d] is a %s and runs[0] a %s; "
			               "compare like with like",
			               i, runs[i]->serve ? "serving run" : "training step",
			               runs[0]->serve ? "serving run" : "training step");
		if (report_compare_units(runs[0]->view.time_unit, runs[i]->view.time_unit, e) != 0)
			return -1;
	}
	return 0;
}

/* Writes runs[0..n-1], labelled by labels, as f compares them to m's stream; returns the
 * writer's status, or -1 with e set. */
static int write_compare(const struct report_format *f, const pp_run *const *runs,
                         const char *const *labels, int n, FILE *out, struct pp_error *e)
{
	struct report_row *rows = NULL;
	struct serve_row *served = NULL;
	int rc = -1;

	if (runs[0]->serve != NULL)
		served = pp_zalloc((size_t)n, sizeof(*served), e);
	else
		rows = pp_zalloc((size_t)n, sizeof(*rows), e);
	for (int i = 0; (rows != NULL || served != NULL) && i < n; i++) {
		const char *label = labels != NULL && labels[i] != NULL ? labels[i] : "-";

		if (served != NULL)
			served[i] = (struct serve_row){label, runs[i]->serve, &runs[i]->served};
		else
			rows[i] = (struct report_row){label, runs[i]->sim, 0};
	}
	if (served != NULL)
		rc = f->serve_compare(out, served, n);
	else if (rows != NULL)
		rc = f->compare(out, rows, n);
	free(rows);
	free(served);
	return rc;
}

int pp_compare_report(const pp_run *const *runs, const char *const *labels, int n,
                      const char *format, char **out, char *err, size_t errlen)
{
	struct call k;
	const struct report_format *f = NULL;
	struct memout m;
	char *text = NULL;

	if (out != NULL)
		*out = NULL;
	if (api_begin(&k, "pp_compare_report", ARGS({runs, "runs"}, {out, "text"}), err, errlen) !=
	    0)
		return PP_E_INPUT;
	if (check_rows(runs, n, &k.e) == 0)
		f = find_format(format,
		                runs[0]->serve != NULL ? REPORT_SERVE_COMPARE : REPORT_COMPARE,
		                &k.e);
	if (f != NULL && memout_open(&m, &k.e) != NULL)
		text = memout_close(&m, write_compare(f, runs, labels, n, m.out, &k.e), &k.e);
	*out = text;
	return api_end(&k, text != NULL ? 0 : -1);
}

int pp_list(const char *format, char **out, char *err, size_t errlen)
{
	struct call k;
	const struct report_format *f;
	struct memout m;
	char *text = NULL;

	if (out != NULL)
		*out = NULL;
	if (api_begin(&k, "pp_list", ARGS({out, "text"}), err, errlen) != 0)
		return PP_E_INPUT;
	f = find_format(format, REPORT_LIST, &k.e);
	if (f != NULL && memout_open(&m, &k.e) != NULL)
		text = memout_close(&m, f->list(m.out), &k.e);
	*out = text;
	return api_end(&k, text != NULL ? 0 : -1);
}

void pp_string_free(char *s)
{
	free(s);
}
