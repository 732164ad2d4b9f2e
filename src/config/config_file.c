/*
 * JSON config files. cJSON parses the text; since its tree records no positions, a small
 * scanner walks the same text and records where each top-level key starts, in document order,
 * which is also the order of the tree's members. The cJSON tree never leaves this file. cJSON
 * fails alike on bad text and on a failed allocation; json_well_formed tells the two apart.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_text.h"
#include "base/text.h"
#include "ppsim/config.h"

/*
 * The hint for an unknown config key: the key of the option the word names on the command
 * line ("stages" is --stages, key "p"), else the nearest key or option name's key; "" for none.
 */
static const char *key_hint(const char *word, const struct config_option *opts, size_t n,
                            char *buf, size_t size)
{
	struct text_suggest near;
	const char *best, *bare = word + strspn(word, "-");

	for (size_t i = 0; i < n; i++)
		if (strcmp(bare, opts[i].name) == 0) {
			snprintf(buf, size, "; the key of --%s is \"%s\"", opts[i].name, opts[i].key);
			return buf;
		}
	text_suggest_init(&near, bare, strlen(bare));
	for (size_t i = 0; i < n; i++) {
		text_suggest_try(&near, opts[i].key, strlen(opts[i].key));
		text_suggest_try(&near, opts[i].name, strlen(opts[i].name));
	}
	if ((best = text_suggest_best(&near)) == NULL)
		return "";
	for (size_t i = 0; i < n; i++)
		if (strcmp(best, opts[i].key) == 0) {
			snprintf(buf, size, "; did you mean \"%s\"?", opts[i].key);
			return buf;
		}
	for (size_t i = 0; i < n; i++)
		if (strcmp(best, opts[i].name) == 0) {
			snprintf(buf, size, "; did you mean \"%s\" (the key of --%s)?", opts[i].key,
			         opts[i].name);
			return buf;
		}
	return "";
}

/* Position of a top-level key in the file. */
struct key_pos {
	int line, column;
};

/* Line and column (1-based) of byte offset off in text. */
static struct key_pos position(const char *text, size_t off)
{
	struct json_pos at = {1, 1};

	json_advance(text, 0, strnlen(text, off), &at);
	return (struct key_pos){(int)at.line, (int)at.column};
}

/* Records the offset of each key of the outermost object, in order; returns how many. */
static size_t scan_keys(const char *text, size_t *offsets, size_t max)
{
	size_t n = 0;
	int depth = 0;

	for (size_t i = 0; text[i] != '\0';) {
		char ch = text[i];

		if (ch == '"') {
			size_t end = json_skip_string(text, i), j = end;

			while (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' ||
			       text[j] == '\r')
				j++;
			if (depth == 1 && text[j] == ':' && n < max)
				offsets[n++] = i;
			i = end;
			continue;
		}
		if (ch == '{' || ch == '[')
			depth++;
		else if (ch == '}' || ch == ']')
			depth--;
		i++;
	}
	return n;
}

/* Largest config file read, so that a huge file (or /dev/zero) is refused, not read whole. */
#define CONFIG_FILE_MAX ((size_t)16 << 20)

/* A whole file as read_text reads it: NUL-terminated, len bytes before the NUL. */
struct file_text {
	char *buf;
	size_t len;
};

/* The text_read_fn reading all of f into ctx, a struct file_text (its buf freed by the caller,
 * also on failure); more than CONFIG_FILE_MAX bytes is an error. */
static int read_text(FILE *f, const char *path, void *ctx, struct pp_error *err)
{
	struct file_text *t = ctx;
	size_t cap = 0;

	for (;;) {
		if (pp_grow((void **)&t->buf, &cap, t->len + 4096, 1, err) != 0)
			return -1;
		t->len += fread(t->buf + t->len, 1, cap - t->len - 1, f);
		if (t->len < cap - 1 || t->len > CONFIG_FILE_MAX)
			break;
	}
	t->buf[t->len] = '\0';
	if (ferror(f))
		return text_read_error(err, path, errno);
	if (t->len > CONFIG_FILE_MAX)
		return pp_fail(err, PP_ERR_IO, "cannot read '%s': larger than %zu MiB", path,
		               CONFIG_FILE_MAX >> 20);
	return 0;
}

static int fail_at(struct pp_error *err, const char *path, struct key_pos at, const char *what)
{
	err->line = at.line;
	err->column = at.column;
	return pp_fail(err, PP_ERR_CONFIG, "config '%s':%d:%d: %s", path, at.line, at.column, what);
}

/* What value_text says of a number from 2^53 on in a byte count (a seed); apply() adds how to
 * write the one given. */
static const char big_number[] = "a number from 2^53 on, which a JSON number may not hold exactly";

/* The value of member v as the text config_set parses, or NULL when its type is wrong (then
 * *want names the type the option takes and *got what stood there). */
static const char *value_text(const struct config_option *opt, const cJSON *v, char *buf, size_t n,
                              const char **want, const char **got)
{
	*got = json_type_name(v);
	switch (opt->arg) {
	case CONFIG_ARG_NAME:
	case CONFIG_ARG_PATH:
		*want = "a string";
		return cJSON_IsString(v) ? v->valuestring : NULL;
	case CONFIG_ARG_BOOL:
		*want = "true or false";
		if (!cJSON_IsBool(v))
			return NULL;
		return cJSON_IsTrue(v) ? "yes" : "no";
	case CONFIG_ARG_LIST:
	case CONFIG_ARG_SCALES: {
		size_t len = 0;
		const cJSON *x;

		*want = opt->arg == CONFIG_ARG_LIST ? "an array of integers"
		                                    : "an array of numbers";
		if (!cJSON_IsArray(v))
			return NULL;
		buf[0] = '\0';
		cJSON_ArrayForEach(x, v)
		{
			if (!cJSON_IsNumber(x) || len + 32 >= n) {
				*got = cJSON_IsNumber(x)   ? "too long an array"
				       : cJSON_IsString(x) ? "an array holding a string"
				                           : "an array holding a non-number";
				return NULL;
			}
			len += (size_t)snprintf(buf + len, n - len, "%s%.17g", len ? "," : "",
			                        x->valuedouble);
		}
		return buf;
	}
	case CONFIG_ARG_COUNT:
	case CONFIG_ARG_BYTES:
	case CONFIG_ARG_TIME:
	case CONFIG_ARG_RATE:
	case CONFIG_ARG_SHARE:
		/* config_set then checks that a count is whole */
		*want = opt->arg == CONFIG_ARG_COUNT || opt->arg == CONFIG_ARG_BYTES ? "an integer"
		                                                                     : "a number";
		/* a whole number from 2^53 on (a seed) may be a string of its digits: a JSON number
		 * that large may not be the one written, a string is (a smaller one is a number);
		 * of any numeric option, which then says whether it takes one that large */
		if (cJSON_IsString(v) && v->valuestring[0] > '0' && v->valuestring[0] <= '9' &&
		    strspn(v->valuestring, "0123456789") == strlen(v->valuestring) &&
		    (strlen(v->valuestring) > 16 ||
		     strtod(v->valuestring, NULL) >= 9007199254740992.0)) {
			snprintf(buf, n, "%s", v->valuestring);
			return buf;
		}
		if (!cJSON_IsNumber(v))
			return NULL;
		/* an integer from 2^53 on may not be the one written: a double holds only some
		 * (counts have ranges far below it, which config_set tells) */
		if (opt->arg == CONFIG_ARG_BYTES && isfinite(v->valuedouble) &&
		    v->valuedouble >= 9007199254740992.0) {
			*got = big_number;
			return NULL;
		}
		snprintf(buf, n, "%.17g", v->valuedouble);
		return buf;
	}
	return NULL;
}

/*
 * The digits of the value after the key at text + key (its opening quote) into buf of n
 * bytes: true when it is written as a whole number of at most n - 1 digits.
 */
static bool number_digits(const char *text, size_t key, char *buf, size_t n)
{
	const char *p = text + key + 1;
	size_t len;

	while (*p != '\0' && *p != '"') /* the key's text, escapes and all */
		p += *p == '\\' && p[1] != '\0' ? 2 : 1;
	if (*p == '"')
		p++;
	p += strspn(p, " \t\r\n");
	if (*p != ':')
		return false;
	p++;
	p += strspn(p, " \t\r\n");
	len = strspn(p, "0123456789");
	/* digits, not followed by a fraction or an exponent */
	if (len == 0 || len >= n || (p[len] != '\0' && strchr(".eE", p[len]) != NULL))
		return false;
	memcpy(buf, p, len);
	buf[len] = '\0';
	return true;
}

/* Applies the members of the object root, whose keys start at offsets[], to c. */
static int apply(struct config *c, const char *path, const char *text, const cJSON *root,
                 const size_t *offsets, size_t nkeys, struct pp_error *err)
{
	size_t nopt, k = 0;
	const struct config_option *opts = config_options(&nopt);
	struct key_pos first[CONFIG_MAX_OPTIONS] = {{0, 0}};
	const cJSON *v;
	char what[700], buf[PP_MAX_LIST * 26];

	cJSON_ArrayForEach(v, root)
	{
		const struct config_option *opt = config_option_by_key(v->string);
		struct key_pos at = k < nkeys ? position(text, offsets[k]) : (struct key_pos){1, 1};
		const char *want = NULL, *got = NULL, *value;
		char label[512];
		size_t idx;

		k++;
		if (opt == NULL) {
			snprintf(what, sizeof(what),
			         "unknown key \"%.100s\" (keys are listed in "
			         "docs/config.md)%s",
			         v->string, key_hint(v->string, opts, nopt, label, sizeof(label)));
			return fail_at(err, path, at, what);
		}
		idx = (size_t)(opt - opts);
		if (first[idx].line > 0) {
			snprintf(what, sizeof(what), "key \"%s\" appears twice (first at %d:%d)",
			         v->string, first[idx].line, first[idx].column);
			return fail_at(err, path, at, what);
		}
		first[idx] = at;
		value = value_text(opt, v, buf, sizeof(buf), &want, &got);
		if (value == NULL && got == big_number) {
			char digits[32];

			if (!number_digits(text, offsets[k - 1], digits, sizeof(digits)))
				snprintf(digits, sizeof(digits), "9007199254740993");
			snprintf(what, sizeof(what),
			         "key \"%s\": expected %s, got %s (write it as a string of its "
			         "digits, \"%s\")",
			         v->string, want, got, digits);
			return fail_at(err, path, at, what);
		}
		if (value == NULL) {
			snprintf(what, sizeof(what), "key \"%s\": expected %s, got %s", v->string,
			         want, got);
			return fail_at(err, path, at, what);
		}
		snprintf(label, sizeof(label), "config '%s':%d:%d: key \"%s\"", path, at.line,
		         at.column, v->string);
		if (config_set(c, opt, label, value, err) != 0) {
			err->kind = PP_ERR_CONFIG;
			err->line = at.line;
			err->column = at.column;
			return -1;
		}
		c->origin[idx] = (struct config_origin){at.line, at.column};
	}
	return 0;
}

int config_read_file(const char *path, char **text, size_t *len, struct pp_error *err)
{
	struct file_text t = {NULL, 0};

	*text = NULL;
	*len = 0;
	if (text_read_file(path, read_text, &t, err) != 0) {
		free(t.buf);
		return -1;
	}
	*text = t.buf;
	*len = t.len;
	return 0;
}

int config_load_file(struct config *c, const char *path, struct pp_error *err)
{
	char *text;
	size_t len;
	int rc = config_read_file(path, &text, &len, err);

	if (rc == 0)
		rc = config_load_text(c, path, text, len, err);
	free(text);
	return rc;
}

int config_load_text(struct config *c, const char *path, const char *text, size_t len,
                     struct pp_error *err)
{
	size_t nkeys, *offsets;
	const char *end = NULL;
	cJSON *root;
	int rc;

	if (strlen(text) != len)
		return fail_at(err, path, position(text, strlen(text)),
		               "a NUL byte: not a JSON file");
	root = cJSON_ParseWithLengthOpts(text, len + 1, &end, true); /* the NUL counts */
	if (root == NULL && json_well_formed(text, len))
		return pp_fail(err, PP_ERR_NOMEM, "out of memory parsing config '%s'", path);
	if (root == NULL || !cJSON_IsObject(root)) {
		size_t off = root == NULL ? json_error_offset(text, end) : strspn(text, " \t\r\n");

		char why[96];

		rc = fail_at(err, path, position(text, off),
		             root == NULL
		                     ? json_syntax_reason(text, len, off, "file", why, sizeof(why))
		                     : "the top level must be an object");
		cJSON_Delete(root);
		return rc;
	}
	{
		char why[128];
		size_t off = json_strict_check(text, len, why, sizeof(why));

		if (off < len) {
			cJSON_Delete(root);
			return fail_at(err, path, position(text, off), why);
		}
	}
	snprintf(c->file, sizeof(c->file), "%s", path);
	offsets = pp_mallocarray(len / 3 + 1, sizeof(*offsets));
	if (offsets == NULL) {
		cJSON_Delete(root);
		return pp_nomem(err, len / 3 + 1, sizeof(*offsets));
	}
	nkeys = scan_keys(text, offsets, len / 3 + 1);
	rc = apply(c, path, text, root, offsets, nkeys, err);
	free(offsets);
	cJSON_Delete(root);
	return rc;
}
