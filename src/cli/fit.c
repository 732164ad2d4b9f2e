/*
 * Whether a command's outputs fit, checked before its runs: each output the command line asks
 * for is a row of a report registry (the report's format, or the outputs besides it) that says
 * what its writer reads of a run, the memory it holds and the fewest bytes it writes, per op and
 * per message. From a run's size, known from its settings (or, for a schedule file, once read),
 * an output whose file cannot fit OUTFILE_MAX_BYTES, or a run that cannot hold what its outputs
 * read within the memory --max-ops allows, is refused with the output named, before anything is
 * simulated; a serving run, whose size only its run tells, stops at the steps that fit.
 */
#include <inttypes.h>

#include "cli.h"
#include "cmd.h"
#include "ppsim/outfile.h"
#include "ppsim/serve.h"

int cli_outputs(const struct cli *cli, struct cli_asked *out)
{
	const bool gzip = cli->trace_file != NULL && cli_gzip_name(cli->trace_file);
	const bool pf = cli->trace_file != NULL && cli_pftrace_name(cli->trace_file);
	const enum report_output trace = pf ? (gzip ? REPORT_OUT_PFTRACE_GZ : REPORT_OUT_PFTRACE)
	                                    : (gzip ? REPORT_OUT_TRACE_GZ : REPORT_OUT_TRACE);
	/* a shard file holds a sweep's records, nothing of a run */
	static const struct report_need shard_need = {0};
	/* in the order guard_check_outputs names two outputs of one file */
	const struct {
		const char *option, *path;
		const struct report_need *need;
	} files[] = {
	        {"--dump-ops", cli->dump_ops, &report_output(REPORT_OUT_OPS)->need},
	        {"--samples-out", cli->samples_file, &report_output(REPORT_OUT_SAMPLES)->need},
	        {"--export-schedule", cli->export_file,
	         &report_output(REPORT_OUT_EXPORT + (int)cli->export_format)->need},
	        {"--trace", cli->trace_file,
	         &report_output(trace)->need},
	        {"--svg", cli->svg_file, &report_output(REPORT_OUT_SVG)->need},
	        {"--html", cli->html_file, &report_output(REPORT_OUT_HTML)->need},
	        {"--export-requests", cli->requests_file,
	         &report_output(REPORT_OUT_REQUESTS)->need},
	        {"--records", cli->records_file,
	         cli->records_file != NULL ? &report_records_format(cli->records_file)->need
	                                   : NULL},
	        {"--shard-file", cli->shard_file, &shard_need},
	};
	int n = 0;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (files[i].path != NULL)
			out[n++] =
			        (struct cli_asked){files[i].option, files[i].path, files[i].need};
	if (cli->timeline_width > 0)
		out[n++] = (struct cli_asked){"--timeline", NULL,
		                              &report_output(REPORT_OUT_TIMELINE)->need};
	out[n++] = (struct cli_asked){"--format", NULL, &cli->format->need};
	return n;
}

/* What the outputs asked for read of a run: REPORT_READS_* bits. */
static unsigned reads_of(const struct cli *cli)
{
	struct cli_asked asked[CLI_MAX_ASKED];
	int n = cli_outputs(cli, asked);
	unsigned reads = 0;

	for (int i = 0; i < n; i++)
		reads |= asked[i].need->reads;
	return reads;
}

unsigned cli_sim_flags(const struct cli *cli)
{
	unsigned reads = reads_of(cli);

	return (reads & REPORT_READS_MESSAGES ? SIM_RECORD_MESSAGES : 0) |
	       (reads & REPORT_READS_SLACK ? SIM_SLACK : 0) | (reads != 0 ? 0 : SIM_NO_OP_TIMES);
}

unsigned cli_serve_flags(const struct cli *cli)
{
	return reads_of(cli) & REPORT_READS_MESSAGES ? SERVE_RECORD_MESSAGES : 0;
}

/* The memory c's --max-ops allows a command's runs. */
static uint64_t budget_of(const struct config *c)
{
	uint64_t b;

	return pp_mul_u64(c->max_ops, PP_BYTES_PER_MAX_OP, &b) ? b : UINT64_MAX;
}

/* a + b, or UINT64_MAX when it does not fit. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return pp_add_u64(a, b, &a) ? a : UINT64_MAX;
}

/* a * b, or UINT64_MAX when it does not fit. */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	return pp_mul_u64(a, b, &a) ? a : UINT64_MAX;
}

/* About how many of ops fit in limit when they take need: ops * limit / need. */
static uint64_t fitting(uint64_t ops, uint64_t limit, uint64_t need)
{
	return (uint64_t)((double)ops * ((double)limit / (double)need));
}

void cli_need_init(struct cli_need *nd, const struct cli *cli)
{
	*nd = (struct cli_need){.flags = cli_sim_flags(cli),
	                        .subject = cmd_of_mode(cli->mode)->name};
	nd->nasked = cli_outputs(cli, nd->asked);
}

/*
 * The output to name when the runs' memory is over the budget: the one whose reads made the run
 * hold the most when the runs alone are over it, else the one whose writer holds the most.
 */
static const struct cli_asked *memory_culprit(const struct cli_need *nd, bool runs_over)
{
	const struct cli_asked *worst = NULL;
	uint64_t most = 0;

	for (int i = 0; i < nd->nasked; i++) {
		const struct report_need *n = nd->asked[i].need;
		uint64_t weight = runs_over ? n->reads : report_need_memory(n, &nd->all);

		if (weight > most) {
			most = weight;
			worst = &nd->asked[i];
		}
	}
	return worst;
}

/*
 * Fails an export a of runs of size z that ppsim could not read back (validate, --schedule-file)
 * within the memory --max-ops allows a reader, so that every export it writes reads back.
 */
static int readback_fails(const struct cli_asked *a, const struct sim_size *z,
                          const struct config *c, struct pp_error *err)
{
	uint64_t budget = schedfile_read_budget(c->max_ops);
	uint64_t need =
	        add_sat(mul_sat(z->ops, a->need->read_op), mul_sat(z->msgs, a->need->read_msg));
	char msgs[64] = "";

	if (need <= budget)
		return 0;
	if (a->need->read_msg != 0) /* a file that writes its messages too */
		snprintf(msgs, sizeof(msgs), " and %" PRIu64 " messages", z->msgs);
	return pp_fail(err, PP_ERR_USAGE,
	               "%s: %" PRIu64 " ops%s would take about %" PRIu64
	               " bytes to read back (validate, --schedule-file), more than the %" PRIu64
	               " bytes --max-ops=%" PRIu64 " allows a reader (about %" PRIu64 " ops fit)",
	               a->option, z->ops, msgs, need, budget, c->max_ops,
	               fitting(z->ops, budget, need));
}

int cli_need_add(struct cli_need *nd, const struct config *c, const struct sim_size *z,
                 struct pp_error *err)
{
	uint64_t writer = 0, total, budget = budget_of(c);
	const struct cli_asked *culprit;

	nd->all.ops = add_sat(nd->all.ops, z->ops);
	nd->all.msgs = add_sat(nd->all.msgs, z->msgs);
	nd->memory = add_sat(nd->memory, sim_peak_bytes(c, z, nd->flags));
	nd->budget = budget > nd->budget ? budget : nd->budget;
	for (int i = 0; i < nd->nasked; i++) {
		const struct cli_asked *a = &nd->asked[i];
		uint64_t mem = report_need_memory(a->need, &nd->all);

		nd->bytes[i] = add_sat(nd->bytes[i], report_need_bytes(a->need, z));
		writer = mem > writer ? mem : writer;
		if (readback_fails(a, &nd->all, c, err) != 0)
			return -1;
		if (a->path != NULL && nd->bytes[i] > OUTFILE_MAX_BYTES)
			return pp_fail(err, PP_ERR_USAGE,
			               "%s: %" PRIu64 " ops and %" PRIu64
			               " messages take at least %" PRIu64 " bytes, more than the "
			               "%" PRIu64 " bytes an output file may hold (about %" PRIu64
			               " ops fit)",
			               a->option, nd->all.ops, nd->all.msgs, nd->bytes[i],
			               OUTFILE_MAX_BYTES,
			               fitting(nd->all.ops, OUTFILE_MAX_BYTES, nd->bytes[i]));
	}
	total = add_sat(nd->memory, writer);
	if (total <= nd->budget)
		return 0;
	culprit = memory_culprit(nd, nd->memory > nd->budget);
	return pp_fail(err, PP_ERR_USAGE,
	               "%s: %" PRIu64 " ops and %" PRIu64 " messages need %" PRIu64
	               " bytes of memory, more than the %" PRIu64 " bytes --max-ops=%" PRIu64
	               " allows (%d bytes an op; about %" PRIu64 " ops fit)",
	               culprit != NULL ? culprit->option : nd->subject, nd->all.ops, nd->all.msgs,
	               total, nd->budget, nd->budget / PP_BYTES_PER_MAX_OP, PP_BYTES_PER_MAX_OP,
	               fitting(nd->all.ops, nd->budget, total));
}

int cli_need_config(struct cli_need *nd, const struct config *c, struct pp_error *err)
{
	struct sim_size z;
	int rc = sim_size_of_config(c, &z, err);

	return rc <= 0 ? rc : cli_need_add(nd, c, &z, err);
}

/* What the sim_check of a run of a schedule file adds its size to. */
struct file_run {
	struct cli_need *nd;
	const struct config *c;
};

static int add_file_run(void *ctx, const struct sim_size *z, struct pp_error *err)
{
	struct file_run *f = ctx;

	return cli_need_add(f->nd, f->c, z, err);
}

struct sim *cli_simulate(struct cli_need *nd, const struct config *c, struct pp_error *err)
{
	struct file_run f = {nd, c};
	struct sim_check check = {add_file_run, &f};

	/* a generated run was added from its settings; a file's size is known once it is read */
	return sim_run_checked(c, nd->flags, c->schedule_file[0] != '\0' ? &check : NULL, err);
}

uint64_t cli_serve_steps(const struct cli *cli, const struct config *c, int runs)
{
	struct cli_asked asked[CLI_MAX_ASKED];
	int n = cli_outputs(cli, asked);
	uint64_t step = serve_step_bytes(c, cli_serve_flags(cli) != 0), writer = 0;
	uint64_t limit = c->max_ops, fit;

	/* a serving run sends at most a message a step, and the pictures hold every run */
	for (int i = 0; i < n; i++) {
		uint64_t mem = (uint64_t)asked[i].need->mem_op + asked[i].need->mem_msg;
		uint64_t file = (uint64_t)asked[i].need->file_op * (uint64_t)runs;

		writer = mem > writer ? mem : writer;
		if (asked[i].path != NULL && file > 0 && OUTFILE_MAX_BYTES / file < limit)
			limit = OUTFILE_MAX_BYTES / file;
	}
	fit = budget_of(c) / (uint64_t)runs / add_sat(step, writer);
	return fit < limit ? fit : limit;
}
