/* Helpers of the libFuzzer harnesses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "ppsim/util.h"

char *fuzz_text(const uint8_t *data, size_t size)
{
	char *text = pp_xmalloc(size + 1);

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
