/* Positions and names for messages about JSON input. */
#include "json_text.h"

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

const char *json_type_name(const cJSON *v)
{
	return cJSON_IsString(v)   ? "a string"
	       : cJSON_IsNumber(v) ? "a number"
	       : cJSON_IsBool(v)   ? "a boolean"
	       : cJSON_IsArray(v)  ? "an array"
	       : cJSON_IsObject(v) ? "an object"
	                           : "null";
}
