/* The noise samples of a run as CSV (--samples-out): a row per sample in sample order, streamed
 * through the base layer's writer. */
#include "base/numfmt.h"
#include "formats.h"
#include "ppsim/samples.h"

int report_samples_csv(FILE *out, const struct sim *s)
{
	const struct samples *x = s->samples;
	struct wbuf w;

	wbuf_init(&w, out);
	WBUF_LIT(&w, "sample,step,bubble_ratio,critical_device,critical_share\n");
	for (uint64_t j = 0; x != NULL && j < x->n; j++) {
		char *p = wbuf_reserve(&w, 5 * NUMFMT_MAX + 8);

		p += numfmt_u64(p, x->first + j);
		*p++ = ',';
		p += numfmt_shortest(p, x->s[j].step);
		*p++ = ',';
		p += numfmt_shortest(p, x->s[j].bubble);
		*p++ = ',';
		p += numfmt_i64(p, x->s[j].critical_device);
		*p++ = ',';
		p += numfmt_shortest(p, x->s[j].critical_share);
		*p++ = '\n';
		wbuf_commit(&w, p);
	}
	wbuf_finish(&w);
	return 0;
}
