/* What the libFuzzer harnesses share. */
#ifndef PPSIM_FUZZ_H
#define PPSIM_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Ops a fuzzed input may simulate: enough to run every path, few enough to run fast. */
#define FUZZ_MAX_OPS 20000

/* A NUL-terminated copy of data[0..size-1] that the caller frees. */
char *fuzz_text(const uint8_t *data, size_t size);

/* Sends standard output and error to /dev/null once, so that reports do not flood the run. */
void fuzz_quiet(void);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
