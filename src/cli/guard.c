/*
 * The files around a run (guard.h). The temporary files of open outputs are listed in a fixed
 * table that a signal handler can walk without allocating, and the outputs written through
 * (standard output) in another: the handler removes each temporary file, cuts back each file
 * written through as an abort would, restores the signal's default action and raises it
 * again, so the process ends as the signal meant.
 * Every signal whose default action ends the process is caught, the real-time ones included,
 * unless its action was not the default when the program started (ignored under nohup, or a
 * sanitizer's own handler). Outputs written and finished wait in a second table for the end of
 * the command, which commits them together or aborts them. Both tables are the program's, not
 * the library's: the library never installs a handler.
 */
#define _GNU_SOURCE /* SIGRTMIN, SIGSTKFLT, SIGPWR */
#include "guard.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Outputs a command has open at once: a run's four, an extra one, a sweep's records. */
#define GUARD_SLOTS 8

static char temp_name[GUARD_SLOTS][PATH_MAX];
static volatile sig_atomic_t temp_used[GUARD_SLOTS];
/* outputs written through (standard output, /dev/stdout naming a file) that a signal cuts back,
 * for the command's length: its outputs and standard output */
static struct outfile *through[GUARD_SLOTS + 1];
static volatile sig_atomic_t through_used[GUARD_SLOTS + 1];
/* outputs finished and waiting for the command's end (guard_keep) */
static struct outfile *kept[GUARD_SLOTS];
static int nkept;

/*
 * The signals whose default action ends the process, real-time ones apart. SIGPIPE and SIGXFSZ
 * are here for a process that meets them at their default: cmd_main ignores both, as a closed
 * pipe and a file-size limit are write errors. The synchronous ones (a crash, a failed
 * assertion's SIGABRT) are caught too: the handler only unlinks, which is safe anywhere.
 */
static const int ending_signals[] = {
        SIGHUP,    SIGINT,  SIGQUIT,   SIGILL,  SIGTRAP, SIGABRT, SIGBUS,
        SIGFPE,    SIGUSR1, SIGSEGV,   SIGUSR2, SIGPIPE, SIGALRM, SIGTERM,
        SIGXCPU,   SIGXFSZ, SIGVTALRM, SIGPROF, SIGSYS,
#ifdef SIGSTKFLT
        SIGSTKFLT,
#endif
#ifdef SIGPOLL
        SIGPOLL,
#endif
#ifdef SIGPWR
        SIGPWR,
#endif
};
#define NENDING (sizeof(ending_signals) / sizeof(ending_signals[0]))

/* Signals a fault raises in the thread that caused it: never held off, as a fault while held
 * ends the process without its handler. */
static bool synchronous(int sig)
{
	return sig == SIGILL || sig == SIGTRAP || sig == SIGBUS || sig == SIGFPE || sig == SIGSEGV;
}

static void on_signal(int sig)
{
	int saved = errno;

	for (int i = 0; i < GUARD_SLOTS; i++)
		if (temp_used[i])
			unlink(temp_name[i]);
	for (int i = 0; i < GUARD_SLOTS + 1; i++)
		if (through_used[i])
			outfile_cut_back(through[i]);
	errno = saved;
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Calls fn on each signal the guard catches: the ending ones, then the real-time ones. */
static void each_signal(void (*fn)(int sig, void *arg), void *arg)
{
	for (size_t i = 0; i < NENDING; i++)
		fn(ending_signals[i], arg);
#ifdef SIGRTMIN
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		fn(sig, arg);
#endif
}

/* Adds sig to the set arg, synchronous signals apart. */
static void add_held(int sig, void *arg)
{
	if (!synchronous(sig))
		sigaddset(arg, sig);
}

/* Catches sig with the handler whose action arg holds, unless sig starts at another action. */
static void catch_signal(int sig, void *arg)
{
	struct sigaction old;

	if (sigaction(sig, NULL, &old) == 0 && (old.sa_flags & SA_SIGINFO) == 0 &&
	    old.sa_handler == SIG_DFL)
		sigaction(sig, arg, NULL);
}

void guard_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	/* one handler at a time: the others wait until it has raised its signal */
	sigemptyset(&sa.sa_mask);
	each_signal(add_held, &sa.sa_mask);
	each_signal(catch_signal, &sa);
}

/* Holds off the caught signals (hold) or lets them in again, with the mask saved in *old. */
static void hold_signals(bool hold, sigset_t *old)
{
	sigset_t set;

	if (!hold) {
		pthread_sigmask(SIG_SETMASK, old, NULL);
		return;
	}
	sigemptyset(&set);
	each_signal(add_held, &set);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

/* Lists tmp for removal on a signal; false when it cannot be (no slot, too long a name). */
static bool take_slot(const char *tmp)
{
	size_t n = strlen(tmp);

	if (n >= PATH_MAX)
		return false;
	for (int i = 0; i < GUARD_SLOTS; i++)
		if (!temp_used[i]) {
			memcpy(temp_name[i], tmp, n + 1);
			temp_used[i] = 1;
			return true;
		}
	return false;
}

static void drop_slot(const char *tmp)
{
	for (int i = 0; i < GUARD_SLOTS && tmp != NULL; i++)
		if (temp_used[i] && strcmp(temp_name[i], tmp) == 0) {
			temp_used[i] = 0;
			return;
		}
}

/* Lists f, written through, to be cut back on a signal; a no-op when every slot is taken. */
static void take_through(struct outfile *f)
{
	for (int i = 0; i < GUARD_SLOTS + 1; i++)
		if (!through_used[i]) {
			through[i] = f;
			through_used[i] = 1;
			return;
		}
}

/* Lists no output written through: the command is ending. */
static void drop_through(void)
{
	for (int i = 0; i < GUARD_SLOTS + 1; i++)
		through_used[i] = 0;
}

/* Drops f from the outputs written through. */
static void drop_through_one(const struct outfile *f)
{
	for (int i = 0; i < GUARD_SLOTS + 1; i++)
		if (through_used[i] && through[i] == f)
			through_used[i] = 0;
}

void guard_through(struct outfile *f)
{
	sigset_t old;

	hold_signals(true, &old);
	take_through(f);
	hold_signals(false, &old);
}

struct outfile *guard_open(const char *path, struct pp_error *err)
{
	sigset_t old;
	struct outfile *f;
	bool regular = true;

	/* a device or a pipe is written in place, with no temporary file to guard: its open may
	 * wait (a FIFO for its reader), and a signal must be able to stop that */
	if (outfile_check(path, &regular, err) != 0)
		return NULL;
	if (!regular) {
		f = outfile_open(path, err);
		if (f != NULL)
			guard_through(f); /* standard output's file, named, is cut back */
		return f;
	}
	hold_signals(true, &old);
	f = outfile_open(path, err);
	if (f != NULL && outfile_temp(f) != NULL && !take_slot(outfile_temp(f))) {
		outfile_abort(f);
		f = NULL;
		pp_fail(err, PP_ERR_IO, "cannot write '%s': too many outputs at once", path);
	}
	hold_signals(false, &old);
	return f;
}

/* Removes the signal handler's note of each output's temporary file. */
static void drop_slots(struct outfile **files, int n)
{
	for (int i = 0; i < n; i++)
		if (files[i] != NULL)
			drop_slot(outfile_temp(files[i]));
}

/* outfile_commit_all of files from guard_open, with signals held off. */
static int commit_all(struct outfile **files, int n, struct pp_error *err)
{
	sigset_t old;
	int rc;

	hold_signals(true, &old);
	drop_slots(files, n);
	drop_through();
	rc = outfile_commit_all(files, n, err);
	hold_signals(false, &old);
	return rc;
}

void guard_abort(struct outfile *f)
{
	sigset_t old;

	if (f == NULL)
		return;
	if (outfile_temp(f) == NULL) { /* written through: its close may wait on a reader */
		hold_signals(true, &old);
		drop_through_one(f);
		hold_signals(false, &old);
		outfile_abort(f);
		return;
	}
	hold_signals(true, &old);
	drop_slot(outfile_temp(f));
	outfile_abort(f);
	hold_signals(false, &old);
}

int guard_keep(struct outfile *f, struct pp_error *err)
{
	if (outfile_finish(f, err) != 0) {
		guard_abort(f);
		return -1;
	}
	if (nkept == GUARD_SLOTS) { /* guard_open has a slot for every output that can be here */
		guard_abort(f);
		return pp_fail(err, PP_ERR_IO, "too many outputs at once");
	}
	kept[nkept++] = f;
	return 0;
}

int guard_end(bool ok, struct pp_error *err)
{
	int n = nkept;

	nkept = 0;
	if (ok)
		return commit_all(kept, n, err);
	for (int i = 0; i < n; i++)
		guard_abort(kept[i]);
	drop_through();
	return 0;
}

/*
 * Who a path is: the device and inode of what it names when that exists, else the name of the
 * file it would create (a dangling symbolic link's target) with its directory resolved, so that
 * "out.svg", "./out.svg" and a link to out.svg are one file.
 */
struct identity {
	bool exists;
	dev_t dev;
	ino_t ino;
	char name[PATH_MAX];
};

static void identify(const char *path, struct identity *id)
{
	struct stat st;
	char *target = NULL;
	const char *slash;
	char dir[PATH_MAX];
	size_t n;

	memset(id, 0, sizeof(*id));
	if (stat(path, &st) == 0) {
		id->exists = true;
		id->dev = st.st_dev;
		id->ino = st.st_ino;
		return;
	}
	if (outfile_follow_links(path, &target) == 0)
		path = target;
	slash = strrchr(path, '/');
	n = slash == NULL ? 0 : (size_t)(slash - path);
	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (n == 0)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)n, path);
	if (realpath(dir, id->name) == NULL)
		snprintf(id->name, sizeof(id->name), "%s", dir);
	n = strlen(id->name);
	snprintf(id->name + n, sizeof(id->name) - n, "/%s", slash == NULL ? path : slash + 1);
	free(target);
}

static bool same_file(const struct identity *a, const struct identity *b)
{
	if (a->exists || b->exists)
		return a->exists && b->exists && a->dev == b->dev && a->ino == b->ino;
	return strcmp(a->name, b->name) == 0;
}

int guard_check_outputs(const char *const *outputs, const char *const *output_what, int n,
                        const char *const *inputs, const char *const *input_what, int ninputs,
                        struct pp_error *err)
{
	struct identity *id = pp_mallocarray((size_t)(n > 0 ? n : 1), sizeof(*id));
	struct identity in;
	bool *regular = pp_mallocarray((size_t)(n > 0 ? n : 1), sizeof(*regular));
	struct stat so;
	/* standard output's file or pipe (not a device such as /dev/null or a terminal): outputs
	 * naming it are written through into it, and two of them would mix there as two named
	 * files would */
	bool so_file = fstat(STDOUT_FILENO, &so) == 0 && !S_ISCHR(so.st_mode);
	int rc = 0;

	if (id == NULL || regular == NULL) {
		free(id);
		free(regular);
		return pp_nomem(err, (size_t)n, sizeof(*id));
	}
	for (int i = 0; i < n && rc == 0; i++) {
		if (outputs[i] == NULL)
			continue;
		/* an empty name is a missing value, as an input's is */
		if (outputs[i][0] == '\0') {
			rc = pp_fail(err, PP_ERR_USAGE, "%s '': needs a file name", output_what[i]);
			break;
		}
		rc = outfile_check(outputs[i], &regular[i], err);
		if (rc != 0)
			break;
		identify(outputs[i], &id[i]);
		for (int j = 0; j < i && rc == 0; j++)
			if (outputs[j] != NULL && same_file(&id[i], &id[j]) &&
			    ((regular[i] && regular[j]) ||
			     (so_file && id[i].exists && id[i].dev == so.st_dev && id[i].ino == so.st_ino)))
				rc = pp_fail(err, PP_ERR_USAGE, "%s and %s both name '%s'",
				             output_what[j], output_what[i], outputs[i]);
		for (int j = 0; j < ninputs && rc == 0 && regular[i]; j++) {
			if (inputs[j] == NULL || inputs[j][0] == '\0')
				continue;
			identify(inputs[j], &in);
			if (same_file(&id[i], &in))
				rc = pp_fail(
				        err, PP_ERR_USAGE,
				        "%s '%s': is an input of this run (%s); name another file",
				        output_what[i], outputs[i], input_what[j]);
		}
	}
	free(id);
	free(regular);
	return rc;
}
