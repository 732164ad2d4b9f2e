/*
 * Helpers of the libFuzzer harnesses: a NUL-terminated copy of the fuzzer's bytes, and
 * silencing the reports the library prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "ppsim/util.h"

char *fuzz_text(const uint8_t *data, size_t size)
{
	char *text = pp_malloc(size + 1);

	/* the harness, not the library: a copy it cannot make is a crash for libFuzzer to report */
	if (text == NULL)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	return text;
}

void fuzz_quiet(void)
{
	static int done;

	if (done++ == 0) {
		if (freopen("/dev/null", "w", stdout) == NULL)
			abort();
		if (freopen("/dev/null", "w", stderr) == NULL)
			abort();
	}
}
