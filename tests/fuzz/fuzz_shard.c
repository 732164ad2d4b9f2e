/*
 * Fuzzes the shard-file reader (ppsim merge's input): the head, then every record as a sweep's;
 * a file it reads is compared with itself as merge compares the shards of one run.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "ppsim/shard.h"
#include "ppsim/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	FILE *f = fmemopen(text, size, "r");
	struct pp_error err = {0};
	struct shard_reader *r = f != NULL ? shard_open_stream(f, "fuzz.pps", &err) : NULL;

	if (r != NULL) {
		struct sweep_record rec;
		char why[256];

		if (!shard_same_run(shard_reader_head(r), shard_reader_head(r), why, sizeof(why)))
			abort();
		while (shard_next(r, &sweep_shard_codec, &rec, &err) == 1)
			;
		shard_close(r);
	}
	if (f != NULL)
		fclose(f);
	free(text);
	return 0;
}
