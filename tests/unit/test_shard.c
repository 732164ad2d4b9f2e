/* Shard files (shard.h): records read back exactly, the head's settings kept, and every kind of
 * damage refused with the line at fault. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ppsim/shard.h"
#include "ppsim/sweep.h"
#include "unit.h"

/* A temporary file's path, removed by drop(). */
struct tmp {
	char path[64];
};

static FILE *create(struct tmp *t)
{
	int fd;
	FILE *f;

	snprintf(t->path, sizeof(t->path), "/tmp/ppsim-unit-XXXXXX");
	fd = mkstemp(t->path);
	CU_ASSERT_FATAL(fd >= 0);
	f = fdopen(fd, "w");
	CU_ASSERT_FATAL(f != NULL);
	return f;
}

static void drop(struct tmp *t)
{
	unlink(t->path);
}

/* Writes text to a new temporary file t. */
static void write_text(struct tmp *t, const char *text)
{
	FILE *f = create(t);

	fputs(text, f);
	fclose(f);
}

/* A head of shard k of n over points [first, last) of total, with two settings. */
static struct shard_head head_of(uint64_t k, uint64_t n, uint64_t first, uint64_t last,
                                 uint64_t total, struct shard_entry *run, size_t nrun)
{
	return (struct shard_head){.k = k,
	                           .n = n,
	                           .first = first,
	                           .last = last,
	                           .total = total,
	                           .run = run,
	                           .nrun = nrun};
}

/* The sweep p 2,4 x schedules 1f1b, interleaved, zbv, zbh1 x v 1,2 (some points skipped)
 * x m 4,8, or with model on 8 or 10 GPUs. */
static void grid(struct sweep *sw, const char *model)
{
	struct pp_error err = {0};

	sweep_init(sw, NULL);
	if (model != NULL) {
		CU_ASSERT_EQUAL_FATAL(
		        sweep_set_axis(sw, config_option_by_key("model"), "--model", model, &err),
		        0);
		CU_ASSERT_EQUAL_FATAL(
		        sweep_set_axis(sw, config_option_by_key("gpus"), "--gpus", "8,10", &err),
		        0);
		CU_ASSERT_EQUAL_FATAL(sweep_set_axis(sw, config_option_by_key("global_batch"),
		                                     "--global-batch", "32", &err),
		                      0);
	}
	CU_ASSERT_EQUAL_FATAL(sweep_set_axis(sw, config_option_by_key("p"), "-p", "2,4", &err), 0);
	CU_ASSERT_EQUAL_FATAL(sweep_set_axis(sw, config_option_by_key("schedule"), "--schedules",
	                                     "1f1b,interleaved,zbv,zbh1", &err),
	                      0);
	CU_ASSERT_EQUAL_FATAL(sweep_set_axis(sw, config_option_by_key("v"), "-v", "1,2", &err), 0);
	if (model == NULL)
		CU_ASSERT_EQUAL_FATAL(
		        sweep_set_axis(sw, config_option_by_key("m"), "-m", "4,8", &err), 0);
}

/* Writes every point of sw to t as shard 1 of 1, the records also into recs[]. */
static void write_sweep(struct tmp *t, const struct sweep *sw, struct sweep_record *recs,
                        uint64_t n)
{
	FILE *f = create(t);

	shard_write_head(f, &sweep_shard_codec,
	                 &(struct shard_head){.k = 1, .n = 1, .last = n, .total = n});
	for (uint64_t i = 0; i < n; i++) {
		sweep_evaluate(sw, i, &recs[i]);
		shard_write_record(f, &sweep_shard_codec, &recs[i]);
	}
	shard_write_end(f, n);
	CU_ASSERT_EQUAL(fclose(f), 0);
}

static void shard_records_read_back_equal_the_sweep_s_byte_for_byte(void)
{
	const char *models[] = {NULL, "llama3-8b"};

	for (size_t k = 0; k < 2; k++) {
		struct sweep sw;
		struct tmp t;
		struct sweep_record *recs, got;
		struct pp_error err = {0};
		struct shard_reader *r;
		uint64_t n, i = 0, ok = 0;
		int rc;

		grid(&sw, models[k]);
		n = sweep_points(&sw);
		recs = unit_calloc(n, sizeof(*recs));
		write_sweep(&t, &sw, recs, n);
		r = shard_open(t.path, &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		while ((rc = shard_next(r, &sweep_shard_codec, &got, &err)) == 1) {
			/* sweep_evaluate zeroes a record first, as the reader does: padding too */
			CU_ASSERT(memcmp(&got, &recs[i], sizeof(got)) == 0);
			ok += got.ok;
			i++;
		}
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_EQUAL(i, n);
		/* the grid has simulated and skipped points */
		CU_ASSERT(ok > 0 && ok < n);
		shard_close(r);
		drop(&t);
		free(recs);
		sweep_release(&sw);
	}
}

static void shard_records_keep_escapes_and_extreme_numbers(void)
{
	struct sweep_record rec = {0}, got;
	struct tmp t;
	struct pp_error err = {0};
	struct shard_reader *r;
	FILE *f = create(&t);

	rec.index = 0;
	snprintf(rec.reason, sizeof(rec.reason), "a\ttab, a\nnewline, a \\n that is not, \r, \\");
	snprintf(rec.schedule, sizeof(rec.schedule), "zbv");
	rec.value[0] = -3;
	rec.value[SWEEP_MAX_AXES - 1] = INT_MAX;
	rec.p = INT_MIN;
	rec.messages = UINT64_MAX;
	rec.makespan = NAN;
	rec.utilization = INFINITY;
	rec.throughput = -INFINITY;
	rec.mfu = -0.0;
	rec.step_time = 4.9406564584124654e-324; /* the least subnormal */
	rec.tokens_per_s = 1.7976931348623157e308;
	rec.bubble_ratio = 0.1 + 0.2;
	rec.error = PP_ERR_DEVICE_MEM;
	rec.fits = true;
	shard_write_head(f, &sweep_shard_codec,
	                 &(struct shard_head){.k = 1, .n = 1, .last = 1, .total = 1});
	shard_write_record(f, &sweep_shard_codec, &rec);
	shard_write_end(f, 1);
	fclose(f);
	r = shard_open(t.path, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(shard_next(r, &sweep_shard_codec, &got, &err), 1);
	CU_ASSERT_STRING_EQUAL(got.reason, rec.reason);
	CU_ASSERT(isnan(got.makespan));
	got.makespan = rec.makespan = 0; /* NaN equals nothing, not even itself */
	CU_ASSERT(signbit(got.mfu));
	CU_ASSERT(memcmp(&got, &rec, sizeof(got)) == 0);
	CU_ASSERT_EQUAL(shard_next(r, &sweep_shard_codec, &got, &err), 0);
	shard_close(r);
	drop(&t);
}

static void shard_head_keeps_the_run_s_settings_long_ones_in_pieces(void)
{
	size_t long_len = 200000;
	char *big = unit_calloc(long_len + 1, 1);
	struct shard_entry run[] = {{(char *)"arg", (char *)"-p"},
	                            {(char *)"config", big},
	                            {(char *)"arg", (char *)"tab\there\nnew line \\ back"},
	                            {(char *)"format", (char *)""}};
	struct tmp t;
	struct pp_error err = {0};
	struct shard_reader *r;
	const struct shard_head *h;
	FILE *f = create(&t);

	for (size_t i = 0; i < long_len; i++)
		big[i] = i % 1000 == 999 ? '\n' : (char)('a' + i % 26);
	shard_write_head(
	        f, &sweep_shard_codec,
	        &(struct shard_head){
	                .k = 2, .n = 3, .first = 4, .last = 4, .total = 9, .run = run, .nrun = 4});
	shard_write_end(f, 0);
	fclose(f);
	r = shard_open(t.path, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	h = shard_reader_head(r);
	CU_ASSERT_STRING_EQUAL(h->kind, "sweep");
	CU_ASSERT_STRING_EQUAL(h->version, PP_VERSION);
	CU_ASSERT(h->k == 2 && h->n == 3 && h->first == 4 && h->last == 4 && h->total == 9);
	CU_ASSERT_EQUAL_FATAL(h->nrun, 4);
	for (size_t i = 0; i < 4; i++) {
		CU_ASSERT_STRING_EQUAL(h->run[i].name, run[i].name);
		CU_ASSERT_STRING_EQUAL(h->run[i].value, run[i].value);
	}
	/* an empty shard: its end line comes at once */
	CU_ASSERT_EQUAL(shard_next(r, &sweep_shard_codec, &(struct sweep_record){0}, &err), 0);
	shard_close(r);
	drop(&t);
	free(big);
}

/* The head of a shard of 2 points with settings -p 2,4 as text, records and end to follow. */
#define HEAD                                                                                       \
	"ppsim-shard\t1\nkind\tsweep\nversion\t" PP_VERSION                                        \
	"\nshard\t1\t1\npoints\t0\t2\t2\nrun\targ\t-p\nrun\targ\t2,4\n"

/* The columns line of a sweep's records. */
static char *columns(void)
{
	static char buf[2048];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "columns");

	for (size_t f = 0; f < sweep_shard_codec.nfields; f++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\t%s",
		                      sweep_shard_codec.fields[f].name);
	snprintf(buf + n, sizeof(buf) - n, "\n");
	return buf;
}

/* A record line of point i, written by the writer. */
static char *record_line(uint64_t i)
{
	static char buf[2][4096];
	struct sweep_record rec = {0};
	FILE *f = fmemopen(buf[i % 2], sizeof(buf[0]), "w");

	rec.index = i;
	rec.ok = true;
	snprintf(rec.schedule, sizeof(rec.schedule), "1f1b");
	rec.p = 2; /* a shape a run has: the reader refuses what none writes */
	rec.v = 1;
	rec.m = 4;
	shard_write_record(f, &sweep_shard_codec, &rec);
	fclose(f);
	return buf[i % 2];
}

/* Reading text as a shard: the head, then every record; the first error's message, or "". */
static const char *read_error(const char *text)
{
	static struct pp_error err;
	struct tmp t;
	struct shard_reader *r;
	struct sweep_record rec;
	int rc = 1;

	memset(&err, 0, sizeof(err));
	write_text(&t, text);
	r = shard_open(t.path, &err);
	while (r != NULL && (rc = shard_next(r, &sweep_shard_codec, &rec, &err)) == 1)
		;
	shard_close(r);
	drop(&t);
	/* the path varies: from the quote after it */
	return r == NULL || rc < 0
	               ? strstr(err.msg, "':") != NULL ? strstr(err.msg, "':") + 2 : err.msg
	               : "";
}

static void shard_reader_refuses_damage_naming_the_line(void)
{
	char text[16384], cols[2048];
	const char *r0, *r1;

	snprintf(cols, sizeof(cols), "%s", columns());
	/* a whole file reads */
	r0 = record_line(0);
	r1 = record_line(1);
	snprintf(text, sizeof(text), "%s%s%s%send\t2\n", HEAD, cols, r0, r1);
	CU_ASSERT_STRING_EQUAL(read_error(text), "");
	/* not a shard, empty, another format */
	CU_ASSERT(strstr(read_error(""), "an empty file, not a shard") != NULL);
	CU_ASSERT_STRING_EQUAL(read_error("index,status\n"),
	                       "1: not a shard file (it starts with a ppsim-shard line)");
	CU_ASSERT_STRING_EQUAL(read_error("ppsim-shard\t2\n"),
	                       "1: shard format '2', this ppsim reads format 1");
	/* a head cut short or out of order */
	CU_ASSERT_STRING_EQUAL(read_error("ppsim-shard\t1\nkind\tsweep\n"),
	                       "3: the file ends before its version line");
	CU_ASSERT_STRING_EQUAL(read_error("ppsim-shard\t1\nkind\tsweep\nversion\tx\nshard\t3\t2\n"),
	                       "4: shard 3 of 2: K must be from 1 to N");
	CU_ASSERT_STRING_EQUAL(read_error(HEAD), "8: the file ends before its columns line");
	/* records cut short, missing their end, in the wrong order, malformed, too many */
	snprintf(text, sizeof(text), "%s%s%s", HEAD, cols, r0);
	CU_ASSERT_STRING_EQUAL(read_error(text), "10: the file ends after 1 of its 2 records, "
	                                         "without its end line (cut short?)");
	snprintf(text, sizeof(text), "%s%s%send\t1\n", HEAD, cols, r0);
	CU_ASSERT_STRING_EQUAL(read_error(text), "10: the file ends after 1 of its 2 records "
	                                         "(points 0 to 1)");
	snprintf(text, sizeof(text), "%s%s%s%send\t3\n", HEAD, cols, r0, r1);
	CU_ASSERT_STRING_EQUAL(read_error(text), "11: end says 3 records, the file holds 2");
	snprintf(text, sizeof(text), "%s%s%s%s", HEAD, cols, r1, r0);
	CU_ASSERT_STRING_EQUAL(read_error(text), "9: the record of point 1 where point 0 was due");
	snprintf(text, sizeof(text), "%s%s%s%s%send\t2\n", HEAD, cols, r0, r1, r1);
	CU_ASSERT_STRING_EQUAL(read_error(text), "11: more records than its points line says (2)");
	snprintf(text, sizeof(text), "%s%s%s%send\t2\nmore\n", HEAD, cols, r0, r1);
	CU_ASSERT_STRING_EQUAL(read_error(text), "12: a line after the end line");
	snprintf(text, sizeof(text), "%s%s%s%send\t2", HEAD, cols, r0, r1);
	CU_ASSERT(strstr(read_error(text), "without a newline") != NULL);
	snprintf(text, sizeof(text), "%s%s0\tyes\n", HEAD, cols);
	CU_ASSERT_STRING_EQUAL(read_error(text), "9: a record of 2 fields, expected 41");
	snprintf(text, sizeof(text), "%s%s%s", HEAD, cols, r0);
	*strchr(text + strlen(HEAD) + strlen(cols), '\t') = 'x';
	CU_ASSERT_STRING_EQUAL(read_error(text), "9: a record of 40 fields, expected 41");
	snprintf(text, sizeof(text), "%s%s%s", HEAD, cols, r0);
	memcpy(strstr(text + strlen(HEAD) + strlen(cols), "1f1b"), "1\\q1", 4);
	CU_ASSERT_STRING_EQUAL(read_error(text),
	                       "9: a backslash that escapes nothing (\\\\, \\t, \\n or \\r)");
	snprintf(text, sizeof(text), "%s%s%s", HEAD, cols, r0);
	text[strlen(HEAD) + strlen(cols) + 2] = '2'; /* ok becomes 2 */
	CU_ASSERT_STRING_EQUAL(read_error(text), "9: ok '2': not a value of the column");
	/* a record of another kind or version of its columns */
	snprintf(text, sizeof(text), "%scolumns\tindex\tok\n%s", HEAD, r0);
	CU_ASSERT(strstr(read_error(text), "its columns are not those of a sweep's records") !=
	          NULL);
}

static void shard_same_run_names_the_first_difference(void)
{
	struct shard_entry a[] = {{(char *)"arg", (char *)"-p"}, {(char *)"arg", (char *)"2,4"}};
	struct shard_entry b[] = {{(char *)"arg", (char *)"-p"}, {(char *)"arg", (char *)"2,8"}};
	struct shard_head x = head_of(1, 2, 0, 3, 6, a, 2), y = head_of(2, 2, 3, 6, 6, a, 2);
	char why[256];

	snprintf(x.kind, sizeof(x.kind), "sweep");
	snprintf(x.version, sizeof(x.version), "1.0");
	x.columns = (char *)"index\tok";
	snprintf(y.kind, sizeof(y.kind), "sweep");
	snprintf(y.version, sizeof(y.version), "1.0");
	y.columns = x.columns;
	/* another shard of the same run */
	CU_ASSERT(shard_same_run(&x, &y, why, sizeof(why)));
	y.run = b;
	CU_ASSERT(!shard_same_run(&x, &y, why, sizeof(why)));
	CU_ASSERT_STRING_EQUAL(why, "setting 2 (arg): '2,4' against '2,8'");
	y.run = a;
	y.nrun = 1;
	CU_ASSERT(!shard_same_run(&x, &y, why, sizeof(why)));
	CU_ASSERT_STRING_EQUAL(why, "2 settings against 1");
	y.nrun = 2;
	y.n = 3;
	CU_ASSERT(!shard_same_run(&x, &y, why, sizeof(why)));
	CU_ASSERT_STRING_EQUAL(why, "one of 2 shards against one of 3");
	y.n = 2;
	snprintf(y.version, sizeof(y.version), "1.1");
	CU_ASSERT(!shard_same_run(&x, &y, why, sizeof(why)));
	CU_ASSERT_STRING_EQUAL(why, "written by ppsim 1.0 against 1.1");
}

static void sweep_ranking_add_ranks_records_read_back_as_the_sweep_ranks_them(void)
{
	struct sweep sw;
	struct sweep_record *recs, top[3], best[3];
	struct sweep_ranking k;
	struct sweep_totals totals;
	struct tmp t;
	int ntop;
	uint64_t n;

	grid(&sw, NULL);
	n = sweep_points(&sw);
	recs = unit_calloc(n, sizeof(*recs));
	write_sweep(&t, &sw, recs, n);
	CU_ASSERT_EQUAL(sweep_run_ranked(&sw, 0, n, 1, top, 3, &ntop, &totals, NULL, NULL, NULL),
	                0);
	sweep_ranking_init(&k, best, 3, NULL, NULL);
	for (uint64_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(sweep_ranking_add(&k, &recs[i]), 0);
	CU_ASSERT_EQUAL(k.n, ntop);
	CU_ASSERT(memcmp(best, top, (size_t)ntop * sizeof(*top)) == 0);
	CU_ASSERT(memcmp(&k.totals, &totals, sizeof(totals)) == 0);
	drop(&t);
	free(recs);
	sweep_release(&sw);
}

static const struct unit_test tests[] = {
        UNIT_TEST(shard_records_read_back_equal_the_sweep_s_byte_for_byte),
        UNIT_TEST(shard_records_keep_escapes_and_extreme_numbers),
        UNIT_TEST(shard_head_keeps_the_run_s_settings_long_ones_in_pieces),
        UNIT_TEST(shard_reader_refuses_damage_naming_the_line),
        UNIT_TEST(shard_same_run_names_the_first_difference),
        UNIT_TEST(sweep_ranking_add_ranks_records_read_back_as_the_sweep_ranks_them),
        {NULL, NULL},
};

const struct unit_suite suite_shard = {"shard", tests};
