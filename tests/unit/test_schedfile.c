/* Unit tests of schedfile: reading, inferring and checking schedules written as CSV files. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ppsim/config.h"
#include "ppsim/report.h"
#include "ppsim/schedfile.h"
#include "ppsim/sim.h"
#include "unit.h"

/*
 * Writes len bytes of text (which may hold NUL bytes) to a file in a fresh temporary directory,
 * reads it with schedfile_read into f and err, removes the file and the directory, and returns
 * what schedfile_read returned. path (128 bytes) receives the file's name, for messages.
 */
static int read_bytes(const char *text, size_t len, struct schedfile *f, struct pp_error *err,
                      char *path)
{
	char dir[] = "/tmp/ppsim-unit-XXXXXX";
	FILE *out;
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, 128, "%s/s.csv", dir);
	out = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(fwrite(text, 1, len, out), len);
	CU_ASSERT_EQUAL(fclose(out), 0);
	rc = schedfile_read(path, PP_MAX_OPS, f, err);
	CU_ASSERT_EQUAL(unlink(path), 0);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
	return rc;
}

/* read_bytes of a NUL-terminated text. */
static int read_text(const char *text, struct schedfile *f, struct pp_error *err, char *path)
{
	return read_bytes(text, strlen(text), f, err, path);
}

/*
 * Reads text as a schedule file that must be rejected with an error of kind kind whose message
 * is "schedule 'PATH'" followed by want, and whose line and column are line and column (0 when
 * the error is about no single line).
 */
static void assert_rejected_as(enum pp_errkind kind, const char *text, const char *want, int line,
                               int column)
{
	char path[128];
	struct schedfile f;
	struct pp_error err = {0};
	char msg[sizeof(err.msg)];

	CU_ASSERT_EQUAL(read_text(text, &f, &err, path), -1);
	CU_ASSERT_EQUAL(err.kind, kind);
	CU_ASSERT_PTR_NULL(f.sched);
	CU_ASSERT_PTR_NULL(f.lines);
	snprintf(msg, sizeof(msg), "schedule '%s'%s", path, want);
	CU_ASSERT_STRING_EQUAL(err.msg, msg);
	if (strcmp(err.msg, msg) != 0)
		fprintf(stderr, "got  \"%s\"\nwant \"%s\"\n", err.msg, msg);
	CU_ASSERT_EQUAL(err.line, line);
	CU_ASSERT_EQUAL(err.column, column);
}

/* assert_rejected_as for a malformed or incomplete schedule: PP_ERR_CONFIG. */
static void assert_rejected(const char *text, const char *want, int line, int column)
{
	assert_rejected_as(PP_ERR_CONFIG, text, want, line, column);
}

/* True when a and b hold the same shape and the same ops in the same order on each device. */
static bool same_schedule(const struct sched *a, const struct sched *b)
{
	if (a->p != b->p || a->v != b->v || a->m != b->m || a->S != b->S || a->split != b->split ||
	    a->placement != b->placement || a->nops != b->nops)
		return false;
	for (int d = 0; d <= a->p; d++)
		if (a->dev_start[d] != b->dev_start[d])
			return false;
	for (size_t i = 0; i < a->nops; i++)
		if (a->ops[i].kind != b->ops[i].kind || a->ops[i].mb != b->ops[i].mb ||
		    a->ops[i].stage != b->ops[i].stage)
			return false;
	return true;
}

/*
 * Writes the --dump-ops CSV of a simulation of schedule (header
 * device,chunk,stage,op,microbatch,start,end[,overlap],slack, one row per op in each device's
 * order), reads it back and checks that it gives the same op order, each op on the line it was
 * written to.
 */
static void assert_dump_reads_back(const char *schedule, int p, int v, int m)
{
	struct config c;
	struct pp_error err = {0};
	struct sim *s;
	char path[128];
	struct schedfile f;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	config_init(&c);
	strcpy(c.schedule, schedule);
	c.p = p;
	c.v = v;
	c.m = m;
	c.t_b = 2;
	s = sim_run_flags(&c, SIM_SLACK, &err);
	if (s == NULL)
		fprintf(stderr, "%s p=%d v=%d m=%d: %s\n", schedule, p, v, m, err.msg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	out = open_memstream(&text, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(report_ops_csv(out, UNIT_DRAWING(s)), 0);
	CU_ASSERT_EQUAL_FATAL(fclose(out), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(strstr(text, ",slack\n"));
	CU_ASSERT_EQUAL_FATAL(read_text(text, &f, &err, path), 0);
	CU_ASSERT_TRUE(same_schedule(f.sched, s->sched));
	CU_ASSERT_PTR_NULL(f.sched->desc);
	for (size_t i = 0; i < f.sched->nops; i++)
		CU_ASSERT_EQUAL(f.lines[i], (uint32_t)(i + 2));
	schedfile_release(&f);
	CU_ASSERT_PTR_NULL(f.sched);
	CU_ASSERT_PTR_NULL(f.lines);
	free(text);
	sim_free(s);
}

static void schedfile_reads_the_dump_of_each_generator_back_to_the_same_order(void)
{
	assert_dump_reads_back("gpipe", 3, 1, 4);
	assert_dump_reads_back("1f1b", 4, 1, 8);
	assert_dump_reads_back("interleaved", 4, 2, 8);
	assert_dump_reads_back("interleaved", 2, 3, 3);
	assert_dump_reads_back("interleaved", 4, 2, 10);
	assert_dump_reads_back("zbh1", 4, 1, 8);
	assert_dump_reads_back("zbh2", 3, 1, 6);
}

static void schedfile_reads_what_report_ops_csv_writes_back_to_the_same_order(void)
{
	static const struct {
		const char *name;
		int p, v, m;
	} cases[] = {{"interleaved", 4, 2, 8}, {"zbh2", 4, 1, 8}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char dir[] = "/tmp/ppsim-unit-XXXXXX", path[128];
		struct config c;
		struct pp_error err = {0};
		struct schedfile f;
		struct sim *s;
		FILE *out;
		int rc;

		config_init(&c);
		strcpy(c.schedule, cases[i].name);
		c.p = cases[i].p;
		c.v = cases[i].v;
		c.m = cases[i].m;
		s = sim_run(&c, &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
		snprintf(path, sizeof(path), "%s/ops.csv", dir);
		out = fopen(path, "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(out);
		CU_ASSERT_EQUAL(report_ops_csv(out, UNIT_DRAWING(s)), 0);
		CU_ASSERT_EQUAL(fclose(out), 0);
		rc = schedfile_read(path, PP_MAX_OPS, &f, &err);
		CU_ASSERT_EQUAL(unlink(path), 0);
		CU_ASSERT_EQUAL(rmdir(dir), 0);
		CU_ASSERT_EQUAL(rc, 0);
		if (rc == 0) {
			CU_ASSERT_TRUE(same_schedule(f.sched, s->sched));
			schedfile_release(&f);
		}
		sim_free(s);
	}
}

static void schedfile_reads_a_stage_only_file(void)
{
	char path[128];
	struct schedfile f;
	struct pp_error err = {0};
	struct sched *want = sched_alloc(2, 2, 1, false, PLACE_LOOP);

	/* p=2, v=2 looped: stages 0 and 2 on device 0, 1 and 3 on device 1 */
	sched_push(want, 0, OP_F, 0, 0);
	sched_push(want, 0, OP_F, 0, 2);
	sched_push(want, 0, OP_BW, 0, 2);
	sched_push(want, 0, OP_BW, 0, 0);
	sched_push(want, 1, OP_F, 0, 1);
	sched_push(want, 1, OP_F, 0, 3);
	sched_push(want, 1, OP_BW, 0, 3);
	sched_push(want, 1, OP_BW, 0, 1);
	CU_ASSERT_EQUAL_FATAL(read_text("device,op,microbatch,stage\n"
	                                "0,F,0,0\n1,F,0,1\n0,F,0,2\n1,F,0,3\n"
	                                "1,BW,0,3\n0,BW,0,2\n1,BW,0,1\n0,BW,0,0\n",
	                                &f, &err, path),
	                      0);
	CU_ASSERT_TRUE(same_schedule(f.sched, want));
	CU_ASSERT_EQUAL(f.sched->stage_chunk[2], 1);
	schedfile_release(&f);
	sched_free(want);
}

static void schedfile_reads_a_chunk_only_file_with_looped_stages(void)
{
	char path[128];
	struct schedfile f;
	struct pp_error err = {0};
	struct sched *want = sched_alloc(2, 2, 1, false, PLACE_LOOP);

	/* the file above with chunks instead of stages; columns in another order */
	sched_push(want, 0, OP_F, 0, 0);
	sched_push(want, 0, OP_F, 0, 2);
	sched_push(want, 0, OP_BW, 0, 2);
	sched_push(want, 0, OP_BW, 0, 0);
	sched_push(want, 1, OP_F, 0, 1);
	sched_push(want, 1, OP_F, 0, 3);
	sched_push(want, 1, OP_BW, 0, 3);
	sched_push(want, 1, OP_BW, 0, 1);
	CU_ASSERT_EQUAL_FATAL(read_text("op,microbatch,chunk,device\n"
	                                "F,0,0,0\nF,0,0,1\nF,0,1,0\nF,0,1,1\n"
	                                "BW,0,1,1\nBW,0,1,0\nBW,0,0,1\nBW,0,0,0\n",
	                                &f, &err, path),
	                      0);
	CU_ASSERT_TRUE(same_schedule(f.sched, want));
	schedfile_release(&f);
	sched_free(want);
}

static void schedfile_infers_v_placement_from_stage_3_on_device_0(void)
{
	char path[128];
	struct schedfile f;
	struct pp_error err = {0};

	/* p=2, v=2 in V placement: stages 0 and 3 on device 0, 1 and 2 on device 1 */
	CU_ASSERT_EQUAL_FATAL(read_text("device,stage,op,microbatch\n"
	                                "0,0,F,0\n1,1,F,0\n1,2,F,0\n0,3,F,0\n0,3,B,0\n0,3,W,0\n"
	                                "1,2,B,0\n1,1,B,0\n1,1,W,0\n1,2,W,0\n0,0,B,0\n0,0,W,0\n",
	                                &f, &err, path),
	                      0);
	CU_ASSERT_EQUAL(f.sched->p, 2);
	CU_ASSERT_EQUAL(f.sched->v, 2);
	CU_ASSERT_EQUAL(f.sched->m, 1);
	CU_ASSERT_EQUAL(f.sched->placement, PLACE_V);
	CU_ASSERT_TRUE(f.sched->split);
	CU_ASSERT_EQUAL(f.sched->stage_device[3], 0);
	CU_ASSERT_EQUAL(f.sched->stage_chunk[3], 1);
	CU_ASSERT_EQUAL(f.sched->stage_device[2], 1);
	CU_ASSERT_EQUAL(f.sched->ops[1].stage, 3);
	CU_ASSERT_EQUAL(f.sched->ops[f.sched->dev_start[1] + 1].stage, 2);
	schedfile_release(&f);
}

static void schedfile_infers_split_backward_from_b_and_w_ops(void)
{
	char path[128];
	struct schedfile f;
	struct pp_error err = {0};

	CU_ASSERT_EQUAL_FATAL(read_text("device,stage,op,microbatch\n0,0,F,0\n0,0,B,0\n0,0,W,0\n",
	                                &f, &err, path),
	                      0);
	CU_ASSERT_TRUE(f.sched->split);
	CU_ASSERT_EQUAL(f.sched->nops, 3);
	CU_ASSERT_EQUAL(f.sched->ops[1].kind, OP_B);
	CU_ASSERT_EQUAL(f.sched->ops[2].kind, OP_W);
	schedfile_release(&f);
	CU_ASSERT_EQUAL_FATAL(
	        read_text("device,stage,op,microbatch\n0,0,F,0\n0,0,BW,0\n", &f, &err, path), 0);
	CU_ASSERT_FALSE(f.sched->split);
	schedfile_release(&f);
}

static void schedfile_maps_each_op_to_its_file_line(void)
{
	char path[128];
	struct schedfile f;
	struct pp_error err = {0};

	/* comments and blank lines count; device 1's rows come first in the file */
	CU_ASSERT_EQUAL_FATAL(read_text("# a schedule\n"
	                                "device,stage,op,microbatch,start,end\n"
	                                "\n"
	                                "1,1,F,0,1,2\n"
	                                "0,0,F,0,0,1\n"
	                                "  # device 1 turns back\n"
	                                "1,1,BW,0,2,4\n"
	                                "0,0,BW,0,4,6\n",
	                                &f, &err, path),
	                      0);
	CU_ASSERT_EQUAL_FATAL(f.sched->nops, 4);
	CU_ASSERT_EQUAL(f.sched->ops[0].kind, OP_F);
	CU_ASSERT_EQUAL(f.sched->ops[2].stage, 1);
	CU_ASSERT_EQUAL(f.lines[0], 5);
	CU_ASSERT_EQUAL(f.lines[1], 8);
	CU_ASSERT_EQUAL(f.lines[2], 4);
	CU_ASSERT_EQUAL(f.lines[3], 7);
	/* a ppsim row is placed at its line's first column and has no cell */
	for (size_t i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(f.columns[i], 1);
		CU_ASSERT_EQUAL(f.cells[i], 0);
	}
	schedfile_release(&f);
}

static void schedfile_rejects_an_unknown_column_at_its_column(void)
{
	assert_rejected("device,op,microbatch,stagez\n0,F,0,0\n0,BW,0,0\n",
	                ":1:22: unknown column \"stagez\" (columns: device, chunk, stage, op, "
	                "microbatch, overlap, start, end, slack)",
	                1, 22);
}

static void schedfile_rejects_a_duplicate_column_at_its_second_occurrence(void)
{
	assert_rejected("device,op,microbatch,stage,op\n0,F,0,0,F\n",
	                ":1:28: column \"op\" appears twice", 1, 28);
}

static void schedfile_rejects_a_header_missing_a_required_column(void)
{
	static const char *const headers[] = {"device,op,stage\n", "op,microbatch,stage\n",
	                                      "device,microbatch,chunk\n",
	                                      "device,op,microbatch\n"};

	for (size_t i = 0; i < sizeof(headers) / sizeof(headers[0]); i++)
		assert_rejected(
		        headers[i],
		        ":1:1: the header needs columns device, op, microbatch, and stage or "
		        "chunk",
		        1, 1);
}

static void schedfile_rejects_an_unknown_op_name_at_its_column(void)
{
	assert_rejected("device,op,microbatch,stage\n0,F,0,0\n0,X,0,0\n",
	                ":3:3: op \"X\": must be F, B, W or BW", 3, 3);
	assert_rejected("device,op,microbatch,stage\n0,f,0,0\n",
	                ":2:3: op \"f\": must be F, B, W or BW", 2, 3);
}

static void schedfile_rejects_a_negative_or_non_numeric_index_at_its_column(void)
{
	assert_rejected("device,op,microbatch,stage\n0,F,-1,0\n",
	                ":2:5: \"-1\": must be a non-negative integer", 2, 5);
	assert_rejected("device,op,microbatch,stage\n0,F,0,x\n",
	                ":2:7: \"x\": must be a non-negative integer", 2, 7);
	assert_rejected("device,op,microbatch,stage\n0,F,0,1.5\n",
	                ":2:7: \"1.5\": must be a non-negative integer", 2, 7);
	assert_rejected("device,chunk,op,microbatch\n0,,F,0\n",
	                ":2:3: \"\": must be a non-negative integer", 2, 3);
}

static void schedfile_rejects_a_line_with_the_wrong_number_of_fields(void)
{
	assert_rejected("device,op,microbatch,stage\n0,F,0,0\n0,BW,0\n",
	                ":3:1: 3 fields, the header has 4", 3, 1);
	assert_rejected("device,op,microbatch,stage\n0,F,0,0,7\n",
	                ":2:1: 5 fields, the header has 4", 2, 1);
}

static void schedfile_rejects_a_nul_byte_at_its_column(void)
{
	static const char text[] = "device,op,microbatch,stage\n0,F\0,0,0\n0,BW,0,0\n";
	char path[128];
	struct schedfile f;
	struct pp_error err = {0};
	char want[256];

	CU_ASSERT_EQUAL(read_bytes(text, sizeof(text) - 1, &f, &err, path), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	snprintf(want, sizeof(want), "schedule '%s':2:4: a NUL byte: not a text file", path);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	CU_ASSERT_EQUAL(err.line, 2);
	CU_ASSERT_EQUAL(err.column, 4);
}

static void schedfile_rejects_an_empty_file_and_a_file_of_comments(void)
{
	assert_rejected("", ": empty (no header, no ops)", 0, 0);
	assert_rejected("# nothing\n\n   \n", ": empty (no header, no ops)", 0, 0);
}

static void schedfile_rejects_a_header_without_ops(void)
{
	assert_rejected("device,op,microbatch,stage\n", ": no ops", 0, 0);
	assert_rejected("device,op,microbatch,stage\n# none yet\n\n", ": no ops", 0, 0);
}

/*
 * Reads text, which must be rejected with a PP_ERR_CONFIG error about the op on line line: the
 * message is "schedule 'PATH':LINE:COLUMN: " with a column of at least 1, then want (exact) or
 * text containing want (not exact).
 */
static void assert_rejected_at_line(const char *text, const char *want, int line, bool exact)
{
	char path[128];
	struct schedfile f;
	struct pp_error err = {0};
	char prefix[256];
	size_t n;

	CU_ASSERT_EQUAL(read_text(text, &f, &err, path), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_EQUAL(err.line, line);
	CU_ASSERT(err.column >= 1);
	n = (size_t)snprintf(prefix, sizeof(prefix), "schedule '%s':%d:%d: ", path, line,
	                     err.column);
	CU_ASSERT_EQUAL(strncmp(err.msg, prefix, n), 0);
	if (strncmp(err.msg, prefix, n) == 0) {
		CU_ASSERT(exact ? strcmp(err.msg + n, want) == 0
		                : strstr(err.msg + n, want) != NULL);
		if (exact ? strcmp(err.msg + n, want) != 0 : strstr(err.msg + n, want) == NULL)
			fprintf(stderr, "got \"%s\", want \"%s\"\n", err.msg + n, want);
	} else {
		fprintf(stderr, "got \"%s\", want it to start with \"%s\"\n", err.msg, prefix);
	}
}

static void schedfile_rejects_a_duplicate_op_at_the_line_of_its_second_occurrence(void)
{
	assert_rejected_at_line("device,op,microbatch,stage\n"
	                        "0,F,0,0\n0,F,1,0\n0,BW,0,0\n0,BW,1,0\n"
	                        "1,F,0,1\n1,F,0,1\n1,BW,0,1\n1,BW,1,1\n",
	                        "F(mb 0, stage 1) on device 1: appears twice (also at line 6)", 7,
	                        true);
}

static void schedfile_reads_fused_and_split_backwards_side_by_side_as_a_mixed_schedule(void)
{
	char path[128];
	struct schedfile f;
	struct pp_error err = {0};
	static const struct {
		enum op_kind kind;
		uint32_t mb;
	} want[] = {{OP_F, 0}, {OP_F, 1}, {OP_BW, 0}, {OP_B, 1}, {OP_W, 1}};

	/* micro-batch 0 runs a fused backward, micro-batch 1 a split one (as DualPipeV does) */
	CU_ASSERT_EQUAL_FATAL(read_text("device,op,microbatch,stage\n0,F,0,0\n0,F,1,0\n0,BW,0,0\n"
	                                "0,B,1,0\n0,W,1,0\n",
	                                &f, &err, path),
	                      0);
	CU_ASSERT_TRUE(f.sched->split);
	CU_ASSERT_TRUE(f.sched->mixed);
	CU_ASSERT_FALSE(f.sched->overlap);
	CU_ASSERT_EQUAL(f.sched->p, 1);
	CU_ASSERT_EQUAL(f.sched->m, 2);
	CU_ASSERT_EQUAL_FATAL(f.sched->nops, 5);
	for (size_t i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(f.sched->ops[i].kind, want[i].kind);
		CU_ASSERT_EQUAL(f.sched->ops[i].mb, want[i].mb);
		CU_ASSERT_EQUAL(f.lines[i], (uint32_t)(i + 2));
	}
	schedfile_release(&f);
	/* a file with only one kind of backward is not mixed */
	CU_ASSERT_EQUAL_FATAL(read_text("device,op,microbatch,stage\n0,F,0,0\n0,B,0,0\n0,W,0,0\n",
	                                &f, &err, path),
	                      0);
	CU_ASSERT_FALSE(f.sched->mixed);
	schedfile_release(&f);
}

static void schedfile_rejects_a_backward_given_both_fused_and_split_at_its_second_form(void)
{
	/* micro-batch 0 has BW on line 3 and B on line 4 */
	assert_rejected_at_line("device,op,microbatch,stage\n0,F,0,0\n0,BW,0,0\n0,B,0,0\n0,W,0,0\n",
	                        "B(mb 0, stage 0) on device 0: its backward appears both fused and "
	                        "split (also at line 3)",
	                        4, true);
	/* the other way round: the split B first, then the fused BW on line 5 */
	assert_rejected_at_line("device,op,microbatch,stage\n0,F,0,0\n0,B,0,0\n0,W,0,0\n0,BW,0,0\n",
	                        "BW(mb 0, stage 0) on device 0: its backward appears both fused "
	                        "and split (also at line 3)",
	                        5, true);
}

static void schedfile_rejects_an_op_on_a_device_that_does_not_host_its_stage(void)
{
	assert_rejected(
	        "device,op,microbatch,stage\n0,F,0,0\n1,F,0,1\n1,BW,0,1\n1,BW,0,0\n",
	        ":5:1: BW(mb 0, stage 0) on device 1: stage 0 does not sit on device 1 under "
	        "the loop placement that the other ops follow (stage c*p + d)",
	        5, 1);
	/* chunk and stage both given and at odds */
	assert_rejected(
	        "device,chunk,stage,op,microbatch\n0,0,0,F,0\n1,0,1,F,0\n1,0,1,BW,0\n"
	        "0,1,0,BW,0\n",
	        ":5:1: BW(mb 0, stage 0) on device 0: stage 0 does not sit on device 0 under "
	        "the loop placement that the other ops follow (stage c*p + d)",
	        5, 1);
}

static void schedfile_rejects_a_missing_op_naming_it(void)
{
	assert_rejected("device,op,microbatch,stage\n"
	                "0,F,0,0\n0,F,1,0\n0,BW,0,0\n"
	                "1,F,0,1\n1,F,1,1\n1,BW,0,1\n1,BW,1,1\n",
	                ":2:1: device 0's ops: BW(mb 1, stage 0): missing (device 0 never runs it)",
	                2, 1);
}

static void schedfile_rejects_a_cyclic_wait_naming_each_stuck_op_s_line(void)
{
	/* an order that cannot run is a simulation failure, not a malformed file; it is placed at
	 * device 0's waiting BW (line 3), and device 1's waiting F is its first row, line 6 */
	assert_rejected_as(
	        PP_ERR_SIM,
	        "device,op,microbatch,stage\n"
	        "0,F,0,0\n0,BW,0,0\n0,F,1,0\n0,BW,1,0\n"
	        "1,F,1,1\n1,F,0,1\n1,BW,0,1\n1,BW,1,1\n",
	        ":3:1: cyclic wait after 1 of 8 ops: device 0 waits in BW(mb 0, stage 0) at line 3 "
	        "for BW(mb 0, stage 1) from device 1; device 1 waits in F(mb 1, stage 1) at line 6 "
	        "for F(mb 1, stage 0) from device 0; cycle: device 0 -> device 1 -> device 0",
	        3, 1);
	/* device 1's rows first and a comment: the places follow the file, not the device order;
	 * the first stuck device (0) still gives the error's place */
	assert_rejected_as(
	        PP_ERR_SIM,
	        "# device 1 first\ndevice,op,microbatch,stage\n"
	        "1,F,1,1\n1,F,0,1\n1,BW,0,1\n1,BW,1,1\n"
	        "0,F,0,0\n0,BW,0,0\n0,F,1,0\n0,BW,1,0\n",
	        ":8:1: cyclic wait after 1 of 8 ops: device 0 waits in BW(mb 0, stage 0) at line 8 "
	        "for BW(mb 0, stage 1) from device 1; device 1 waits in F(mb 1, stage 1) at line 3 "
	        "for F(mb 1, stage 0) from device 0; cycle: device 0 -> device 1 -> device 0",
	        8, 1);
}

static void schedfile_rejects_more_chunks_per_device_than_the_limit(void)
{
	char want[64];

	/* stage 2048 on device 0 of p=2 is chunk 1024: 1025 chunks, one above PP_MAX_CHUNKS */
	snprintf(want, sizeof(want), ": %d chunks per device, above the limit of %d",
	         PP_MAX_CHUNKS + 1, PP_MAX_CHUNKS);
	assert_rejected("device,stage,op,microbatch\n0,2048,F,0\n1,1,F,0\n", want, 0, 0);
	/* the same with a chunk column */
	assert_rejected("device,chunk,op,microbatch\n0,1024,F,0\n1,0,F,0\n", want, 0, 0);
}

static void schedfile_reports_a_missing_file_as_an_io_error(void)
{
	char dir[] = "/tmp/ppsim-unit-XXXXXX", path[128], want[256];
	struct schedfile f;
	struct pp_error err = {0};

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/absent.csv", dir);
	CU_ASSERT_EQUAL(schedfile_read(path, PP_MAX_OPS, &f, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_IO);
	snprintf(want, sizeof(want), "cannot read '%s': No such file or directory", path);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	CU_ASSERT_PTR_NULL(f.sched);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
}

static void schedfile_release_leaves_an_empty_struct(void)
{
	struct schedfile f = {NULL, NULL, NULL, NULL, SCHEDFILE_PPSIM, 0, 0};

	schedfile_release(&f);
	CU_ASSERT_PTR_NULL(f.sched);
	CU_ASSERT_PTR_NULL(f.lines);
}

/* The text schedfile_write gives for s in format fmt; the caller frees it. */
static char *written(const struct sched *s, enum schedfile_format fmt)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(schedfile_write(out, s, fmt), 0);
	CU_ASSERT_EQUAL(fclose(out), 0);
	return text;
}

/*
 * Writes the schedule of generator name for (p, v, m) in format fmt, reads it back and checks
 * that the shape, the flags and every device's op order (with the overlap flags) survive, and
 * that simulating the file gives the generated schedule's makespan.
 */
static void assert_round_trip(const char *name, int p, int v, int m, enum schedfile_format fmt)
{
	char dir[] = "/tmp/ppsim-unit-XXXXXX", path[128];
	struct config c;
	struct pp_error err = {0};
	struct sim *gen, *file;
	struct schedfile f;
	FILE *out;
	const struct sched *g;

	config_init(&c);
	strcpy(c.schedule, name);
	c.p = p;
	c.v = v;
	c.m = m;
	c.t_b = 2;
	gen = sim_run(&c, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(gen);
	g = gen->sched;
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s.csv", dir);
	out = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(schedfile_write(out, g, fmt), 0);
	CU_ASSERT_EQUAL(fclose(out), 0);
	CU_ASSERT_EQUAL_FATAL(schedfile_read(path, PP_MAX_OPS, &f, &err), 0);
	CU_ASSERT_EQUAL(f.format, fmt);
	CU_ASSERT_EQUAL(f.sched->p, g->p);
	CU_ASSERT_EQUAL(f.sched->v, g->v);
	CU_ASSERT_EQUAL(f.sched->m, g->m);
	CU_ASSERT_EQUAL(f.sched->placement, g->placement);
	CU_ASSERT_EQUAL(f.sched->split, g->split);
	CU_ASSERT_EQUAL(f.sched->mixed, g->mixed);
	CU_ASSERT_EQUAL(f.sched->overlap, g->overlap);
	CU_ASSERT_TRUE(unit_same_ops(f.sched, g));
	CU_ASSERT_PTR_NULL(f.sched->desc);
	schedfile_release(&f);
	/* the same file simulated as --schedule-file */
	config_init(&c);
	c.t_b = 2;
	strcpy(c.schedule_file, path);
	file = sim_run(&c, &err);
	if (file == NULL)
		fprintf(stderr, "%s in %s format: %s\n", name, schedfile_format_names[fmt],
		        err.msg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(file);
	CU_ASSERT_EQUAL(file->result->makespan, gen->result->makespan);
	ASSERT_NEAR(file->metrics.makespan, gen->metrics.makespan);
	CU_ASSERT_EQUAL(file->result->messages, gen->result->messages);
	sim_free(file);
	sim_free(gen);
	CU_ASSERT_EQUAL(unlink(path), 0);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
}

static void schedfile_round_trips_interleaved_and_dualpipev_in_every_format(void)
{
	static const enum schedfile_format fmts[] = {SCHEDFILE_PPSIM, SCHEDFILE_TORCH,
	                                             SCHEDFILE_TORCH_COMMS};

	for (size_t i = 0; i < 3; i++) {
		assert_round_trip("1f1b", 4, 1, 8, fmts[i]);
		assert_round_trip("interleaved", 4, 2, 8, fmts[i]);
		assert_round_trip("dualpipev", 4, 2, 10, fmts[i]);
		assert_round_trip("zbv", 4, 2, 8, fmts[i]);
		assert_round_trip("loopedbfs", 3, 2, 5, fmts[i]);
		assert_round_trip("zbh2", 4, 1, 8, fmts[i]);
	}
}

static void schedfile_writes_dualpipev_p4_m10_rank_0_as_pytorch_s_artifact_row(void)
{
	struct sched *s = sched_new(sched_find("dualpipev"), &(struct sched_params){4, 2, 10, 0});
	char *text = written(s, SCHEDFILE_TORCH);
	char *nl = strchr(text, '\n');

	/* test/distributed/pipelining/artifacts/dualpipev_4rank_10mb.csv, rank 0 (research
	 * notes 3.2) */
	CU_ASSERT_PTR_NOT_NULL_FATAL(nl);
	*nl = '\0';
	CU_ASSERT_STRING_EQUAL(
	        text,
	        "0F0,0F1,0F2,0F3,0F4,0F5,0F6,7F0,7I0,7W0,7F1,7I1,7W1,7F2,7I2,7W2,7F3,(0F7;7B3)"
	        "OVERLAP_F_B,(7F4;0B0)OVERLAP_F_B,(0F8;7B4)OVERLAP_F_B,(7F5;0B1)OVERLAP_F_B,(0F9;"
	        "7B5)"
	        "OVERLAP_F_B,(7F6;0B2)OVERLAP_F_B,7B6,(7F7;0B3)OVERLAP_F_B,7B7,(7F8;0B4)OVERLAP_F_"
	        "B,"
	        "7B8,(7F9;0B5)OVERLAP_F_B,7B9,0I6,0W6,0I7,0W7,0I8,0W8,0I9,0W9");
	/* four rows, one per rank */
	*nl = '\n';
	{
		int rows = 0;

		for (const char *p = text; *p; p++)
			rows += *p == '\n';
		CU_ASSERT_EQUAL(rows, 4);
	}
	CU_ASSERT_EQUAL(strncmp(strchr(strchr(strchr(text, '\n') + 1, '\n') + 1, '\n') + 1,
	                        "3F0,4F0,3F1,4F1,3F2,4F2,3F3,4F3,3F4,4B0,(4F4;3B0)OVERLAP_F_B,",
	                        60),
	                0);
	free(text);
	sched_free(s);
}

static void schedfile_writes_a_small_dualpipev_in_both_formats_exactly(void)
{
	struct sched *s = sched_new(sched_find("dualpipev"), &(struct sched_params){2, 2, 4, 0});
	char *text = written(s, SCHEDFILE_TORCH);
	size_t counts[1] = {4};
	struct sched *t = sched_alloc_counts(1, 1, 2, false, PLACE_LOOP, counts);

	CU_ASSERT_STRING_EQUAL(
	        text,
	        "0F0,0F1,0F2,3F0,3I0,3W0,3F1,(0F3;3B1)OVERLAP_F_B,(3F2;0B0)OVERLAP_F_B,3B2,(3F3;"
	        "0B1)OVERLAP_F_B,3B3,0I2,0W2,0I3,0W3\n"
	        "1F0,2F0,1F1,2F1,1F2,2B0,(2F2;1B0)OVERLAP_F_B,(1F3;2B1)OVERLAP_F_B,(2F3;1B1)"
	        "OVERLAP_F_B,2B2,1B2,2I3,1I3,2W3,1W3\n");
	free(text);
	/* ppsim's format gains an overlap column when some op has the flag */
	sched_push(t, 0, OP_F, 0, 0);
	sched_push_pair(t, 0, 1, 0, OP_BW, 0, 0);
	sched_push(t, 0, OP_BW, 1, 0);
	text = written(t, SCHEDFILE_PPSIM);
	CU_ASSERT_STRING_EQUAL(text, "device,chunk,stage,op,microbatch,overlap\n"
	                             "0,0,0,F,0,0\n0,0,0,F,1,1\n0,0,0,BW,0,0\n0,0,0,BW,1,0\n");
	free(text);
	sched_free(t);
	sched_free(s);
	s = sched_new(sched_find("zbv"), &(struct sched_params){1, 2, 1, 0});
	text = written(s, SCHEDFILE_PPSIM);
	CU_ASSERT_STRING_EQUAL(text, "device,chunk,stage,op,microbatch\n"
	                             "0,0,0,F,0\n0,1,1,F,0\n0,1,1,B,0\n0,1,1,W,0\n0,0,0,B,0\n"
	                             "0,0,0,W,0\n");
	free(text);
	sched_free(s);
}

static void schedfile_reads_pytorch_rows_with_idle_cells_and_crlf_line_ends(void)
{
	char path[128];
	struct schedfile f;
	struct pp_error err = {0};
	struct sched *want = sched_new(sched_find("loopedbfs"), &(struct sched_params){2, 2, 2, 0});

	/* research notes 5.4: the exact bytes of PyTorch's LoopedBFS p=2, v=2, m=2 dump */
	CU_ASSERT_EQUAL_FATAL(read_text("0F0,0F1,2F0,2F1,,,2B1,2B0,0B1,0B0\r\n"
	                                ",1F0,1F1,3F0,3F1,3B1,3B0,1B1,1B0\r\n",
	                                &f, &err, path),
	                      0);
	CU_ASSERT_EQUAL(f.format, SCHEDFILE_TORCH);
	CU_ASSERT_EQUAL(f.sched->p, 2);
	CU_ASSERT_EQUAL(f.sched->v, 2);
	CU_ASSERT_EQUAL(f.sched->m, 2);
	CU_ASSERT_FALSE(f.sched->split);
	CU_ASSERT_EQUAL(f.sched->placement, PLACE_LOOP);
	CU_ASSERT_TRUE(unit_same_ops(f.sched, want));
	/* each op's place is its line, column and cell: rank 0's 2B1 is cell 7 at column 19,
	 * rank 1's 1F0 cell 2 at column 2 */
	CU_ASSERT_EQUAL(f.lines[4], 1);
	CU_ASSERT_EQUAL(f.columns[4], 19);
	CU_ASSERT_EQUAL(f.cells[4], 7);
	CU_ASSERT_EQUAL(f.lines[f.sched->dev_start[1]], 2);
	CU_ASSERT_EQUAL(f.columns[f.sched->dev_start[1]], 2);
	CU_ASSERT_EQUAL(f.cells[f.sched->dev_start[1]], 2);
	schedfile_release(&f);
	sched_free(want);
}

static void schedfile_reads_an_overlapped_pair_in_either_format(void)
{
	static const char *const texts[] = {
	        "0F0,(0F1;0B0)OVERLAP_F_B, 0B1 \n",
	        "device,stage,op,microbatch,overlap\n0,0,F,0,0\n0,0,F,1,1\n0,0,BW,0,0\n0,0,BW,1,"
	        "0\n",
	};

	for (size_t i = 0; i < 2; i++) {
		char path[128];
		struct schedfile f;
		struct pp_error err = {0};

		CU_ASSERT_EQUAL_FATAL(read_text(texts[i], &f, &err, path), 0);
		CU_ASSERT_EQUAL(f.format, i == 0 ? SCHEDFILE_TORCH : SCHEDFILE_PPSIM);
		CU_ASSERT_TRUE(f.sched->overlap);
		CU_ASSERT_FALSE(f.sched->split);
		CU_ASSERT_EQUAL_FATAL(f.sched->nops, 4);
		CU_ASSERT_EQUAL(f.sched->ops[1].kind, OP_F);
		CU_ASSERT_EQUAL(f.sched->ops[1].mb, 1);
		CU_ASSERT_EQUAL(f.sched->ops[1].flags, OP_OVERLAP);
		CU_ASSERT_EQUAL(f.sched->ops[2].kind, OP_BW);
		CU_ASSERT_EQUAL(f.sched->ops[2].flags, 0);
		CU_ASSERT_EQUAL(f.sched->ops[0].flags | f.sched->ops[3].flags, 0);
		schedfile_release(&f);
	}
}

static void schedfile_rejects_an_overlap_value_other_than_0_or_1_at_its_column(void)
{
	assert_rejected("device,stage,op,microbatch,overlap\n0,0,F,0,2\n",
	                ":2:9: overlap \"2\": must be 0 or 1", 2, 9);
}

/* What an unknown PyTorch action's error says after "unknown action ". */
#define UNKNOWN_ACTION                                                                             \
	"(a compute action is STAGE, then F, I, B or W, then a micro-batch, such as 2F0; a "       \
	"transfer STAGE, then SEND_F, RECV_F, SEND_B or RECV_B, then a micro-batch, such as "      \
	"0SEND_F0; or STAGE, then UNSHARD, RESHARD or REDUCE_GRAD)"

static void schedfile_rejects_an_unknown_pytorch_action_naming_line_column_and_cell(void)
{
	assert_rejected("0F0,0F1,0B0,0B1\n1F0,1B0,1X0\n",
	                ":2:9: rank 1, cell 3 '1X0': unknown action " UNKNOWN_ACTION, 2, 9);
	/* PyTorch's old "BW" letters are not read as a full backward without a micro-batch */
	assert_rejected("0F0,2BW0\n", ":1:5: rank 0, cell 2 '2BW0': unknown action " UNKNOWN_ACTION, 1, 5);
	/* a transfer is read, and checked: a single stage sends nothing */
	assert_rejected("0F0,0SEND_F0,0B0\n",
	                ":1:5: rank 0, cell 2 '0SEND_F0': no transfer there (stage 0 is the last stage)", 1,
	                5);
}

static void schedfile_rejects_a_bad_pytorch_compound_naming_line_column_and_cell(void)
{
	assert_rejected("0F0,(0F1;0B0)OVERLAP\n",
	                ":1:5: rank 0, cell 2 '(0F1;0B0)OVERLAP': a compound cell is (F;B)OVERLAP_F_B", 1,
	                5);
	assert_rejected("0F0,(0F1)OVERLAP_F_B\n",
	                ":1:5: rank 0, cell 2 '(0F1)OVERLAP_F_B': a compound cell is (F;B)OVERLAP_F_B", 1,
	                5);
	/* a pair is a forward, then a backward (full B or input-gradient I), never a W */
	assert_rejected("(0B0;1F0)OVERLAP_F_B\n",
	                ":1:1: rank 0, cell 1 '(0B0;1F0)OVERLAP_F_B': an overlapped pair is a forward then "
	                "a backward (B or I), such as (0F7;7B3)OVERLAP_F_B",
	                1, 1);
	assert_rejected("0F0,0F1,(0F2;0W0)OVERLAP_F_B\n",
	                ":1:9: rank 0, cell 3 '(0F2;0W0)OVERLAP_F_B': an overlapped pair is a forward then "
	                "a backward (B or I), such as (0F7;7B3)OVERLAP_F_B",
	                1, 9);
}

static void schedfile_rejects_a_pytorch_file_missing_an_op_naming_its_device_s_line(void)
{
	assert_rejected("0F0,0F1,0B0\n1F0,1B0,1F1,1B1\n",
	                ":1:1: rank 0's ops: BW(mb 1, stage 0): missing (device 0 never runs it)",
	                1, 1);
}

static void schedfile_rejects_a_cyclic_pytorch_order_naming_each_stuck_op_s_line_and_cell(void)
{
	/* placed at device 0's waiting 0B0, cell 2 of line 1 at column 5 */
	assert_rejected_as(
	        PP_ERR_SIM, "0F0,0B0,0F1,0B1\n1F1,1F0,1B0,1B1\n",
	        ":1:5: cyclic wait after 1 of 8 ops: device 0 waits in BW(mb 0, stage 0) at line "
	        "1, "
	        "column 5 (cell 2 '0B0') for BW(mb 0, stage 1) from device 1; device 1 waits in "
	        "F(mb 1, stage 1) at line 2, column 1 (cell 1 '1F1') for F(mb 1, stage 0) from "
	        "device 0; cycle: device 0 -> device 1 -> device 0",
	        1, 5);
	/* an idle cell and a blank count: device 1 waits in the F of an overlapped pair, cell 3
	 * at column 7, named as written */
	assert_rejected_as(
	        PP_ERR_SIM, "0F0,0B0,0F1,0B1\n,1F0, (1F1;1B0)OVERLAP_F_B,1B1\n",
	        ":1:5: cyclic wait after 2 of 8 ops: device 0 waits in BW(mb 0, stage 0) at line "
	        "1, "
	        "column 5 (cell 2 '0B0') for BW(mb 0, stage 1) from device 1; device 1 waits in "
	        "F(mb 1, stage 1) at line 2, column 7 (cell 3 '(1F1;1B0)OVERLAP_F_B') for F(mb 1, "
	        "stage 0) from device 0; cycle: device 0 -> device 1 -> device 0",
	        1, 5);
}

static void schedfile_rejects_pytorch_cell_faults_naming_line_column_cell_and_text(void)
{
	/* an op twice: the second 0F0 is cell 2 at column 5 */
	assert_rejected("0F0,0F0,0B0\n1F0,1B0\n",
	                ":1:5: rank 0, cell 2 '0F0': F(mb 0, stage 0) on device 0: appears twice (also "
	                "at line 1, column 1, cell 1 '0F0')",
	                1, 5);
	/* an F an overlapped pair already ran: cell 4, at column 31 after the pair and a blank */
	assert_rejected("0F0,0B0, (0F1;0B1)OVERLAP_F_B,0F1\n1F0,1B0,1F1,1B1\n",
	                ":1:31: rank 0, cell 4 '0F1': F(mb 1, stage 0) on device 0: appears twice "
	                "(also at line 1, column 10, cell 3 '(0F1;0B1)OVERLAP_F_B')",
	                1, 31);
	/* a pair whose F ran before: the pair's cell, its text as written */
	assert_rejected("0F1,0F0,(0F1;0B0)OVERLAP_F_B,0B1\n1F0,1B0,1F1,1B1\n",
	                ":1:9: rank 0, cell 3 '(0F1;0B0)OVERLAP_F_B': F(mb 1, stage 0) on device 0: "
	                "appears twice (also at line 1, column 1, cell 1 '0F1')",
	                1, 9);
	/* stage 0 on device 1, after a blank: cell 2 at column 6 */
	assert_rejected("0F0,0B0\n1F0, 0B0,1B0\n",
	                ":2:6: rank 1, cell 2 '0B0': BW(mb 0, stage 0) on rank 1: stage 0 does not sit "
	                "on rank 1 under the loop placement that the other ops follow (stage c*p + d)",
	                2, 6);
	/* a full backward and an input-gradient one for the same micro-batch */
	assert_rejected("0F0,0B0,0I0,0W0\n1F0,1B0\n",
	                ":1:9: rank 0, cell 3 '0I0': B(mb 0, stage 0) on device 0: its backward appears "
	                "both fused and split (also at line 1, column 5, cell 2 '0B0')",
	                1, 9);
}

/* 1F1B, p=2, m=2, as PyTorch's _add_send_recv lowers it: each SEND after its producer, each
 * RECV where the ranks, taking turns, reach its producer. */
static const char comms_1f1b[] = "0F0,0SEND_F0,0F1,0SEND_F1,0RECV_B0,0B0,0RECV_B1,0B1\n"
                                 "1RECV_F0,1F0,1RECV_F1,1B0,1SEND_B0,1F1,1B1,1SEND_B1\n";

static void schedfile_reads_a_compute_comms_file_as_its_compute_only_twin(void)
{
	char path[128];
	struct schedfile f, twin;
	struct pp_error err = {0};

	CU_ASSERT_EQUAL_FATAL(read_text(comms_1f1b, &f, &err, path), 0);
	CU_ASSERT_EQUAL_FATAL(read_text("0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n", &twin, &err, path),
	                      0);
	CU_ASSERT_EQUAL(f.format, SCHEDFILE_TORCH_COMMS);
	CU_ASSERT_EQUAL(twin.format, SCHEDFILE_TORCH);
	CU_ASSERT_EQUAL(f.transfers, 8);
	CU_ASSERT_EQUAL(f.zero_cost, 0);
	CU_ASSERT_TRUE(same_schedule(f.sched, twin.sched));
	/* each op keeps its own cell: rank 0's 0B0 is cell 6 at column 36 */
	CU_ASSERT_EQUAL(f.cells[2], 6);
	CU_ASSERT_EQUAL(f.columns[2], 36);
	schedfile_release(&f);
	schedfile_release(&twin);
}

static void schedfile_writes_1f1b_as_pytorch_s_compute_comms_lowering(void)
{
	struct sched *s = sched_new(sched_find("1f1b"), &(struct sched_params){2, 1, 2, 0});
	char *text;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	text = written(s, SCHEDFILE_TORCH_COMMS);
	CU_ASSERT_STRING_EQUAL(text, comms_1f1b);
	free(text);
	sched_free(s);
}

static void schedfile_writes_no_transfer_between_stages_on_one_device(void)
{
	/* ZB-V, p=2: stages 1 and 2 are both on device 1, so 1F0 feeds 2F0 with no SEND_F or
	 * RECV_F, and 2I0 feeds 1I0 with no SEND_B or RECV_B */
	struct sched *s = sched_new(sched_find("zbv"), &(struct sched_params){2, 2, 2, 0});
	char *text;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	text = written(s, SCHEDFILE_TORCH_COMMS);
	CU_ASSERT_PTR_NULL(strstr(text, "1SEND_F"));
	CU_ASSERT_PTR_NULL(strstr(text, "2RECV_F"));
	CU_ASSERT_PTR_NULL(strstr(text, "2SEND_B"));
	CU_ASSERT_PTR_NULL(strstr(text, "1RECV_B"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "0F0,0SEND_F0,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "1RECV_F0,1F0,"));
	free(text);
	sched_free(s);
}

static void schedfile_accepts_unshard_reshard_and_reduce_grad_at_zero_cost(void)
{
	char path[128];
	struct schedfile f;
	struct pp_error err = {0};

	/* a single stage ending in REDUCE_GRAD, as PyTorch's runtime dumps it */
	CU_ASSERT_EQUAL_FATAL(
	        read_text("0UNSHARD,0F0,0F1,0I0,0W0,0B1,0RESHARD,0REDUCE_GRAD\n", &f, &err, path),
	        0);
	/* no SEND or RECV: a compute-only order, its FSDP actions counted */
	CU_ASSERT_EQUAL(f.format, SCHEDFILE_TORCH);
	CU_ASSERT_EQUAL(f.zero_cost, 3);
	CU_ASSERT_EQUAL(f.transfers, 0);
	CU_ASSERT_EQUAL(f.sched->nops, 5);
	CU_ASSERT_TRUE(f.sched->mixed);
	schedfile_release(&f);
	CU_ASSERT_EQUAL_FATAL(read_text("0F0,0B0,0REDUCE_GRAD\n", &f, &err, path), 0);
	CU_ASSERT_EQUAL(f.zero_cost, 1);
	CU_ASSERT_EQUAL(f.sched->nops, 2);
	schedfile_release(&f);
	/* FSDP actions take no micro-batch, and sit on their stage's rank */
	assert_rejected("0F0,0B0,0UNSHARD0\n",
	                ":1:9: rank 0, cell 3 '0UNSHARD0': unknown action " UNKNOWN_ACTION, 1, 9);
	assert_rejected("0F0,0SEND_F0,0RECV_B0,0B0,1RESHARD\n1RECV_F0,1F0,1B0,1SEND_B0\n",
	                ":1:27: rank 0, cell 5 '1RESHARD': stage 1 is on rank 1, not rank 0", 1, 27);
}

static void schedfile_rejects_a_mismatched_send_or_recv_naming_its_cell(void)
{
	/* a SEND_B without its RECV_B on rank 0 */
	assert_rejected("0F0,0SEND_F0,0B0\n1RECV_F0,1F0,1B0,1SEND_B0\n",
	                ":2:18: rank 1, cell 4 '1SEND_B0': has no 0RECV_B0 on rank 0", 2, 18);
	/* a RECV_F without its SEND_F */
	assert_rejected("0F0,0RECV_B0,0B0\n1RECV_F0,1F0,1B0,1SEND_B0\n",
	                ":2:1: rank 1, cell 1 '1RECV_F0': has no 0SEND_F0 on rank 0", 2, 1);
	/* neither half: the producer is named */
	assert_rejected("0F0,0RECV_B0,0B0\n1F0,1B0,1SEND_B0\n",
	                ":1:1: rank 0, cell 1 '0F0': no 0SEND_F0 after it: a compute_comms file lists "
	                "every transfer across ranks, and stage 1 is on rank 1",
	                1, 1);
	/* a SEND before its producer, a RECV after its consumer */
	assert_rejected("0SEND_F0,0F0,0RECV_B0,0B0\n1RECV_F0,1F0,1B0,1SEND_B0\n",
	                ":1:1: rank 0, cell 1 '0SEND_F0': comes before F(mb 0, stage 0), whose output it "
	                "sends",
	                1, 1);
	assert_rejected("0F0,0SEND_F0,0RECV_B0,0B0\n1F0,1RECV_F0,1B0,1SEND_B0\n",
	                ":2:5: rank 1, cell 2 '1RECV_F0': comes after F(mb 0, stage 1), whose input it "
	                "receives",
	                2, 5);
	/* no transfer leaves the first stage backwards, or joins stages on one rank */
	assert_rejected("0F0,0SEND_F0,0RECV_B0,0B0,0SEND_B0\n1RECV_F0,1F0,1B0,1SEND_B0\n",
	                ":1:27: rank 0, cell 5 '0SEND_B0': no transfer there (stage 0 is the first stage)",
	                1, 27);
	assert_rejected("0F0,0SEND_F0,1RECV_F0,1F0,1B0,0B0\n",
	                ":1:5: rank 0, cell 2 '0SEND_F0': no transfer there (stages 0 and 1 are both on "
	                "rank 0)",
	                1, 5);
	/* twice, on the wrong rank, of no such micro-batch */
	assert_rejected("0F0,0SEND_F0,0RECV_B0,0B0\n1RECV_F0,1F0,1B0,1SEND_B0,1SEND_B0\n",
	                ":2:27: rank 1, cell 5 '1SEND_B0': 1SEND_B0 appears twice", 2, 27);
	assert_rejected("0F0,1SEND_F0,0RECV_B0,0B0\n1RECV_F0,1F0,1B0,1SEND_B0\n",
	                ":1:5: rank 0, cell 2 '1SEND_F0': stage 1 is on rank 1, not rank 0", 1, 5);
	assert_rejected(
	        "0F0,0SEND_F0,0RECV_B0,0B0\n1RECV_F1,1F0,1B0,1SEND_B0\n",
	        ":2:1: rank 1, cell 1 '1RECV_F1': micro-batch 1 does not exist (the schedule has 1)", 2, 1);
}

static void schedfile_format_find_knows_each_format_s_name_only(void)
{
	enum schedfile_format fmt = SCHEDFILE_PPSIM;

	CU_ASSERT_TRUE(schedfile_format_find("torch-comms", &fmt));
	CU_ASSERT_EQUAL(fmt, SCHEDFILE_TORCH_COMMS);

	CU_ASSERT_TRUE(schedfile_format_find("torch", &fmt));
	CU_ASSERT_EQUAL(fmt, SCHEDFILE_TORCH);
	CU_ASSERT_TRUE(schedfile_format_find("ppsim", &fmt));
	CU_ASSERT_EQUAL(fmt, SCHEDFILE_PPSIM);
	CU_ASSERT_FALSE(schedfile_format_find("Torch", &fmt));
	CU_ASSERT_FALSE(schedfile_format_find("csv", &fmt));
	CU_ASSERT_FALSE(schedfile_format_find("", &fmt));
	CU_ASSERT_EQUAL(fmt, SCHEDFILE_PPSIM);
}

static void schedfile_rejects_a_line_longer_than_the_cap_at_its_line(void)
{
	size_t n = strlen("device,stage,op,microbatch\n") + (1 << 20) + 2;
	char *text = malloc(n), path[128], msg[256];
	struct schedfile f;
	struct pp_error err = {0};

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	strcpy(text, "device,stage,op,microbatch\n");
	memset(text + strlen(text), '0', n - strlen(text));
	CU_ASSERT_EQUAL(read_bytes(text, n, &f, &err, path), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_EQUAL(err.line, 2);
	CU_ASSERT_EQUAL(err.column, 1048577);
	snprintf(msg, sizeof(msg),
	         "schedule '%s':2:1048577: a line longer than the limit of 1048576 bytes", path);
	CU_ASSERT_STRING_EQUAL(err.msg, msg);
	CU_ASSERT_PTR_NULL(f.sched);
	free(text);
}

static void schedfile_read_budget_is_40_bytes_a_max_op_and_never_below_the_default_s(void)
{
	CU_ASSERT_EQUAL(schedfile_read_budget(PP_MAX_OPS), UINT64_C(2000000000));
	/* a small cap reads any file within it: the default's memory */
	CU_ASSERT_EQUAL(schedfile_read_budget(1), UINT64_C(2000000000));
	CU_ASSERT_EQUAL(schedfile_read_budget(PP_MAX_OPS_CEILING), UINT64_C(40000000000));
	/* what an export's reader takes is what the registry charges it */
	for (int f = 0; f < SCHEDFILE_NFORMATS; f++) {
		const struct report_need *n = &report_output(REPORT_OUT_EXPORT + f)->need;

		CU_ASSERT_EQUAL(n->read_op, SCHEDFILE_READ_OP);
		CU_ASSERT_EQUAL(n->read_msg,
		                f == SCHEDFILE_TORCH_COMMS ? 2 * SCHEDFILE_READ_ACTION : 0);
	}
}

static void schedfile_build_checks_rows_as_a_file_naming_each_row_s_file(void)
{
	const char *paths[] = {"a.json", "b.json"};
	/* 1F1B, p = 2, m = 1, each device's rows from its own file */
	struct schedfile_row rows[] = {{0, 0, 0, OP_F, false, 0, 3, 1},
	                               {1, 1, 0, OP_F, false, 1, 4, 1},
	                               {1, 1, 0, OP_BW, false, 1, 5, 1},
	                               {0, 0, 0, OP_BW, false, 0, 6, 1}};
	struct schedfile f;
	struct pp_error err = {0};
	size_t *op_row = NULL;

	CU_ASSERT_EQUAL_FATAL(schedfile_build("trace", paths, 2, rows, 4, 100, &f, &op_row, &err), 0);
	CU_ASSERT_EQUAL(f.sched->p, 2);
	CU_ASSERT_EQUAL(f.sched->m, 1);
	CU_ASSERT_EQUAL(op_row[1], 3);
	CU_ASSERT_EQUAL(op_row[2], 1);
	free(op_row);
	schedfile_release(&f);
	/* an op twice, at its row's file and place */
	rows[3] = (struct schedfile_row){1, 1, 0, OP_F, false, 1, 9, 2};
	CU_ASSERT_EQUAL(schedfile_build("trace", paths, 2, rows, 4, 100, &f, NULL, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "trace 'b.json':9:2: F(mb 0, stage 1) on device 1: appears twice "
	                                "(also at line 4 of 'b.json')");
	/* an order that deadlocks: each device's backward first */
	rows[3] = (struct schedfile_row){0, 0, 0, OP_BW, false, 0, 6, 1};
	{
		struct schedfile_row stuck[] = {rows[3], rows[1], rows[2], rows[0]};

		stuck[1] = rows[2];
		stuck[2] = rows[1];
		CU_ASSERT_EQUAL(schedfile_build("trace", paths, 2, stuck, 4, 100, &f, NULL, &err), -1);
		CU_ASSERT_EQUAL(err.kind, PP_ERR_SIM);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "of 'b.json'"));
	}
}

static void schedfile_parse_action_reads_pytorch_s_actions(void)
{
	struct schedfile_action a;

	CU_ASSERT_EQUAL_FATAL(schedfile_parse_action("12I3", &a), 0);
	CU_ASSERT(a.type == SCHEDFILE_ACT_OP && a.stage == 12 && a.mb == 3 && a.kind == OP_B &&
	          !a.pair);
	CU_ASSERT_EQUAL_FATAL(schedfile_parse_action("(0F7;7B3)OVERLAP_F_B", &a), 0);
	CU_ASSERT(a.pair && a.kind == OP_F && a.mb == 7 && a.stage2 == 7 && a.mb2 == 3 &&
	          a.kind2 == OP_BW);
	CU_ASSERT_EQUAL(schedfile_parse_action("2SEND_B1", &a), 0);
	CU_ASSERT(a.type == SCHEDFILE_ACT_SEND_B && a.stage == 2 && a.mb == 1);
	CU_ASSERT_EQUAL(schedfile_parse_action("1RECV_F0", &a), 0);
	CU_ASSERT_EQUAL(a.type, SCHEDFILE_ACT_OTHER);
	CU_ASSERT_EQUAL(schedfile_parse_action("3UNSHARD", &a), 0);
	CU_ASSERT_EQUAL(a.type, SCHEDFILE_ACT_OTHER);
	CU_ASSERT_EQUAL(schedfile_parse_action("2X0", &a), -1);
	CU_ASSERT_EQUAL(schedfile_parse_action("(0W7;7B3)OVERLAP_F_B", &a), -1);
	CU_ASSERT_EQUAL(schedfile_parse_action("0F99999999999", &a), -2);
}

static const struct unit_test tests[] = {
        UNIT_TEST(schedfile_read_budget_is_40_bytes_a_max_op_and_never_below_the_default_s),
        UNIT_TEST(schedfile_rejects_a_line_longer_than_the_cap_at_its_line),
        UNIT_TEST(schedfile_reads_the_dump_of_each_generator_back_to_the_same_order),
        UNIT_TEST(schedfile_reads_what_report_ops_csv_writes_back_to_the_same_order),
        UNIT_TEST(schedfile_reads_a_stage_only_file),
        UNIT_TEST(schedfile_reads_a_chunk_only_file_with_looped_stages),
        UNIT_TEST(schedfile_infers_v_placement_from_stage_3_on_device_0),
        UNIT_TEST(schedfile_infers_split_backward_from_b_and_w_ops),
        UNIT_TEST(schedfile_maps_each_op_to_its_file_line),
        UNIT_TEST(schedfile_rejects_an_unknown_column_at_its_column),
        UNIT_TEST(schedfile_rejects_a_duplicate_column_at_its_second_occurrence),
        UNIT_TEST(schedfile_rejects_a_header_missing_a_required_column),
        UNIT_TEST(schedfile_rejects_an_unknown_op_name_at_its_column),
        UNIT_TEST(schedfile_rejects_a_negative_or_non_numeric_index_at_its_column),
        UNIT_TEST(schedfile_rejects_a_line_with_the_wrong_number_of_fields),
        UNIT_TEST(schedfile_rejects_a_nul_byte_at_its_column),
        UNIT_TEST(schedfile_rejects_an_empty_file_and_a_file_of_comments),
        UNIT_TEST(schedfile_rejects_a_header_without_ops),
        UNIT_TEST(schedfile_rejects_a_duplicate_op_at_the_line_of_its_second_occurrence),
        UNIT_TEST(schedfile_reads_fused_and_split_backwards_side_by_side_as_a_mixed_schedule),
        UNIT_TEST(schedfile_rejects_a_backward_given_both_fused_and_split_at_its_second_form),
        UNIT_TEST(schedfile_rejects_an_op_on_a_device_that_does_not_host_its_stage),
        UNIT_TEST(schedfile_rejects_a_missing_op_naming_it),
        UNIT_TEST(schedfile_rejects_a_cyclic_wait_naming_each_stuck_op_s_line),
        UNIT_TEST(schedfile_rejects_more_chunks_per_device_than_the_limit),
        UNIT_TEST(schedfile_reports_a_missing_file_as_an_io_error),
        UNIT_TEST(schedfile_release_leaves_an_empty_struct),
        UNIT_TEST(schedfile_round_trips_interleaved_and_dualpipev_in_every_format),
        UNIT_TEST(schedfile_writes_dualpipev_p4_m10_rank_0_as_pytorch_s_artifact_row),
        UNIT_TEST(schedfile_writes_a_small_dualpipev_in_both_formats_exactly),
        UNIT_TEST(schedfile_reads_pytorch_rows_with_idle_cells_and_crlf_line_ends),
        UNIT_TEST(schedfile_reads_an_overlapped_pair_in_either_format),
        UNIT_TEST(schedfile_rejects_an_overlap_value_other_than_0_or_1_at_its_column),
        UNIT_TEST(schedfile_rejects_an_unknown_pytorch_action_naming_line_column_and_cell),
        UNIT_TEST(schedfile_rejects_a_bad_pytorch_compound_naming_line_column_and_cell),
        UNIT_TEST(schedfile_rejects_a_pytorch_file_missing_an_op_naming_its_device_s_line),
        UNIT_TEST(schedfile_rejects_a_cyclic_pytorch_order_naming_each_stuck_op_s_line_and_cell),
        UNIT_TEST(schedfile_rejects_pytorch_cell_faults_naming_line_column_cell_and_text),
        UNIT_TEST(schedfile_reads_a_compute_comms_file_as_its_compute_only_twin),
        UNIT_TEST(schedfile_writes_1f1b_as_pytorch_s_compute_comms_lowering),
        UNIT_TEST(schedfile_writes_no_transfer_between_stages_on_one_device),
        UNIT_TEST(schedfile_accepts_unshard_reshard_and_reduce_grad_at_zero_cost),
        UNIT_TEST(schedfile_rejects_a_mismatched_send_or_recv_naming_its_cell),
        UNIT_TEST(schedfile_format_find_knows_each_format_s_name_only),
        UNIT_TEST(schedfile_build_checks_rows_as_a_file_naming_each_row_s_file),
        UNIT_TEST(schedfile_parse_action_reads_pytorch_s_actions),
        {NULL, NULL},
};

const struct unit_suite suite_schedfile = {"schedfile", tests};
