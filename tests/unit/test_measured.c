/*
 * Unit tests of measured.c: reading a measured step from a trace (PyTorch's PP: ranges,
 * ppsim's slices, one file or one per device, plain or gzip) or a per-op CSV, the refusals,
 * and the what-ifs' inputs (the step without its slowest device, its schedule, its fit); and
 * the round trip of acceptance 3 of issue 38: ppsim's trace of a run, read back and simulated
 * with sim_run_perturbed, gives every op the times of the run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "ppsim/measured.h"
#include "ppsim/report.h"
#include "ppsim/sim.h"
#include "unit.h"

/* A fresh temporary directory for the files of a test, and its files' paths. */
struct files {
	char dir[64];
	char path[4][96];
	int n;
};

/* Writes texts[0..n-1] to files f0.NAME, f1.NAME... (gzip when gz) in a fresh directory. */
static void write_files(struct files *f, const char *const *texts, int n, const char *name, bool gz)
{
	char dir[sizeof(f->dir)] = "/tmp/ppsim-unit-XXXXXX";

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	memcpy(f->dir, dir, sizeof(dir));
	f->n = n;
	for (int k = 0; k < n; k++) {
		snprintf(f->path[k], sizeof(f->path[k]), "%s/f%d.%s", dir, k, name);
		if (gz) {
			gzFile z = gzopen(f->path[k], "wb");

			CU_ASSERT_PTR_NOT_NULL_FATAL(z);
			CU_ASSERT_EQUAL(gzputs(z, texts[k]), (int)strlen(texts[k]));
			CU_ASSERT_EQUAL(gzclose(z), Z_OK);
		} else {
			FILE *out = fopen(f->path[k], "w");

			CU_ASSERT_PTR_NOT_NULL_FATAL(out);
			CU_ASSERT(fputs(texts[k], out) >= 0);
			CU_ASSERT_EQUAL(fclose(out), 0);
		}
	}
}

static void remove_files(struct files *f)
{
	for (int k = 0; k < f->n; k++)
		CU_ASSERT_EQUAL(unlink(f->path[k]), 0);
	CU_ASSERT_EQUAL(rmdir(f->dir), 0);
}

/* measured_read of the n texts as files; the paths stay in f for messages until removed. */
static int read_texts(struct files *f, const char *const *texts, int n, const char *name, bool gz,
                      struct measured *m, struct pp_error *err)
{
	const char *paths[4];

	write_files(f, texts, n, name, gz);
	for (int k = 0; k < n; k++)
		paths[k] = f->path[k];
	return measured_read(paths, n, PP_MAX_OPS, m, err);
}

/* The message of err after the file's name ("f0.json'"). */
static const char *after_name(const struct pp_error *err)
{
	const char *p = strstr(err->msg, ".json'");

	if (p == NULL)
		p = strstr(err->msg, ".csv'");
	return p != NULL ? strchr(p, '\'') + 1 : err->msg;
}

/* 1F1B on two devices, two micro-batches, in ms: device 0 runs 0F0 0F1 0B0 0B1, device 1 1F0
 * 1B0 1F1 1B1; messages of 0.25 ms. Events out of order in the file, with other events around. */
static const char torch_trace[] =
        "{\"schemaVersion\": 1, \"traceEvents\": [\n"
        "{\"name\":\"PP:1B0\",\"ph\":\"X\",\"cat\":\"user_annotation\",\"pid\":77,\"tid\":3,"
        "\"ts\":2250,\"dur\":2000},\n"
        "{\"name\":\"PP:0F0\",\"ph\":\"X\",\"pid\":12,\"tid\":1,\"ts\":0,\"dur\":1000},\n"
        "{\"name\":\"aten::mm\",\"ph\":\"X\",\"pid\":12,\"tid\":1,\"ts\":10,\"dur\":5},\n"
        "{\"name\":\"PP:0F1\",\"ph\":\"X\",\"pid\":12,\"tid\":1,\"ts\":1000,\"dur\":1000},\n"
        "{\"name\":\"PP:0SEND_F0\",\"ph\":\"X\",\"pid\":12,\"tid\":1,\"ts\":1000,\"dur\":250},\n"
        "{\"name\":\"PP:1RECV_F0\",\"ph\":\"X\",\"pid\":77,\"tid\":1,\"ts\":1000,\"dur\":250},\n"
        "{\"name\":\"PP:1F0\",\"ph\":\"X\",\"pid\":77,\"tid\":1,\"ts\":1250,\"dur\":1000},\n"
        "{\"name\":\"PP:0B0\",\"ph\":\"X\",\"pid\":12,\"tid\":1,\"ts\":4500,\"dur\":2000},\n"
        "{\"name\":\"PP:1SEND_B0\",\"ph\":\"X\",\"pid\":77,\"tid\":1,\"ts\":4250,\"dur\":250},\n"
        "{\"name\":\"PP:1F1\",\"ph\":\"X\",\"pid\":77,\"tid\":1,\"ts\":4250,\"dur\":1000},\n"
        "{\"name\":\"PP:1B1\",\"ph\":\"X\",\"pid\":77,\"tid\":1,\"ts\":5250,\"dur\":2000},\n"
        "{\"name\":\"PP:0B1\",\"ph\":\"X\",\"pid\":12,\"tid\":1,\"ts\":7500,\"dur\":2000},\n"
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":12}\n"
        "], \"deviceProperties\": []}\n";

/* The ops of device d of s as PyTorch's actions, space-separated, into buf. */
static const char *actions(const struct sched *s, int d, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = s->dev_start[d]; i < s->dev_start[d + 1] && len < n; i++) {
		char a[SCHEDFILE_ACTION_MAX];

		len += (size_t)snprintf(buf + len, n - len, "%s%s", len > 0 ? " " : "",
		                        schedfile_torch_action(s, i, a, sizeof(a)));
	}
	return buf;
}

static void measured_read_takes_a_torch_trace_s_order_times_and_messages(void)
{
	struct files f;
	struct measured m;
	struct pp_error err = {0};
	const char *texts[] = {torch_trace};
	char buf[128];

	CU_ASSERT_EQUAL_FATAL(read_texts(&f, texts, 1, "json", false, &m, &err), 0);
	CU_ASSERT_EQUAL(m.format, MEASURED_TRACE);
	CU_ASSERT_STRING_EQUAL(m.time_unit, "ms");
	CU_ASSERT_EQUAL(m.sched->p, 2);
	CU_ASSERT_EQUAL(m.sched->m, 2);
	/* the pids in increasing order are the devices; each device's ops by start */
	CU_ASSERT_STRING_EQUAL(actions(m.sched, 0, buf, sizeof(buf)), "0F0 0F1 0B0 0B1");
	CU_ASSERT_STRING_EQUAL(actions(m.sched, 1, buf, sizeof(buf)), "1F0 1B0 1F1 1B1");
	for (size_t i = 0; i < m.sched->nops; i++)
		ASSERT_NEAR(m.op[i], m.sched->ops[i].kind == OP_F ? 1 : 2);
	/* two transfers measured; the others take their mean */
	CU_ASSERT_EQUAL(m.nmsgs, 2);
	ASSERT_NEAR(m.msg_mean, 0.25);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.msg);
	for (size_t i = 0; i < m.sched->nops; i++)
		ASSERT_NEAR(m.msg[i], (m.sched->ops[i].kind == OP_F) == (m.sched->ops[i].stage == 0)
		                              ? 0.25
		                              : 0);
	ASSERT_NEAR(m.step, 9.5);
	measured_release(&m);
	remove_files(&f);
}

static void measured_read_takes_gzip_and_one_trace_per_device(void)
{
	const char *dev[] = {
	        "[{\"name\":\"PP:0F0\",\"ph\":\"X\",\"pid\":5,\"ts\":0,\"dur\":1000},"
	        "{\"name\":\"PP:0B0\",\"ph\":\"X\",\"pid\":5,\"ts\":3000,\"dur\":2000}]",
	        /* another pid, another clock: the file is the device */
	        "[{\"name\":\"PP:1F0\",\"ph\":\"X\",\"pid\":1,\"ts\":1000,\"dur\":1000},"
	        "{\"name\":\"PP:1B0\",\"ph\":\"X\",\"pid\":1,\"ts\":2000,\"dur\":1000}]"};
	struct files f;
	struct measured m;
	struct pp_error err = {0};
	char buf[64];

	CU_ASSERT_EQUAL_FATAL(read_texts(&f, dev, 2, "json.gz", true, &m, &err), 0);
	CU_ASSERT_EQUAL(m.sched->p, 2);
	CU_ASSERT_STRING_EQUAL(actions(m.sched, 0, buf, sizeof(buf)), "0F0 0B0");
	CU_ASSERT_STRING_EQUAL(actions(m.sched, 1, buf, sizeof(buf)), "1F0 1B0");
	ASSERT_NEAR(m.op[m.sched->dev_start[1] + 1], 1);
	CU_ASSERT_PTR_NULL(m.msg);
	ASSERT_NEAR(m.step, 5);
	measured_release(&m);
	remove_files(&f);
}

static void measured_read_keeps_only_gpu_annotations_when_the_trace_has_them(void)
{
	const char *texts[] = {
	        "{\"traceEvents\":[\n"
	        "{\"name\":\"PP:0F0\",\"ph\":\"X\",\"cat\":\"user_annotation\",\"pid\":900,"
	        "\"ts\":0,\"dur\":10},\n"
	        "{\"name\":\"PP:0B0\",\"ph\":\"X\",\"cat\":\"user_annotation\",\"pid\":900,"
	        "\"ts\":10,\"dur\":10},\n"
	        "{\"name\":\"PP:0F0\",\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"pid\":0,"
	        "\"ts\":5,\"dur\":3000},\n"
	        "{\"name\":\"PP:0B0\",\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"pid\":0,"
	        "\"ts\":3005,\"dur\":5000}\n"
	        "]}\n"};
	struct files f;
	struct measured m;
	struct pp_error err = {0};

	CU_ASSERT_EQUAL_FATAL(read_texts(&f, texts, 1, "json", false, &m, &err), 0);
	CU_ASSERT_EQUAL(m.sched->p, 1);
	ASSERT_NEAR(m.op[0], 3);
	ASSERT_NEAR(m.op[1], 5);
	ASSERT_NEAR(m.step, 8);
	measured_release(&m);
	remove_files(&f);
}

static void measured_read_takes_a_csv_of_ms_or_of_start_and_end(void)
{
	const char *texts[] = {"# one line an op\n"
	                       "stage,op,microbatch,ms,note\n"
	                       "0,F,0,1.5,a\n1,F,0,1,b\n1,bw,0,2,\n0,BW,0,3,\n0,comm,0,,\n"};
	const char *dump[] = {"device,chunk,stage,op,microbatch,start,end\n"
	                      "1,0,1,BW,0,2,4\n0,0,0,BW,0,4,6\n0,0,0,F,0,0,1\n1,0,1,F,0,1,2\n"
	                      "0,0,0,comm,0,0,0.5\n"};
	struct files f;
	struct measured m;
	struct pp_error err = {0};
	char buf[64];

	/* a comm line without its time is no line of times */
	CU_ASSERT_EQUAL(read_texts(&f, texts, 1, "csv", false, &m, &err), -1);
	CU_ASSERT_STRING_EQUAL(after_name(&err),
	                       ":7:10: the ms must be a number of ms from 0 to 1e+09");
	remove_files(&f);
	texts[0] = "stage,op,microbatch,ms,note\n0,F,0,1.5,a\n1,F,0,1,b\n1,bw,0,2,\n0,BW,0,3,\n";
	CU_ASSERT_EQUAL_FATAL(read_texts(&f, texts, 1, "csv", false, &m, &err), 0);
	CU_ASSERT_EQUAL(m.format, MEASURED_CSV);
	CU_ASSERT_TRUE(isnan(m.step));
	CU_ASSERT_STRING_EQUAL(actions(m.sched, 1, buf, sizeof(buf)), "1F0 1B0");
	ASSERT_NEAR(m.op[0], 1.5);
	ASSERT_NEAR(m.op[1], 3);
	measured_release(&m);
	remove_files(&f);
	/* start and end, as --dump-ops writes them: ordered by start; a comm line a message */
	CU_ASSERT_EQUAL_FATAL(read_texts(&f, dump, 1, "csv", false, &m, &err), 0);
	CU_ASSERT_STRING_EQUAL(actions(m.sched, 0, buf, sizeof(buf)), "0F0 0B0");
	ASSERT_NEAR(m.op[1], 2);
	ASSERT_NEAR(m.step, 6);
	ASSERT_NEAR(m.msg_mean, 0.5);
	measured_release(&m);
	remove_files(&f);
}

/* measured_read of text refuses it with the message after the file's name. */
static void refuses(const char *text, const char *name, const char *says, enum pp_errkind kind)
{
	struct files f;
	struct measured m;
	struct pp_error err = {0};
	const char *texts[] = {text};

	CU_ASSERT_EQUAL(read_texts(&f, texts, 1, name, false, &m, &err), -1);
	CU_ASSERT_EQUAL(err.kind, kind);
	if (strcmp(after_name(&err), says) != 0)
		fprintf(stderr, "\n%s\n  wanted %s\n", err.msg, says);
	CU_ASSERT_STRING_EQUAL(after_name(&err), says);
	CU_ASSERT_PTR_NULL(m.sched);
	remove_files(&f);
}

#define EV(name, pid, ts, dur)                                                                     \
	"{\"name\":\"" name "\",\"ph\":\"X\",\"pid\":" #pid ",\"ts\":" #ts ",\"dur\":" #dur "}"

/* A slice of ppsim's own names: its kind, micro-batch and stage in its arguments. */
#define SLICE(cat, kind, mb, ts, dur, overlapped)                                                  \
	"{\"name\":\"x\",\"cat\":\"" cat "\",\"ph\":\"X\",\"pid\":0,\"tid\":0,\"ts\":" #ts         \
	",\"dur\":" #dur ",\"args\":{\"kind\":\"" kind "\",\"microbatch\":" #mb                    \
	",\"stage\":0,\"chunk\":0,\"overlapped\":" overlapped "}}"

static void measured_read_takes_an_overlapped_pair_once_with_either_names(void)
{
	/* the pair (F1, BW0) is written as two slices of one span, ppsim's and PyTorch's alike */
	const char *ppsim[] = {
	        "{\"traceEvents\":[\n" SLICE("forward", "F", 0, 1, 1000, "false") ",\n" SLICE(
	                "forward", "F", 1, 1001, 1500,
	                "true") ",\n" SLICE("backward", "BW", 0, 1001, 1500,
	                                    "true") ",\n" SLICE("backward", "BW", 1, 2501, 2000,
	                                                        "false") "]}\n"};
	const char *torch[] = {"[" EV("PP:0F0", 3, 0, 1000) ",\n" EV(
	        "PP:(0F1;0B0)OVERLAP_F_B", 3, 1000,
	        1500) ",\n" EV("PP:(0F1;0B0)OVERLAP_F_B", 3, 1000, 1500) ",\n" EV("PP:0B1", 3, 2500,
	                                                                          2000) "]\n"};
	const char *alone[] = {"[" EV("PP:0F0", 3, 0, 1000) ",\n" SLICE("forward", "F", 1, 1001,
	                                                                1500, "true") "]"};

	for (int k = 0; k < 2; k++) {
		struct files f;
		struct measured m;
		struct pp_error err = {0};
		char buf[96];

		CU_ASSERT_EQUAL_FATAL(
		        read_texts(&f, k == 0 ? ppsim : torch, 1, "json", false, &m, &err), 0);
		CU_ASSERT_STRING_EQUAL(actions(m.sched, 0, buf, sizeof(buf)),
		                       "0F0 (0F1;0B0)OVERLAP_F_B (0F1;0B0)OVERLAP_F_B 0B1");
		CU_ASSERT_TRUE(m.sched->overlap);
		ASSERT_NEAR(m.op[1], 1.5);
		ASSERT_NEAR(m.op[2], 0);
		ASSERT_NEAR(m.step, 4.5);
		measured_release(&m);
		remove_files(&f);
	}
	refuses(alone[0], "json",
	        ":2:1: an overlapped F (\"overlapped\": true) without its backward at the same "
	        "time "
	        "after it on its device",
	        PP_ERR_CONFIG);
}

static void measured_read_refuses_a_bad_step_naming_its_line_and_column(void)
{
	refuses("{\"traceEvents\":[\n" EV("PP:0F0", 0, 0, 1) ",\n" EV("PP:0X0", 0, 1, 1) "]}",
	        "json",
	        ":3:1: range 'PP:0X0': unknown action (PyTorch's pipelining names its ranges PP: "
	        "then STAGE, F, I, B or W, and MICROBATCH, as PP:2F0; or a transfer, as "
	        "PP:0SEND_F0)",
	        PP_ERR_CONFIG);
	refuses("[" EV("PP:0F0", 0, 0, 1) ",\n  " EV("PP:0B0", 0, 1, -1) "]", "json",
	        ":2:3: range 'PP:0B0': a negative duration (dur -1)", PP_ERR_CONFIG);
	refuses("[" EV("PP:0F0", 0, 0, 2) ",\n" EV("PP:0B0", 0, 1, 1) "]", "json",
	        ":2:1: this range starts at 1, before the range before it on its device (line 1) "
	        "ends at 2: a device runs one op at a time",
	        PP_ERR_CONFIG);
	refuses("[" EV("PP:0F0", 0, 0, 1) ",\n" EV("PP:0B0", 0, 1, 1) ",\n" EV("PP:0F0", 0, 2,
	                                                                       1) "]",
	        "json", ":3:1: F(mb 0, stage 0) on device 0: appears twice (also at line 1)", PP_ERR_CONFIG);
	refuses("[" EV("PP:0F0", 0, 0, 1) ",\n" EV("PP:0B0", 0, 1, 1) ",\n" EV("PP:0F1", 0, 2,
	                                                                       1) "]",
	        "json", ":1:1: device 0's ops: BW(mb 1, stage 0): missing (device 0 never runs it)",
	        PP_ERR_CONFIG);
	refuses("{\"traceEvents\":[" EV("PP:0F3", 0, 0, 1) ",\n" EV(
	                "PP:0B3", 0, 1, 1) "],\n"
	                                   "\"otherData\":{\"p\":1,\"v\":1,\"m\":2}}",
	        "json",
	        ":1:17: micro-batch 3 is out of range: the trace's otherData gives p=1, v=1, m=2 "
	        "(stages 0 to 0, micro-batches 0 to 1)",
	        PP_ERR_CONFIG);
	refuses("[" EV("PP:0F0", 0, 0, 1) ",\n" EV("PP:0SEND_F0", 0, 1, 1) ",\n" EV("PP:0B0", 0, 1,
	                                                                            1) "]",
	        "json",
	        ":2:1: a transfer of F(mb 0, stage 0), which sends no message to another device",
	        PP_ERR_CONFIG);
	refuses("{\"traceEvents\":[\n" EV("PP:0F0", 0, 0, 1) ",", "json",
	        ":2:51: invalid JSON: the file ends too soon", PP_ERR_CONFIG);
	refuses("{\"traceEvents\":{}}", "json", ":1:16: its traceEvents is not an array of events",
	        PP_ERR_CONFIG);
	refuses("{\"traceEvents\":[" EV("aten::mm", 0, 0, 1) "]}", "json",
	        ": no op of a pipeline step (ranges named PP:STAGE, F, I, B or W, MICROBATCH, as "
	        "PyTorch's pipelining records them, or ppsim's op slices)",
	        PP_ERR_CONFIG);
	refuses("stage,op,ms\n0,F,1\n", "csv",
	        ":1:1: a measured step's CSV needs columns op, microbatch, stage or device, and ms "
	        "(or start and end): one line per op",
	        PP_ERR_CONFIG);
	refuses("stage,op,microbatch,ms\n0,F,0,1\n0,BW,0,x\n", "csv",
	        ":3:8: the ms must be a number of ms from 0 to 1e+09", PP_ERR_CONFIG);
	refuses("device,op,microbatch,start,end\n0,F,0,1,0.5\n", "csv",
	        ":2:9: a negative time: -0.5 ms", PP_ERR_CONFIG);
	refuses("stage,op,microbatch,ms\n0,F,0,1\n0,BW,0,1", "csv",
	        ":3:9: the file ends in this line, without a newline: its last number may be cut "
	        "(end the file with a newline if it is whole)",
	        PP_ERR_CONFIG);
}

static void measured_without_slowest_takes_the_others_median_per_kind(void)
{
	/* 1F1B, p = 3, m = 1: F and BW of 1, 2 and 4 ms on devices 0, 1 and 2, device 2's BW of 8
	 */
	const char *texts[] = {"stage,op,microbatch,ms\n0,F,0,1\n1,F,0,2\n2,F,0,4\n2,BW,0,8\n"
	                       "1,BW,0,2\n0,BW,0,1\n"};
	struct files f;
	struct measured m;
	struct measured_slowest w;
	struct pp_error err = {0};
	double op[6];

	CU_ASSERT_EQUAL_FATAL(read_texts(&f, texts, 1, "csv", false, &m, &err), 0);
	CU_ASSERT_EQUAL_FATAL(measured_without_slowest(&m, op, &w, &err), 0);
	CU_ASSERT_EQUAL(w.device, 2);
	/* the median of 1 and 2 is 1.5: F x 1.5/4, BW x 1.5/8 */
	ASSERT_NEAR(w.factor[OP_F], 0.375);
	ASSERT_NEAR(w.factor[OP_BW], 0.1875);
	CU_ASSERT_TRUE(isnan(w.factor[OP_B]) && isnan(w.factor[OP_W]) && isnan(w.factor[4]));
	for (size_t i = 0; i < m.sched->nops; i++)
		ASSERT_NEAR(op[i], m.sched->ops[i].stage == 2 ? 1.5 : m.op[i]);
	measured_release(&m);
	remove_files(&f);
	texts[0] = "stage,op,microbatch,ms\n0,F,0,1\n0,BW,0,1\n";
	CU_ASSERT_EQUAL_FATAL(read_texts(&f, texts, 1, "csv", false, &m, &err), 0);
	CU_ASSERT_EQUAL(measured_without_slowest(&m, op, &w, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	measured_release(&m);
	remove_files(&f);
}

/* Writes run s's Chrome trace (names as given) to path. */
static void write_trace(const char *path, struct sim *s)
{
	FILE *out = fopen(path, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(report_trace(out, UNIT_DRAWING(s)), 0);
	CU_ASSERT_EQUAL(fclose(out), 0);
}

/* Acceptance 3 of issue 38: a run's trace, read back, replays every op at the run's times and
 * names the schedule the run took; the fit of its op times gives the run's costs. */
static void a_run_s_trace_read_back_replays_the_run_op_for_op(void)
{
	static const struct {
		const char *schedule;
		int p, v, m;
		double t_comm;
		const char *names, *comm;
	} runs[] = {
	        {"1f1b", 4, 1, 8, 0, "torch", "overlap"},
	        {"1f1b", 4, 1, 8, 0.3, "torch", "blocking"},
	        {"zbh1", 4, 1, 8, 0.25, "torch", "overlap"},
	        {"zbv", 3, 2, 6, 0.25, "ppsim", "overlap"},
	        {"interleaved", 2, 3, 4, 0.5, "torch", "overlap"},
	        {"dualpipev", 4, 2, 8, 0.2, "torch", "overlap"},
	        {"dualpipev", 4, 2, 8, 0.2, "ppsim", "overlap"},
	};
	char dir[] = "/tmp/ppsim-unit-XXXXXX", path[64];

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.json", dir);
	for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		struct config c = unit_config(runs[k].schedule, runs[k].p, runs[k].v, runs[k].m,
		                              1.5, 1, 0.75),
		              r;
		struct sim *s, *again;
		struct measured m;
		struct pp_error err = {0};
		const char *paths[] = {path};
		char tcomm[32];

		snprintf(tcomm, sizeof(tcomm), "%g", runs[k].t_comm);
		unit_set(&c, "t_comm", tcomm);
		unit_set(&c, "trace_names", runs[k].names);
		unit_set(&c, "comm", runs[k].comm);
		unit_set(&c, "stage_scale", "1,1.25,1,1");
		if (runs[k].p == 3)
			unit_set(&c, "stage_scale", "1,1.25,1");
		if (runs[k].p == 2)
			unit_set(&c, "stage_scale", "1,1.25");
		s = unit_run(&c, SIM_RECORD_MESSAGES);
		write_trace(path, s);
		CU_ASSERT_EQUAL_FATAL(measured_read(paths, 1, PP_MAX_OPS, &m, &err), 0);
		CU_ASSERT_PTR_NOT_NULL(measured_schedule(&m, &err));
		if (measured_schedule(&m, &err) != NULL)
			CU_ASSERT_STRING_EQUAL(measured_schedule(&m, &err)->name, runs[k].schedule);
		config_init(&r);
		unit_set(&r, "comm", runs[k].comm);
		if (m.msg != NULL)
			r.t_comm = m.msg_mean;
		again = sim_run_perturbed(
		        &r, &(struct sim_perturb){m.sched, path, m.op, m.msg, m.time_unit}, 0,
		        &err);
		if (again == NULL)
			fprintf(stderr, "%s: %s\n", runs[k].schedule, err.msg);
		CU_ASSERT_PTR_NOT_NULL_FATAL(again);
		CU_ASSERT_EQUAL(again->result->makespan, s->result->makespan);
		CU_ASSERT_EQUAL_FATAL(again->sched->nops, s->sched->nops);
		for (size_t i = 0; i < s->sched->nops; i++) {
			CU_ASSERT_EQUAL(again->result->times[i].start, s->result->times[i].start);
			CU_ASSERT_EQUAL(again->result->times[i].end, s->result->times[i].end);
		}
		CU_ASSERT_DOUBLE_EQUAL(m.step, s->metrics.makespan, 1e-9);
		sim_free(again);
		/* the fit: per stage, the run's costs and its stage factors */
		if (!s->sched->overlap) {
			struct config w = unit_config(runs[k].schedule, runs[k].p, runs[k].v,
			                              runs[k].m, 1, 1, 1);

			if (measured_fit_config(&m, m.op, 0.5, &w, &err) != 0)
				fprintf(stderr, "%s: %s\n", runs[k].schedule, err.msg);
			CU_ASSERT_EQUAL_FATAL(err.kind, PP_ERR_NONE);
			CU_ASSERT_EQUAL_FATAL(w.nstage_scale, runs[k].p * runs[k].v);
			for (int st = 0; st < s->sched->S; st++)
				CU_ASSERT_DOUBLE_EQUAL(
				        (w.t_f + w.t_b + w.t_w) * w.stage_scale[st],
				        3.25 * config_stage_scale(&c, st,
				                                  (int)s->sched->stage_device[st]),
				        1e-9);
			ASSERT_NEAR(w.t_comm, runs[k].t_comm);
		}
		measured_release(&m);
		sim_free(s);
	}
	CU_ASSERT_EQUAL(unlink(path), 0);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
}

static const struct unit_test tests[] = {
        UNIT_TEST(measured_read_takes_a_torch_trace_s_order_times_and_messages),
        UNIT_TEST(measured_read_takes_gzip_and_one_trace_per_device),
        UNIT_TEST(measured_read_takes_an_overlapped_pair_once_with_either_names),
        UNIT_TEST(measured_read_keeps_only_gpu_annotations_when_the_trace_has_them),
        UNIT_TEST(measured_read_takes_a_csv_of_ms_or_of_start_and_end),
        UNIT_TEST(measured_read_refuses_a_bad_step_naming_its_line_and_column),
        UNIT_TEST(measured_without_slowest_takes_the_others_median_per_kind),
        UNIT_TEST(a_run_s_trace_read_back_replays_the_run_op_for_op),
        {NULL, NULL},
};

const struct unit_suite suite_measured = {"measured", tests};
