/* The noise samples of a run as CSV (--samples-out): a row per sample in sample order. */
#include <inttypes.h>

#include "formats.h"
#include "ppsim/samples.h"

int report_samples_csv(FILE *out, const struct sim *s)
{
	const struct samples *x = s->samples;
	char a[32], b[32], c[32];

	fputs("sample,step,bubble_ratio,critical_device,critical_share\n", out);
	for (uint64_t j = 0; x != NULL && j < x->n; j++)
		fprintf(out, "%" PRIu64 ",%s,%s,%d,%s\n", x->first + j, REPORT_NUM(a, x->s[j].step),
		        REPORT_NUM(b, x->s[j].bubble), x->s[j].critical_device,
		        REPORT_NUM(c, x->s[j].critical_share));
	return 0;
}
