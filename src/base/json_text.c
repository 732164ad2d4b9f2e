/*
 * Positions and names for messages about JSON input. cJSON's tree keeps no positions and its
 * error pointer is sometimes one character off, so the readers find places in the text
 * themselves, with these helpers.
 */
#include "json_text.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

size_t json_error_offset(const char *text, const char *end)
{
	size_t off = end != NULL ? (size_t)(end - text) : 0, prev;

	if (off == 0 || text[off - 1] == '"' || strchr(" \t\r\n", text[off - 1]) != NULL)
		return off;
	prev = off - 1;
	while (prev > 0 && strchr(" \t\r\n", text[prev - 1]) != NULL)
		prev--;
	if (prev > 0 && (text[prev - 1] == '{' || text[prev - 1] == ','))
		return off - 1;
	return off;
}

/* The depth of brackets open at text[off], outside strings. */
static size_t depth_at(const char *text, size_t off)
{
	size_t depth = 0;
	bool quoted = false;

	for (size_t i = 0; i < off; i++) {
		if (quoted && text[i] == '\\' && i + 1 < off)
			i++;
		else if (text[i] == '"')
			quoted = !quoted;
		else if (!quoted && (text[i] == '[' || text[i] == '{'))
			depth++;
		else if (!quoted && (text[i] == ']' || text[i] == '}') && depth > 0)
			depth--;
	}
	return depth;
}

const char *json_syntax_reason(const char *text, size_t len, size_t off, const char *unit,
                               char *buf, size_t n)
{
	const char *rest = text + (off < len ? off : len);

	if (strspn(text, " \t\r\n") >= len)
		snprintf(buf, n, "the %s is empty: a JSON object was expected", unit);
	else if (off >= len)
		snprintf(buf, n, "invalid JSON: the %s ends too soon", unit);
	else if (depth_at(text, off) >= CJSON_NESTING_LIMIT)
		snprintf(buf, n, "invalid JSON: nested more than %d deep", CJSON_NESTING_LIMIT);
	else if (strncmp(rest, "NaN", 3) == 0 || strncmp(rest, "Infinity", 8) == 0 ||
	         strncmp(rest, "-Infinity", 9) == 0)
		snprintf(buf, n, "invalid JSON: JSON has no NaN or Infinity");
	else
		snprintf(buf, n, "invalid JSON");
	return buf;
}

size_t json_skip_string(const char *text, size_t i)
{
	for (i++; text[i] != '\0' && text[i] != '"'; i++)
		if (text[i] == '\\' && text[i + 1] != '\0')
			i++;
	return text[i] == '"' ? i + 1 : i;
}

const char *json_type_name(const cJSON *v)
{
	return cJSON_IsString(v)   ? "a string"
	       : cJSON_IsNumber(v) ? "a number"
	       : cJSON_IsBool(v)   ? "a boolean"
	       : cJSON_IsArray(v)  ? "an array"
	       : cJSON_IsObject(v) ? "an object"
	                           : "null";
}
