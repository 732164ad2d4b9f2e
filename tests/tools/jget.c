/*
 * jget: prints one value of a JSON document for the CLI tests. Usage: jget FILE PATH, where
 * FILE is a path or - for stdin and PATH is dot-separated keys and array indices, such as
 * "devices.0.peak_activations". Numbers print in the shortest exact form, strings raw, null as
 * "null", objects and arrays as compact JSON. Exit 1 when the document or the path is invalid.
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(FILE *f)
{
	size_t n = 0, cap = 4096;
	char *buf = malloc(cap);

	while (buf != NULL) {
		n += fread(buf + n, 1, cap - n - 1, f);
		if (n < cap - 1)
			break;
		cap *= 2;
		buf = realloc(buf, cap);
	}
	if (buf != NULL)
		buf[n] = '\0';
	return buf;
}

static const cJSON *walk(const cJSON *node, char *path)
{
	for (char *key = strtok(path, "."); key != NULL && node != NULL; key = strtok(NULL, "."))
		node = isdigit((unsigned char)key[0]) && cJSON_IsArray(node)
		               ? cJSON_GetArrayItem(node, atoi(key))
		               : cJSON_GetObjectItemCaseSensitive(node, key);
	return node;
}

static void print_value(const cJSON *v)
{
	char buf[64];

	if (cJSON_IsNumber(v)) {
		for (int digits = 15; digits <= 17; digits++) {
			snprintf(buf, sizeof(buf), "%.*g", digits, v->valuedouble);
			if (strtod(buf, NULL) == v->valuedouble)
				break;
		}
		puts(buf);
	} else if (cJSON_IsString(v)) {
		puts(v->valuestring);
	} else {
		char *text = cJSON_PrintUnformatted(v);

		puts(text != NULL ? text : "");
		free(text);
	}
}

int main(int argc, char **argv)
{
	FILE *f;
	char *text;
	cJSON *root;
	const cJSON *v;

	if (argc != 3) {
		fputs("usage: jget FILE|- PATH\n", stderr);
		return 2;
	}
	f = strcmp(argv[1], "-") == 0 ? stdin : fopen(argv[1], "r");
	if (f == NULL) {
		perror(argv[1]);
		return 1;
	}
	text = slurp(f);
	if (f != stdin)
		fclose(f);
	root = text != NULL ? cJSON_Parse(text) : NULL;
	free(text);
	if (root == NULL) {
		fputs("jget: invalid JSON\n", stderr);
		return 1;
	}
	v = walk(root, argv[2]);
	if (v == NULL) {
		fprintf(stderr, "jget: no value at '%s'\n", argv[2]);
		cJSON_Delete(root);
		return 1;
	}
	print_value(v);
	cJSON_Delete(root);
	return 0;
}
