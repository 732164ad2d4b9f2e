/* What the readers of JSON input (config files, request traces) share; private to the library. */
#ifndef PPSIM_JSON_TEXT_H
#define PPSIM_JSON_TEXT_H

#include <stddef.h>

#include <cjson/cJSON.h>

/*
 * Offset in text of the syntax error cJSON reported at end (cJSON_GetErrorPtr). cJSON reports
 * one character too far when an object key was due and something else stood there ('{' or ','
 * then not '"'): it steps past the opening quote it expected before failing. That character is
 * the error.
 */
size_t json_error_offset(const char *text, const char *end);

/* What a value is, for messages: "a string", "a number", "a boolean", "an array", ... */
const char *json_type_name(const cJSON *v);

#endif
