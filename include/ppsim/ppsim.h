/*
 * The public face of libppsim, for programs in C, C++ or any language with a C foreign-function
 * interface (the Python package in python/ppsim/ uses it through ctypes): build a configuration
 * from the keys of JSON config files, simulate it, and read its report in any run format of
 * `ppsim --format` (the same bytes), its ops as the CSV of `--dump-ops`, or several runs as
 * `ppsim compare` writes them. The shared library libppsim.so exports only the pp_ names.
 *
 * Ownership: pp_config_new and pp_simulate return objects the caller frees with pp_config_free
 * and pp_run_free; a run holds its own copy of the settings, so its config may be changed or
 * freed at once. Every char * returned is the caller's, freed with pp_string_free. Nothing here
 * keeps global state: distinct objects may be used from distinct threads at once.
 *
 * Errors: a function that can fail takes err, a buffer of errlen bytes (err may be NULL, errlen
 * 0), where it writes one NUL-terminated line naming the offending key or value, and returns -1
 * or NULL; running out of memory is such an error, never an abort.
 *
 * NULL: a handle or pointer that a call needs and is given as NULL is such an error too, never
 * a crash: "pp_simulate: argument 'c' is NULL". The pointers that may be NULL are named at each
 * call (err always may); a free function takes NULL as a no-op.
 *
 * Locale: numbers are read and written as in the "C" locale whatever the program's (setlocale,
 * or Python's locale.setlocale): "1.5" is read, and reports write 38.5, never 38,5. Each call
 * switches only the calling thread, for the length of the call, and puts its locale back.
 */
#ifndef PPSIM_PPSIM_H
#define PPSIM_PPSIM_H

#include <stddef.h>

#include "ppsim/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A configuration: the defaults of `ppsim run` (1f1b, p=4, v=1, m=8, unit costs) until set. */
typedef struct pp_config pp_config;
/* One finished simulation. */
typedef struct pp_run pp_run;

/* Stores the library's version numbers (each pointer may be NULL); returns "MAJOR.MINOR.PATCH",
 * the library's own, which may differ from the PP_VERSION_* of the header compiled against. */
const char *pp_version(int *major, int *minor, int *patch);

/* A configuration holding the defaults, or NULL out of memory. */
pp_config *pp_config_new(void);
/* Frees c; NULL is a no-op. */
void pp_config_free(pp_config *c);
/* A copy of c, or NULL out of memory or when c is NULL (there is no err to say which). */
pp_config *pp_config_copy(const pp_config *c);

/*
 * Sets one setting from text, as the command line gives it: key is a config-file key ("p",
 * "schedule", "t_f") or a long option name ("stages", "mem-limit"; "mem_limit" also matches);
 * value is read as the option reads it ("8", "1f1b", "true", "1,2,1" for a list). Returns 0, or
 * -1 with err set (an unknown key, a bad value, c, key or value NULL).
 */
int pp_config_set(pp_config *c, const char *key, const char *value, char *err, size_t errlen);
/*
 * Applies the JSON object json_text (a NUL-terminated config file's text) over c's settings,
 * with the checks of `ppsim -c FILE`; name stands for the text in messages ("-" when NULL).
 * Returns 0, or -1 with err set ("config 'NAME':LINE:COLUMN: ...", c or json_text NULL); a
 * failed load leaves c as it was, none of the document applied.
 */
int pp_config_load_json(pp_config *c, const char *json_text, const char *name, char *err,
                        size_t errlen);
/* pp_config_load_json of the file at path. Returns 0, or -1 with err set (c unchanged; c or
 * path NULL). */
int pp_config_load_file(pp_config *c, const char *path, char *err, size_t errlen);

/*
 * Checks c as `ppsim run` does, generates its schedule, prices and simulates it. Returns the
 * run, or NULL with err set: invalid settings, a deadlock, out of memory, c NULL.
 */
pp_run *pp_simulate(const pp_config *c, char *err, size_t errlen);
/* Frees r; NULL is a no-op. */
void pp_run_free(pp_run *r);

/*
 * The report of r in a run format of `ppsim --format` ("text", "json", "csv"; NULL is
 * "json"), byte for byte what the command writes. Returns a string for pp_string_free, or NULL
 * with err set (an unknown format, out of memory, r NULL).
 */
char *pp_run_report(const pp_run *r, const char *format, char *err, size_t errlen);
/* The ops of r as the CSV of `ppsim --dump-ops` (header "device,chunk,stage,op,microbatch,
 * start,end", "overlap" with overlapped pairs, then "slack"). Returns a string for
 * pp_string_free, or NULL with err set (r NULL). */
char *pp_run_ops_csv(const pp_run *r, char *err, size_t errlen);
/*
 * runs[0..n-1] side by side as `ppsim compare --format=FORMAT` writes them (NULL is "json"),
 * each row labelled labels[i] ("-" when labels or labels[i] is NULL); the rows must share a time
 * unit. Returns a string for pp_string_free, or NULL with err set (n < 1, runs or one of
 * runs[0..n-1] NULL).
 */
char *pp_compare_report(const pp_run *const *runs, const char *const *labels, int n,
                        const char *format, char *err, size_t errlen);

/*
 * The tables of `ppsim list` (schedules, model, GPU and link presets, batching policies,
 * formats) in format "text" or "json" (NULL), as `ppsim list --format` writes them. Returns a
 * string for pp_string_free, or NULL with err set.
 */
char *pp_list(const char *format, char *err, size_t errlen);

/* Frees a string returned by this library; NULL is a no-op. */
void pp_string_free(char *s);

#ifdef __cplusplus
}
#endif

#endif
