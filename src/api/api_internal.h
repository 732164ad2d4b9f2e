/*
 * What the files of the facade (api.c: configurations, runs and reports; api_data.c: figures and
 * ops as data) share: the handles' insides and the frame of a call, which refuses NULL
 * arguments, runs in the "C" locale and gives its error to the caller's buffer in the words of a
 * library user (config keys, not command-line options).
 */
#ifndef PPSIM_API_INTERNAL_H
#define PPSIM_API_INTERNAL_H

#include "ppsim/config.h"
#include "ppsim/ppsim.h"
#include "ppsim/replay.h"
#include "ppsim/serve.h"
#include "ppsim/sim.h"

struct pp_config {
	struct config config; /* the settings, from config_init and the calls since */
};

struct pp_run {
	struct sim *sim;         /* the training step, owned; a replay's last run (replay_last);
	                            NULL for a serving run */
	struct serve_run *serve; /* a serving run, owned; NULL for a training step */
	struct drawing view;     /* what its op order and times look like (sim_drawing or
	                            serve_drawing), for the ops and figures both kinds have */
	struct replay *replay;   /* a measured step replayed (pp_replay_whatif), owned (its runs
	                            too); else NULL */
	struct serve_metrics served; /* a serving run's figures */
	const struct config *config; /* the settings it ran with: the sim's or the serving run's */
	unsigned kept;               /* PP_KEEP_* bits of what it has */
};

/*
 * One call of the facade, from its first line to its return (api_begin, api_end): its error,
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

/* The arguments of a call, for api_begin: ARGS({c, "c"}, {key, "key"}). */
#define ARGS(...)                                                                                  \
	(const struct arg[]){__VA_ARGS__},                                                         \
	        sizeof((const struct arg[]){__VA_ARGS__}) / sizeof(struct arg)

/*
 * Starts call k of the function name: refuses the first NULL among the n arguments args (the
 * message names the function and the argument), then switches the thread to the "C" locale.
 * Returns 0, or -1 with err set and nothing to end.
 */
int api_begin(struct call *k, const char *name, const struct arg *args, size_t n, char *err,
              size_t errlen);
/* Ends call k, which succeeded (status 0) or failed (-1, k's error set): the caller's locale
 * back, its error in err. Returns PP_OK, or the pp_status of the error's kind. */
int api_end(struct call *k, int status);

/* The option row that key names: a config-file key, else a long option name; or NULL. */
const struct config_option *api_find_option(const char *key);
/* The config key, or the replay's argument ("w_share"), that the long option name sets
 * ("w-share"), or NULL. */
const char *api_key_named(const char *name);

/*
 * Rewrites the message msg (NUL-terminated, in a buffer of n bytes) in a library user's words:
 * each option of the config table the library's messages name as the command line does
 * ("--mem-limit", "--arrival=closed") by its config key ("\"mem_limit\"", "\"arrival\" =
 * closed"), a short one in a list of options ("(-s, -m, -v)") too, a command's option that is
 * an argument of a call by the argument's name ("--w-share": "w_share"), and the commands that
 * run a config by the calls that do ("ppsim serve": pp_serve). Quoted values ('...') are left
 * as they are.
 */
void api_words(char *msg, size_t n);

#endif
