/*
 * Unit tests of config: defaults, the option table, value parsing, config files and whole-config
 * validation.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ppsim/config.h"
#include "ppsim/preset.h"
#include "unit.h"

/* The option table row with that long name; fails the test when there is none. */
static const struct config_option *option(const char *name)
{
	size_t n;
	const struct config_option *opts = config_options(&n);

	for (size_t i = 0; i < n; i++)
		if (strcmp(opts[i].name, name) == 0)
			return &opts[i];
	CU_FAIL_FATAL("option missing from the table");
	return NULL;
}

/* Sets option name to value, as the command line would with label "--name". */
static int set(struct config *c, const char *name, const char *value, struct pp_error *err)
{
	char label[64];

	snprintf(label, sizeof(label), "--%s", name);
	return config_set(c, option(name), label, value, err);
}

/* Asserts that value is rejected for option name with a usage error naming label and value. */
static void assert_rejected(const char *name, const char *value)
{
	struct config c;
	struct pp_error err = {0};
	char prefix[128];

	config_init(&c);
	snprintf(prefix, sizeof(prefix), "--%s '%s': ", name, value);
	CU_ASSERT_EQUAL(set(&c, name, value, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_EQUAL(strncmp(err.msg, prefix, strlen(prefix)), 0);
}

static void config_init_sets_the_documented_defaults(void)
{
	struct config c;

	memset(&c, 0xff, sizeof(c));
	config_init(&c);
	CU_ASSERT_STRING_EQUAL(c.schedule, "1f1b");
	CU_ASSERT_EQUAL(c.p, 4);
	CU_ASSERT_EQUAL(c.v, 1);
	CU_ASSERT_EQUAL(c.m, 8);
	ASSERT_NEAR(c.t_f, 1);
	ASSERT_NEAR(c.t_b, 1);
	ASSERT_NEAR(c.t_w, 1);
	ASSERT_NEAR(c.t_comm, 0);
	CU_ASSERT_EQUAL(c.msg_bytes, 0);
	ASSERT_NEAR(c.bandwidth, 0);
	ASSERT_NEAR(c.latency, -1);
	CU_ASSERT_EQUAL(c.comm, PP_COMM_OVERLAP);
	CU_ASSERT_EQUAL(c.duplex, PP_DUPLEX_FULL);
	CU_ASSERT_STRING_EQUAL(c.model, "");
	CU_ASSERT_EQUAL(c.seq, 2048);
	CU_ASSERT_EQUAL(c.mbs, 1);
	CU_ASSERT_EQUAL(c.tp, 1);
	CU_ASSERT_EQUAL(c.dp, 1);
	CU_ASSERT_EQUAL(c.gpus_per_node, 8);
	CU_ASSERT_EQUAL(c.flash_attention, 1);
	CU_ASSERT_EQUAL(c.recompute, PP_RECOMPUTE_NONE);
	/* -1: the framework's, and without one no (the cost model resolves it) */
	CU_ASSERT_EQUAL(c.distributed_optimizer, -1);
	/* what runs beside the schedule: no framework, no context parallelism, the framework's
	 * overlaps (-1, DEFAULT), and the cost model's defaults for the rest (0 or -1) */
	CU_ASSERT_STRING_EQUAL(c.framework, "");
	CU_ASSERT_EQUAL(c.cp, 1);
	CU_ASSERT_EQUAL(c.cp_comm, PP_CP_RING);
	CU_ASSERT_EQUAL(c.tp_overlap, PP_TP_OVERLAP_DEFAULT);
	CU_ASSERT_EQUAL(c.overlap_grad_reduce, -1);
	CU_ASSERT_EQUAL(c.overlap_param_gather, -1);
	ASSERT_NEAR(c.bucket_size, 0);
	ASSERT_NEAR(c.comm_slowdown, -1);
	ASSERT_NEAR(c.collective_efficiency, 0);
	ASSERT_NEAR(c.optimizer_bytes, -1);
	ASSERT_NEAR(c.step_overhead, -1);
	ASSERT_NEAR(c.bytes_per_param, 16);
	CU_ASSERT_EQUAL(c.dtype_bytes, 2);
	/* the per-kernel model, and the fitted message figures (-1 and 0: resolved by the cost
	 * model) */
	ASSERT_NEAR(c.efficiency, 0);
	ASSERT_NEAR(c.p2p_overhead, -1);
	ASSERT_NEAR(c.p2p_efficiency, 0);
	CU_ASSERT_EQUAL(c.sequence_parallel, 1);
	ASSERT_NEAR(c.unfused_attention_bytes, -1);
	ASSERT_NEAR(c.kernel_overhead, -1);
	CU_ASSERT_EQUAL(c.tied, -1);
	CU_ASSERT_EQUAL(c.mlp, PP_MLP_PRESET);
	CU_ASSERT_STRING_EQUAL(c.schedule_file, "");
	ASSERT_NEAR(c.w_mem_fraction, 0.5);
	ASSERT_NEAR(c.overlap_factor, 1);
	ASSERT_NEAR(c.mem_limit, 0);
	CU_ASSERT_EQUAL(c.nstage_scale, 0);
}

static void config_options_describe_each_field_once(void)
{
	/* a few rows as the documentation names them; every row is checked below */
	static const struct {
		const char *name;
		int short_name;
		const char *key;
		enum config_arg arg;
	} want[] = {
	        {"schedule", 's', "schedule", CONFIG_ARG_NAME},
	        {"schedule-file", 0, "schedule_file", CONFIG_ARG_PATH},
	        {"stages", 'p', "p", CONFIG_ARG_COUNT},
	        {"microbatches", 'm', "m", CONFIG_ARG_COUNT},
	        {"chunks", 'v', "v", CONFIG_ARG_COUNT},
	        {"tf", 0, "t_f", CONFIG_ARG_TIME},
	        {"msg-bytes", 0, "msg_bytes", CONFIG_ARG_BYTES},
	        {"w-mem-fraction", 0, "w_mem_fraction", CONFIG_ARG_SHARE},
	        {"stage-scale", 0, "stage_scale", CONFIG_ARG_SCALES},
	        {"tied-embeddings", 0, "tied_embeddings", CONFIG_ARG_BOOL},
	        {"layers-per-stage", 0, "layers_per_stage", CONFIG_ARG_LIST},
	        {"tflops", 0, "tflops", CONFIG_ARG_RATE},
	        {"requests", 0, "requests", CONFIG_ARG_PATH},
	        {"kv-link", 0, "kv_link", CONFIG_ARG_NAME},
	};
	size_t n;
	const struct config_option *opts = config_options(&n);

	CU_ASSERT(n <= CONFIG_MAX_OPTIONS);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct config_option *o = option(want[i].name);

		CU_ASSERT_EQUAL(o->short_name, want[i].short_name);
		CU_ASSERT_STRING_EQUAL(o->key, want[i].key);
		CU_ASSERT_EQUAL(o->arg, want[i].arg);
	}
	for (size_t i = 0; i < n; i++) {
		const struct config_option *o = &opts[i];

		CU_ASSERT_PTR_NOT_NULL(o->metavar);
		CU_ASSERT_PTR_NOT_NULL(o->help);
		for (size_t j = 0; j < n; j++) {
			if (j == i)
				continue;
			CU_ASSERT_NOT_EQUAL(opts[j].offset, o->offset);
			CU_ASSERT(strcmp(opts[j].name, o->name) != 0);
			CU_ASSERT(strcmp(opts[j].key, o->key) != 0);
			CU_ASSERT(o->short_name == 0 || opts[j].short_name != o->short_name);
		}
	}
}

/* The commands column: every option is for some command, training or serving or both, and the
 * names a name option takes come from exactly one place. */
static void config_options_name_their_commands_and_their_names(void)
{
	size_t n;
	const struct config_option *opts = config_options(&n);

	for (size_t i = 0; i < n; i++) {
		const struct config_option *o = &opts[i];
		int sources = (o->values != NULL) + (o->preset != NULL) + (o->parse != NULL);

		CU_ASSERT((o->commands & ~(unsigned)CONFIG_COMMANDS) == 0);
		CU_ASSERT((o->commands & (CONFIG_RUN | CONFIG_SERVE)) != 0);
		/* compare takes every option: it compares training and serving configs */
		CU_ASSERT((o->commands & CONFIG_COMPARE) != 0);
		CU_ASSERT_EQUAL(sources, o->arg == CONFIG_ARG_NAME ? 1 : 0);
		CU_ASSERT(o->format == NULL || o->parse != NULL);
	}
	CU_ASSERT_EQUAL(option("rate")->commands, CONFIG_SERVING);
	CU_ASSERT_EQUAL(option("microbatches")->commands, CONFIG_TRAINING | CONFIG_REPLAY);
	CU_ASSERT_EQUAL(option("stages")->commands, CONFIG_ALL);
	/* breakeven replaces a config file's schedule with its own two */
	CU_ASSERT_EQUAL(option("schedule")->commands, CONFIG_TRAINING | CONFIG_REPLAY);
	CU_ASSERT_EQUAL(option("layers")->price, CONFIG_PRICE_MODEL);
	CU_ASSERT_EQUAL(option("tf")->price, CONFIG_PRICE_EXPLICIT);
	CU_ASSERT_EQUAL(option("link")->price, CONFIG_PRICE_LINK);
}

static void config_check_command_refuses_an_option_where_it_does_not_belong(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL(config_check_command(&c, CONFIG_BREAKEVEN, "breakeven", &err), 0);
	CU_ASSERT_EQUAL(set(&c, "rate", "5", &err), 0);
	CU_ASSERT_EQUAL(config_check_command(&c, CONFIG_SERVE, "serve", &err), 0);
	CU_ASSERT_EQUAL(config_check_command(&c, CONFIG_COMPARE, "compare", &err), 0);
	CU_ASSERT_EQUAL(config_check_command(&c, CONFIG_SWEEP, "sweep", &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "--rate '5': a serving option: use ppsim serve");
	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "microbatches", "4", &err), 0);
	CU_ASSERT_EQUAL(config_check_command(&c, CONFIG_SERVE, "serve", &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg,
	                       "--microbatches '4': a training option, not for ppsim serve");
	CU_ASSERT_EQUAL(config_check_command(&c, CONFIG_BREAKEVEN, "breakeven", &err), 0);
}

static void config_value_words_lists_what_each_name_option_takes(void)
{
	char buf[512];

	CU_ASSERT_STRING_EQUAL(config_value_words(option("comm"), " ", buf, sizeof(buf)),
	                       "overlap blocking");
	/* "preset" is taken (the preset's own MLP) but not offered */
	CU_ASSERT_STRING_EQUAL(config_value_words(option("mlp"), " ", buf, sizeof(buf)),
	                       "gated plain");
	CU_ASSERT_STRING_EQUAL(config_value_words(option("gpu"), "|", buf, sizeof(buf)),
	                       "a100-80g|h100-sxm|h800|h100-pcie|h200|b200|gb200");
	CU_ASSERT_STRING_EQUAL(config_value_words(option("prompt"), " ", buf, sizeof(buf)),
	                       "fixed: uniform: lognormal:");
	CU_ASSERT_STRING_EQUAL(config_value_words(option("flash-attention"), " ", buf, sizeof(buf)),
	                       "yes no");
	CU_ASSERT_STRING_EQUAL(config_value_words(option("stages"), " ", buf, sizeof(buf)), "");
	CU_ASSERT_EQUAL(strncmp(config_value_words(option("schedule"), ", ", buf, sizeof(buf)),
	                        "gpipe, 1f1b, ", 13),
	                0);
}

static void config_model_links_take_the_options_then_the_gpu_defaults(void)
{
	struct config c;
	struct pp_error err = {0};
	char link[32], inter[32];

	config_init(&c);
	config_model_links(&c, link, inter);
	CU_ASSERT_STRING_EQUAL(link, "nvlink3");
	CU_ASSERT_STRING_EQUAL(inter, "ib-hdr");
	CU_ASSERT_EQUAL(set(&c, "gpu", "h100-sxm", &err), 0);
	config_model_links(&c, link, inter);
	CU_ASSERT_STRING_EQUAL(link, "nvlink4");
	CU_ASSERT_STRING_EQUAL(inter, "ib-ndr");
	CU_ASSERT_EQUAL(set(&c, "inter-link", "pcie5", &err), 0);
	config_model_links(&c, link, inter);
	CU_ASSERT_STRING_EQUAL(link, "nvlink4");
	CU_ASSERT_STRING_EQUAL(inter, "pcie5");
}

static void config_set_stores_valid_counts(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "stages", "8", &err), 0);
	CU_ASSERT_EQUAL(set(&c, "microbatches", "1", &err), 0);
	CU_ASSERT_EQUAL(set(&c, "chunks", "1024", &err), 0);
	CU_ASSERT_EQUAL(c.p, 8);
	CU_ASSERT_EQUAL(c.m, 1);
	CU_ASSERT_EQUAL(c.v, 1024);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_NONE);
	/* v's range is its own, 1 to 1024, told where the value is read */
	CU_ASSERT_EQUAL(set(&c, "chunks", "1025", &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "--chunks '1025': must be an integer from 1 to 1024");
	CU_ASSERT_EQUAL(c.v, 1024);
}

static void config_set_rejects_counts_that_are_not_whole_numbers_in_range(void)
{
	static const char *const bad[] = {"0",   "-1", "abc", "",         "1e3",
	                                  "2.5", " 4", "4 ",  "16777217", "99999999999999999999"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_rejected("stages", bad[i]);
		assert_rejected("microbatches", bad[i]);
		assert_rejected("chunks", bad[i]);
	}
}

static void config_set_names_the_label_value_and_range_of_a_bad_count(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL(config_set(&c, option("stages"), "-p", "0", &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "-p '0': must be an integer from 1 to 65536");
	CU_ASSERT_EQUAL(c.p, 4);
}

static void config_set_stores_valid_times(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "tf", "1.5", &err), 0);
	CU_ASSERT_EQUAL(set(&c, "tb", "0", &err), 0);
	CU_ASSERT_EQUAL(set(&c, "tw", "1e3", &err), 0);
	CU_ASSERT_EQUAL(set(&c, "tcomm", "0.1", &err), 0);
	CU_ASSERT_EQUAL(set(&c, "latency", "1000000000", &err), 0);
	ASSERT_NEAR(c.t_f, 1.5);
	ASSERT_NEAR(c.t_b, 0);
	ASSERT_NEAR(c.t_w, 1000);
	ASSERT_NEAR(c.t_comm, 0.1);
	ASSERT_NEAR(c.latency, 1e9);
}

static void config_set_rejects_times_that_are_not_finite_non_negative_and_in_range(void)
{
	static const char *const bad[] = {"nan", "inf", "-inf", "-1",    "",
	                                  "abc", "1x",  "1e10", "1e999", "1000000001"};
	static const char *const names[] = {"tf", "tb", "tw", "tcomm", "latency"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		for (size_t j = 0; j < sizeof(names) / sizeof(names[0]); j++)
			assert_rejected(names[j], bad[i]);
}

static void config_set_stores_valid_bytes_and_rates(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "msg-bytes", "33554432", &err), 0);
	CU_ASSERT_EQUAL(c.msg_bytes, UINT64_C(33554432));
	CU_ASSERT_EQUAL(set(&c, "msg-bytes", "0", &err), 0);
	CU_ASSERT_EQUAL(c.msg_bytes, 0);
	CU_ASSERT_EQUAL(set(&c, "msg-bytes", "9223372036854775807", &err), 0);
	CU_ASSERT_EQUAL(c.msg_bytes, UINT64_C(9223372036854775807));
	CU_ASSERT_EQUAL(set(&c, "bandwidth", "300", &err), 0);
	ASSERT_NEAR(c.bandwidth, 300);
	CU_ASSERT_EQUAL(set(&c, "bandwidth", "0.5", &err), 0);
	ASSERT_NEAR(c.bandwidth, 0.5);
}

static void config_set_rejects_bad_bytes_and_rates(void)
{
	static const char *const bad_bytes[] = {"-1", "abc", "", "1e3", "9223372036854775808",
	                                        "1.5"};
	static const char *const bad_rates[] = {"0", "-1", "nan", "inf", "", "abc", "1e10"};

	for (size_t i = 0; i < sizeof(bad_bytes) / sizeof(bad_bytes[0]); i++)
		assert_rejected("msg-bytes", bad_bytes[i]);
	for (size_t i = 0; i < sizeof(bad_rates) / sizeof(bad_rates[0]); i++)
		assert_rejected("bandwidth", bad_rates[i]);
}

static void config_set_takes_schedule_names_and_pytorch_s_in_any_case(void)
{
	/* each spelling of a schedule stores the schedule's own name */
	static const char *const spellings[][2] = {
	        {"gpipe", "gpipe"},
	        {"1F1B", "1f1b"},
	        {"GPipe", "gpipe"},
	        {"Interleaved1F1B", "interleaved"},
	        {"ScheduleInterleaved1F1B", "interleaved"},
	        {"interleavedzerobubble", "interleaved-zb"},
	        {"ZBVZeroBubble", "zbv"},
	        {"LoopedBFS", "loopedbfs"},
	        {"ScheduleDualPipeV", "dualpipev"},
	        {"ZB-Auto", "zb-auto"},
	        {"1F1B-V", "1f1b-v"},
	};
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
		CU_ASSERT_EQUAL(set(&c, "schedule", spellings[i][0], &err), 0);
		CU_ASSERT_STRING_EQUAL(c.schedule, spellings[i][1]);
	}
	CU_ASSERT_EQUAL(set(&c, "schedule", "1f1b", &err), 0);
	CU_ASSERT_EQUAL(set(&c, "schedule", "GPipes", &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	{
		/* the message names every schedule of the table, in its order */
		char want[1024];
		size_t n, len = (size_t)snprintf(want, sizeof(want),
		                                 "--schedule 'GPipes': unknown schedule; known: ");
		const struct sched_desc *t = sched_table(&n);

		for (size_t i = 0; i < n; i++)
			len += (size_t)snprintf(want + len, sizeof(want) - len, "%s%s",
			                        i ? ", " : "", t[i].name);
		snprintf(want + len, sizeof(want) - len, "; did you mean 'gpipe'?");
		CU_ASSERT_STRING_EQUAL(err.msg, want);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "known: gpipe, 1f1b, interleaved, "));
	}
	CU_ASSERT_STRING_EQUAL(c.schedule, "1f1b");
	assert_rejected("schedule", "");
	assert_rejected("schedule", "zbh1x");
	assert_rejected("schedule", "Schedule");
	assert_rejected("schedule", "Schedulezbh1");
}

static void config_set_parses_comm_and_duplex_names(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "comm", "blocking", &err), 0);
	CU_ASSERT_EQUAL(c.comm, PP_COMM_BLOCKING);
	CU_ASSERT_EQUAL(set(&c, "comm", "overlap", &err), 0);
	CU_ASSERT_EQUAL(c.comm, PP_COMM_OVERLAP);
	CU_ASSERT_EQUAL(set(&c, "duplex", "half", &err), 0);
	CU_ASSERT_EQUAL(c.duplex, PP_DUPLEX_HALF);
	CU_ASSERT_EQUAL(set(&c, "duplex", "full", &err), 0);
	CU_ASSERT_EQUAL(c.duplex, PP_DUPLEX_FULL);
}

static void config_set_rejects_unknown_comm_and_duplex_names(void)
{
	struct config c;
	struct pp_error err = {0};

	assert_rejected("comm", "sync");
	assert_rejected("comm", "Overlap");
	assert_rejected("comm", "");
	assert_rejected("duplex", "simplex");
	assert_rejected("duplex", "HALF");
	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "comm", "async", &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "--comm 'async': must be 'overlap' or 'blocking'");
	CU_ASSERT_EQUAL(set(&c, "duplex", "both", &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "--duplex 'both': must be 'full' or 'half'");
	CU_ASSERT_EQUAL(c.comm, PP_COMM_OVERLAP);
	CU_ASSERT_EQUAL(c.duplex, PP_DUPLEX_FULL);
}

static void config_comm_and_duplex_names_match_what_users_write(void)
{
	CU_ASSERT_STRING_EQUAL(config_comm_name(PP_COMM_OVERLAP), "overlap");
	CU_ASSERT_STRING_EQUAL(config_comm_name(PP_COMM_BLOCKING), "blocking");
	CU_ASSERT_STRING_EQUAL(config_duplex_name(PP_DUPLEX_FULL), "full");
	CU_ASSERT_STRING_EQUAL(config_duplex_name(PP_DUPLEX_HALF), "half");
}

static void config_validate_accepts_the_defaults(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL(config_validate(&c, &err), 0);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_NONE);
}

static void config_validate_rejects_two_chunks_for_gpipe_and_1f1b(void)
{
	static const char *const names[] = {"gpipe", "1f1b"};

	for (size_t i = 0; i < 2; i++) {
		struct config c;
		struct pp_error err = {0};
		char want[128];

		config_init(&c);
		strcpy(c.schedule, names[i]);
		c.v = 2;
		snprintf(want, sizeof(want), "--chunks '2': schedule '%s' needs v=1", names[i]);
		CU_ASSERT_EQUAL(config_validate(&c, &err), -1);
		CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
		CU_ASSERT_STRING_EQUAL(err.msg, want);
	}
}

static void config_validate_rejects_an_unknown_schedule(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	strcpy(c.schedule, "zbv");
	CU_ASSERT_EQUAL(config_validate(&c, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'zbv'"));
}

static void config_validate_rejects_more_ops_than_the_cap(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	c.p = 60000;
	c.m = 100000;
	c.v = 64;
	CU_ASSERT_EQUAL(config_validate(&c, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "-p 60000 -m 100000 -v 64"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "50000000"));
}

static void config_validate_accepts_exactly_the_op_cap(void)
{
	struct config c;
	struct pp_error err = {0};

	/* 1f1b: p * m * 2 = 50000000 ops */
	config_init(&c);
	c.p = 5000;
	c.m = 5000;
	CU_ASSERT_EQUAL(config_validate(&c, &err), 0);
	c.m = 5001;
	CU_ASSERT_EQUAL(config_validate(&c, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
}

static void config_validate_caps_devices_at_65536_whatever_the_ops(void)
{
	struct config c;
	struct pp_error err = {0};

	/* 65536 devices of one micro-batch: 131072 ops, well within the op cap */
	config_init(&c);
	c.p = 65536;
	c.m = 1;
	CU_ASSERT_EQUAL(config_validate(&c, &err), 0);
	c.p = 65537;
	CU_ASSERT_EQUAL(config_validate(&c, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "--stages '65537': must be from 1 to 65536");
}

static void config_validate_refuses_a_time_below_one_tick(void)
{
	static const char *const keys[] = {"t_f", "t_b", "t_w", "t_comm"};
	static const char *const names[] = {"tf", "tb", "tw", "tcomm"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct config c;
		struct pp_error err = {0};
		char want[64];

		/* 1e-6 is one tick and runs, as does 6e-7, which rounds to it; 4e-7 would round
		 * to nothing */
		config_init(&c);
		unit_set(&c, keys[i], "1e-6");
		CU_ASSERT_EQUAL(config_validate(&c, &err), 0);
		unit_set(&c, keys[i], "6e-7");
		CU_ASSERT_EQUAL(config_validate(&c, &err), 0);
		unit_set(&c, keys[i], "4e-7");
		CU_ASSERT_EQUAL(config_validate(&c, &err), -1);
		CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
		snprintf(want, sizeof(want), "--%s '4e-07': below the resolution of 1e-06",
		         names[i]);
		CU_ASSERT_EQUAL(strncmp(err.msg, want, strlen(want)), 0);
	}
	/* a message's tick is the run's: with v = 2 chunks half as long (5e-7 a message is one),
	 * with DualPipe's two routes of v = 2 as long as at v = 1 */
	{
		static const struct {
			const char *schedule, *v, *tcomm;
			int rc;
		} cases[] = {{"interleaved", "2", "5e-7", 0},  {"interleaved", "2", "2e-7", -1},
		             {"interleaved", "4", "2e-7", 0},  {"dualpipe", "2", "5e-7", -1},
		             {"dualpipe", "2", "1e-6", 0}};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct config c;
			struct pp_error err = {0};

			config_init(&c);
			unit_set(&c, "schedule", cases[i].schedule);
			unit_set(&c, "v", cases[i].v);
			unit_set(&c, "t_comm", cases[i].tcomm);
			CU_ASSERT_EQUAL(config_validate(&c, &err), cases[i].rc);
		}
	}
}

static void config_validate_rejects_tcomm_together_with_bandwidth(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	c.t_comm = 0.1;
	c.bandwidth = 300;
	CU_ASSERT_EQUAL(config_validate(&c, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--tcomm"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--bandwidth"));
}

static void config_validate_rejects_latency_without_bandwidth(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	c.latency = 5;
	CU_ASSERT_EQUAL(config_validate(&c, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--latency"));
	c.bandwidth = 300;
	CU_ASSERT_EQUAL(config_validate(&c, &err), 0);
}

static void config_validate_rejects_a_message_slower_than_the_time_limit(void)
{
	struct config c;
	struct pp_error err = {0};

	/* 1e15 B at 0.001 GB/s (1e6 B/s) is 1e9 s = 1e12 ms */
	config_init(&c);
	c.msg_bytes = UINT64_C(1000000000000000);
	c.bandwidth = 0.001;
	CU_ASSERT_EQUAL(config_validate(&c, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--msg-bytes '1000000000000000'"));
}

static void config_msg_time_is_tcomm_without_a_link(void)
{
	struct config c;

	config_init(&c);
	c.t_comm = 0.25;
	c.msg_bytes = 1000;
	ASSERT_NEAR(config_msg_time(&c), 0.25);
}

static void config_msg_time_is_latency_plus_bytes_over_bandwidth_in_ms(void)
{
	struct config c;

	/* 32 MiB at 300 GB/s: 33554432 / 3e11 s = 0.111848106666... ms; 5 us = 0.005 ms */
	config_init(&c);
	c.msg_bytes = UINT64_C(33554432);
	c.bandwidth = 300;
	c.latency = 5;
	ASSERT_NEAR(config_msg_time(&c), 0.005 + 33554432.0 / 3e8);
	ASSERT_NEAR(config_msg_time(&c), 0.11684810666666667);
	c.latency = 0;
	ASSERT_NEAR(config_msg_time(&c), 0.11184810666666667);
}

static void config_set_reads_yes_true_on_1_as_true_and_no_false_off_0_as_false(void)
{
	static const char *const names[] = {"flash-attention", "distributed-optimizer",
	                                    "tied-embeddings"};
	static const char *const yes[] = {"yes", "true", "on", "1"};
	static const char *const no[] = {"no", "false", "off", "0"};

	for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++)
		for (size_t i = 0; i < 4; i++) {
			struct config c;
			struct pp_error err = {0};
			int *field;

			config_init(&c);
			field = (int *)(void *)((char *)&c + option(names[n])->offset);
			CU_ASSERT_EQUAL(set(&c, names[n], no[i], &err), 0);
			CU_ASSERT_EQUAL(*field, 0);
			CU_ASSERT_EQUAL(set(&c, names[n], yes[i], &err), 0);
			CU_ASSERT_EQUAL(*field, 1);
		}
}

static void config_set_rejects_other_words_for_a_boolean(void)
{
	static const char *const bad[] = {"",  "Yes", "TRUE",    "y",   "n",
	                                  "2", "-1",  "enabled", " yes"};
	struct config c;
	struct pp_error err = {0};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_rejected("flash-attention", bad[i]);
		assert_rejected("distributed-optimizer", bad[i]);
		assert_rejected("tied-embeddings", bad[i]);
	}
	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "flash-attention", "maybe", &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "--flash-attention 'maybe': must be yes or no");
	CU_ASSERT_EQUAL(c.flash_attention, 1);
}

static void config_set_reads_a_comma_separated_list_of_layers(void)
{
	struct config c;
	struct pp_error err = {0};
	char many[PP_MAX_LIST * 2 + 1];

	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "layers-per-stage", "20,20,20,20", &err), 0);
	CU_ASSERT_EQUAL(c.nlayers_per_stage, 4);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(c.layers_per_stage[i], 20);
	CU_ASSERT_EQUAL(set(&c, "layers-per-stage", "18,22", &err), 0);
	CU_ASSERT_EQUAL(c.nlayers_per_stage, 2);
	CU_ASSERT_EQUAL(c.layers_per_stage[0], 18);
	CU_ASSERT_EQUAL(c.layers_per_stage[1], 22);
	CU_ASSERT_EQUAL(set(&c, "layers-per-stage", "80", &err), 0);
	CU_ASSERT_EQUAL(c.nlayers_per_stage, 1);
	CU_ASSERT_EQUAL(c.layers_per_stage[0], 80);
	/* PP_MAX_LIST entries is the most a list takes */
	for (int i = 0; i < PP_MAX_LIST; i++)
		memcpy(many + 2 * i, i + 1 < PP_MAX_LIST ? "3," : "7", 2);
	many[2 * PP_MAX_LIST - 1] = '\0';
	CU_ASSERT_EQUAL(set(&c, "layers-per-stage", many, &err), 0);
	CU_ASSERT_EQUAL(c.nlayers_per_stage, PP_MAX_LIST);
	CU_ASSERT_EQUAL(c.layers_per_stage[0], 3);
	CU_ASSERT_EQUAL(c.layers_per_stage[PP_MAX_LIST - 1], 7);
}

static void config_set_rejects_lists_with_an_empty_negative_or_non_integer_entry(void)
{
	static const char *const bad[] = {"",   "1,,2", "a",    "1,2,",     ",1",
	                                  "-1", "1.5",  "1, 2", "16777217", "20;20"};
	struct config c;
	struct pp_error err = {0};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_rejected("layers-per-stage", bad[i]);
	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "layers-per-stage", "1,,2", &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "--layers-per-stage '1,,2': must be up to 1024 integers "
	                                "from 0 to 16777216, comma-separated");
	CU_ASSERT_EQUAL(c.nlayers_per_stage, 0);
	/* a stage may have no layers (only the embedding or the LM head) */
	CU_ASSERT_EQUAL(set(&c, "layers-per-stage", "0,20,0", &err), 0);
	CU_ASSERT_EQUAL(c.nlayers_per_stage, 3);
	CU_ASSERT_EQUAL(c.layers_per_stage[0], 0);
}

static void config_set_rejects_a_list_of_more_entries_than_the_most_it_takes(void)
{
	char many[(PP_MAX_LIST + 1) * 2 + 1];
	struct config c;
	struct pp_error err = {0};

	for (int i = 0; i <= PP_MAX_LIST; i++)
		memcpy(many + 2 * i, "1,", 2);
	many[2 * (PP_MAX_LIST + 1) - 1] = '\0';
	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "layers-per-stage", many, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_EQUAL(strncmp(err.msg, "--layers-per-stage '1,1,1,", 26), 0);
	CU_ASSERT_EQUAL(c.nlayers_per_stage, 0);
}

static void config_set_says_why_it_rejects_a_list_too_long_to_quote_whole(void)
{
	char many[(PP_MAX_LIST + 1) * 2 + 1];
	struct config c;
	struct pp_error err = {0};

	/* 1025 entries quoted in full fill the message before its reason */
	for (int i = 0; i <= PP_MAX_LIST; i++)
		memcpy(many + 2 * i, "1,", 2);
	many[2 * (PP_MAX_LIST + 1) - 1] = '\0';
	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "layers-per-stage", many, &err), -1);
	CU_ASSERT_EQUAL(strncmp(err.msg, "--layers-per-stage '1,1,1,", 26), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "up to 1024 integers"));
}

static void config_set_keeps_the_previous_list_when_it_rejects_a_new_one(void)
{
	struct config c;
	struct pp_error err = {0};

	/* like every other kind, a rejected value leaves the field as it was */
	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "layers-per-stage", "20,20,20,20", &err), 0);
	CU_ASSERT_EQUAL(set(&c, "layers-per-stage", "1,2,x", &err), -1);
	CU_ASSERT_EQUAL(c.nlayers_per_stage, 4);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(c.layers_per_stage[i], 20);
}

static void config_set_reads_shares_from_0_to_1(void)
{
	static const char *const bad[] = {"-0.1", "1.01", "2", "nan", "inf", "", "half", "50%"};
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "efficiency", "0.4", &err), 0);
	ASSERT_NEAR(c.efficiency, 0.4);
	CU_ASSERT_EQUAL(set(&c, "efficiency", "1", &err), 0);
	ASSERT_NEAR(c.efficiency, 1);
	CU_ASSERT_EQUAL(set(&c, "w-mem-fraction", "0", &err), 0);
	ASSERT_NEAR(c.w_mem_fraction, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_rejected("efficiency", bad[i]);
		assert_rejected("w-mem-fraction", bad[i]);
	}
	CU_ASSERT_EQUAL(set(&c, "efficiency", "1.5", &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "--efficiency '1.5': must be a number from 0 to 1");
}

static void config_set_takes_preset_names_and_lists_the_known_ones_otherwise(void)
{
	static const struct {
		const char *option, *good, *bad, *msg;
	} cases[] = {
	        {"model", "llama3-70b", "llama3",
	         "--model 'llama3': unknown model; known: llama3-8b, llama3-70b, llama3-405b, "
	         "gpt3-175b, deepseek-v3, mixtral-8x7b, mixtral-8x22b, qwen3-30b-a3b, "
	         "qwen3-235b-a22b"},
	        {"gpu", "h100-sxm", "A100-80G",
	         "--gpu 'A100-80G': unknown gpu; known: a100-80g, h100-sxm, h800, h100-pcie, h200, b200, "
	         "gb200; did you mean 'a100-80g'?"},
	        {"link", "pcie4", "nvlink",
	         "--link 'nvlink': unknown link; known: nvlink3, nvlink4, nvlink-h800, nvlink5, pcie4, pcie5, "
	         "nvlink-c2c, ib-hdr, ib-ndr; did you mean 'nvlink3'?"},
	        {"inter-link", "ib-ndr", "ib",
	         "--inter-link 'ib': unknown link; known: nvlink3, nvlink4, nvlink-h800, nvlink5, pcie4, pcie5, "
	         "nvlink-c2c, ib-hdr, ib-ndr"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c;
		struct pp_error err = {0};
		const char *field;

		config_init(&c);
		field = (const char *)&c + option(cases[i].option)->offset;
		CU_ASSERT_EQUAL(set(&c, cases[i].option, cases[i].good, &err), 0);
		CU_ASSERT_STRING_EQUAL(field, cases[i].good);
		CU_ASSERT_EQUAL(set(&c, cases[i].option, cases[i].bad, &err), -1);
		CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
		CU_ASSERT_STRING_EQUAL(err.msg, cases[i].msg);
		CU_ASSERT_STRING_EQUAL(field, cases[i].good);
		assert_rejected(cases[i].option, "");
		assert_rejected(cases[i].option, "a-name-far-longer-than-any-field-can-hold-x");
	}
}

/* --device-gpus: a GPU preset a device, NAME*N for N in a row; written back as runs. */
static void config_set_reads_device_gpus_as_names_and_runs(void)
{
	struct config c;
	struct pp_error err = {0};
	const struct config_option *o = option("device-gpus");
	char buf[256];
	size_t n;
	const struct gpu_preset *g = preset_gpus(&n);

	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "device-gpus", "h100-sxm*2,a100-80g,a100-80g,h200", &err), 0);
	CU_ASSERT_EQUAL(c.ndevice_gpus, 5);
	CU_ASSERT_STRING_EQUAL(g[c.device_gpu[1]].name, "h100-sxm");
	CU_ASSERT_STRING_EQUAL(g[c.device_gpu[3]].name, "a100-80g");
	CU_ASSERT_STRING_EQUAL(config_gpu(&c), "h100-sxm");
	CU_ASSERT_STRING_EQUAL(config_device_gpu(&c, 4), "h200");
	o->format(&c, o, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "h100-sxm*2,a100-80g*2,h200");
	CU_ASSERT_EQUAL(set(&c, "device-gpus", "h100-sxm,b300", &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--device-gpus 'h100-sxm,b300': unknown GPU 'b300' ("));
	CU_ASSERT_EQUAL(set(&c, "device-gpus", "h100-sxm*0", &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "--device-gpus 'h100-sxm*0': 'h100-sxm*0' must be NAME*N "
	                                "with N from 1 to 1024");
	CU_ASSERT_EQUAL(set(&c, "device-gpus", "h100-sxm*1000,h200*25", &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "--device-gpus 'h100-sxm*1000,h200*25': more than 1024 "
	                                "devices");
	assert_rejected("device-gpus", "");
	assert_rejected("device-gpus", "h100-sxm,");
	assert_rejected("device-gpus", "h100-sxm*");
	assert_rejected("device-gpus", "h100-sxm*2x");
	CU_ASSERT_EQUAL(c.ndevice_gpus, 5);
}

static void config_set_reads_gated_or_plain_mlp_and_none_full_or_selective_recompute(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "mlp", "gated", &err), 0);
	CU_ASSERT_EQUAL(c.mlp, PP_MLP_GATED);
	CU_ASSERT_EQUAL(set(&c, "mlp", "plain", &err), 0);
	CU_ASSERT_EQUAL(c.mlp, PP_MLP_PLAIN);
	CU_ASSERT_EQUAL(set(&c, "recompute", "full", &err), 0);
	CU_ASSERT_EQUAL(c.recompute, PP_RECOMPUTE_FULL);
	CU_ASSERT_EQUAL(set(&c, "recompute", "selective", &err), 0);
	CU_ASSERT_EQUAL(c.recompute, PP_RECOMPUTE_SELECTIVE);
	CU_ASSERT_EQUAL(set(&c, "recompute", "none", &err), 0);
	CU_ASSERT_EQUAL(c.recompute, PP_RECOMPUTE_NONE);
	assert_rejected("mlp", "swiglu");
	assert_rejected("mlp", "Gated");
	assert_rejected("mlp", "");
	assert_rejected("recompute", "Selective");
	assert_rejected("recompute", "FULL");
	CU_ASSERT_EQUAL(set(&c, "recompute", "partial", &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg,
	                       "--recompute 'partial': must be 'none', 'full' or 'selective'");
	CU_ASSERT_EQUAL(c.recompute, PP_RECOMPUTE_NONE);
	CU_ASSERT_EQUAL(c.mlp, PP_MLP_PLAIN);
}

/* The origin recorded for the option with config-file key key. */
static struct config_origin origin_of(const struct config *c, const char *key)
{
	size_t n;
	const struct config_option *opts = config_options(&n);
	const struct config_option *o = config_option_by_key(key);

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_FATAL(o >= opts && o < opts + n);
	return c->origin[o - opts];
}

static void config_is_set_only_once_an_option_was_given(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_FALSE(config_is_set(&c, "tp"));
	CU_ASSERT_FALSE(config_is_set(&c, "p"));
	CU_ASSERT_EQUAL(origin_of(&c, "tp").line, 0);
	c.tp = 2; /* a field written directly is not user input */
	CU_ASSERT_FALSE(config_is_set(&c, "tp"));
	CU_ASSERT_EQUAL(set(&c, "tp", "4", &err), 0);
	CU_ASSERT_TRUE(config_is_set(&c, "tp"));
	CU_ASSERT_EQUAL(origin_of(&c, "tp").line, -1);
	CU_ASSERT_FALSE(config_is_set(&c, "p"));
	CU_ASSERT_EQUAL(set(&c, "dp", "0", &err), -1);
	CU_ASSERT_FALSE(config_is_set(&c, "dp"));
	CU_ASSERT_FALSE(config_is_set(&c, "no_such_key"));
	CU_ASSERT_FALSE(config_is_set(&c, "tensor-parallel"));
}

static void config_option_by_key_finds_rows_by_their_file_key_only(void)
{
	CU_ASSERT_PTR_EQUAL(config_option_by_key("p"), option("stages"));
	CU_ASSERT_PTR_EQUAL(config_option_by_key("kv_heads"), option("kv-heads"));
	CU_ASSERT_PTR_EQUAL(config_option_by_key("tied_embeddings"), option("tied-embeddings"));
	CU_ASSERT_PTR_NULL(config_option_by_key("stages"));
	CU_ASSERT_PTR_NULL(config_option_by_key("kv-heads"));
	CU_ASSERT_PTR_NULL(config_option_by_key("P"));
	CU_ASSERT_PTR_NULL(config_option_by_key(""));
}

static void config_validate_rejects_explicit_cost_options_with_a_model(void)
{
	static const struct {
		const char *name, *value;
	} cases[] = {
	        {"tf", "2"}, {"tb", "2"}, {"tw", "0.5"}, {"tcomm", "0.1"}, {"msg-bytes", "1000"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c;
		struct pp_error err = {0};
		char want[128];

		config_init(&c);
		CU_ASSERT_EQUAL(set(&c, "model", "llama3-70b", &err), 0);
		CU_ASSERT_EQUAL(config_validate(&c, &err), 0);
		CU_ASSERT_EQUAL(set(&c, cases[i].name, cases[i].value, &err), 0);
		snprintf(want, sizeof(want),
		         "--%s '%s': not with a model, which prices ops and messages itself",
		         cases[i].name, cases[i].value);
		CU_ASSERT_EQUAL(config_validate(&c, &err), -1);
		CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
		CU_ASSERT_STRING_EQUAL(err.msg, want);
	}
}

static void config_validate_rejects_model_options_without_a_model(void)
{
	static const struct {
		const char *name, *value;
	} cases[] = {
	        {"seq", "4096"},
	        {"mbs", "2"},
	        {"tp", "8"},
	        {"dp", "2"},
	        {"gpus", "64"},
	        {"gpus-per-node", "4"},
	        {"layers", "40"},
	        {"hidden", "4096"},
	        {"ffn", "11008"},
	        {"heads", "32"},
	        {"kv-heads", "8"},
	        {"vocab", "32000"},
	        {"mlp", "plain"},
	        {"tied-embeddings", "yes"},
	        {"gpu", "h200"},
	        {"tflops", "989"},
	        {"gpu-memory", "80"},
	        {"efficiency", "0.4"},
	        {"inter-link", "ib-ndr"},
	        {"inter-bandwidth", "50"},
	        {"inter-latency", "5"},
	        {"flash-attention", "no"},
	        {"recompute", "full"},
	        {"distributed-optimizer", "yes"},
	        {"bytes-per-param", "18"},
	        {"dtype-bytes", "4"},
	        {"layers-per-stage", "20,20,20,20"},
	        {"first-stage-layers", "10"},
	        {"last-stage-layers", "10"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c;
		struct pp_error err = {0};
		char want[128];

		config_init(&c);
		CU_ASSERT_EQUAL(set(&c, cases[i].name, cases[i].value, &err), 0);
		snprintf(want, sizeof(want), "--%s '%s': needs a model (--model) to price ops from",
		         cases[i].name, cases[i].value);
		CU_ASSERT_EQUAL(config_validate(&c, &err), -1);
		CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
		CU_ASSERT_STRING_EQUAL(err.msg, want);
		CU_ASSERT_EQUAL(set(&c, "model", "llama3-8b", &err), 0);
		CU_ASSERT_EQUAL(config_validate(&c, &err), 0);
	}
}

static void config_validate_accepts_a_link_with_or_without_a_model(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "link", "pcie4", &err), 0);
	CU_ASSERT_EQUAL(config_validate(&c, &err), 0);
	CU_ASSERT_EQUAL(set(&c, "model", "llama3-70b", &err), 0);
	CU_ASSERT_EQUAL(set(&c, "bandwidth", "10", &err), 0);
	CU_ASSERT_EQUAL(set(&c, "latency", "2", &err), 0);
	CU_ASSERT_EQUAL(config_validate(&c, &err), 0);
	CU_ASSERT_TRUE(config_has_model(&c));
}

static void config_fail_names_the_option_and_its_value_from_the_command_line(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "tp", "3", &err), 0);
	CU_ASSERT_EQUAL(config_fail(&c, "tp", &err, "must divide the %d GPUs", 8), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "--tp '3': must divide the 8 GPUs");
	CU_ASSERT_EQUAL(err.line, 0);
	CU_ASSERT_EQUAL(err.column, 0);
	CU_ASSERT_EQUAL(set(&c, "flash-attention", "off", &err), 0);
	CU_ASSERT_EQUAL(config_fail(&c, "flash_attention", &err, "x"), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "--flash-attention 'no': x");
	CU_ASSERT_EQUAL(set(&c, "layers-per-stage", "18,22", &err), 0);
	CU_ASSERT_EQUAL(config_fail(&c, "layers_per_stage", &err, "y"), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "--layers-per-stage '18,22': y");
	CU_ASSERT_EQUAL(set(&c, "recompute", "full", &err), 0);
	CU_ASSERT_EQUAL(config_fail(&c, "recompute", &err, "z"), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "--recompute 'full': z");
}

/* A scratch directory with one config file in it. */
struct scratch {
	char dir[64];   /* the directory mkdtemp made */
	char path[128]; /* dir/config.json */
};

/* Writes len bytes of text to a config file in a new scratch directory. */
static void scratch_write(struct scratch *s, const char *text, size_t len)
{
	FILE *f;

	snprintf(s->dir, sizeof(s->dir), "/tmp/ppsim-unit-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(s->dir));
	snprintf(s->path, sizeof(s->path), "%s/config.json", s->dir);
	f = fopen(s->path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(text, 1, len, f), len);
	CU_ASSERT_EQUAL(fclose(f), 0);
}

/* Removes the config file and its directory. */
static void scratch_remove(struct scratch *s)
{
	CU_ASSERT_EQUAL(remove(s->path), 0);
	CU_ASSERT_EQUAL(rmdir(s->dir), 0);
}

/* Loads text as a config file into c (already initialised); returns the status. The message of
 * a failure has the path replaced by "PATH" so tests can compare it whole. */
static int load(struct config *c, const char *text, size_t len, struct pp_error *err)
{
	struct scratch s;
	int rc;
	char *at;

	scratch_write(&s, text, len);
	rc = config_load_file(c, s.path, err);
	at = strstr(err->msg, s.path);
	if (at != NULL) {
		size_t n = strlen(s.path);

		memcpy(at, "PATH", 4);
		memmove(at + 4, at + n, strlen(at + n) + 1);
	}
	if (strcmp(c->file, s.path) == 0)
		strcpy(c->file, "PATH");
	scratch_remove(&s);
	return rc;
}

/* Loads a NUL-terminated text as a config file into a fresh config and asserts that it fails
 * with a PP_ERR_CONFIG error at line:column whose message is want (path shown as PATH). */
static void assert_file_rejected(const char *text, int line, int column, const char *want)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL(load(&c, text, strlen(text), &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_EQUAL(err.line, line);
	CU_ASSERT_EQUAL(err.column, column);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
}

static void config_load_file_sets_each_field_and_records_where_its_key_stands(void)
{
	static const char text[] = "{\n"
	                           "  \"model\": \"llama3-70b\",\n"
	                           "  \"p\": 4, \"m\": 16,\n"
	                           "\t\"layers_per_stage\": [18, 22, 20, 20],\n"
	                           "  \"flash_attention\": false,\n"
	                           "  \"efficiency\": 0.4,\n"
	                           "  \"link\": \"pcie5\"\n"
	                           "}\n";
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL_FATAL(load(&c, text, strlen(text), &err), 0);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_NONE);
	CU_ASSERT_STRING_EQUAL(c.file, "PATH");
	CU_ASSERT_STRING_EQUAL(c.model, "llama3-70b");
	CU_ASSERT_EQUAL(c.p, 4);
	CU_ASSERT_EQUAL(c.m, 16);
	CU_ASSERT_EQUAL(c.nlayers_per_stage, 4);
	CU_ASSERT_EQUAL(c.layers_per_stage[0], 18);
	CU_ASSERT_EQUAL(c.layers_per_stage[1], 22);
	CU_ASSERT_EQUAL(c.flash_attention, 0);
	ASSERT_NEAR(c.efficiency, 0.4);
	CU_ASSERT_STRING_EQUAL(c.link, "pcie5");
	CU_ASSERT_EQUAL(origin_of(&c, "model").line, 2);
	CU_ASSERT_EQUAL(origin_of(&c, "model").column, 3);
	CU_ASSERT_EQUAL(origin_of(&c, "p").line, 3);
	CU_ASSERT_EQUAL(origin_of(&c, "p").column, 3);
	CU_ASSERT_EQUAL(origin_of(&c, "m").line, 3);
	CU_ASSERT_EQUAL(origin_of(&c, "m").column, 11);
	CU_ASSERT_EQUAL(origin_of(&c, "layers_per_stage").line, 4);
	CU_ASSERT_EQUAL(origin_of(&c, "layers_per_stage").column, 2);
	CU_ASSERT_EQUAL(origin_of(&c, "flash_attention").line, 5);
	CU_ASSERT_EQUAL(origin_of(&c, "efficiency").line, 6);
	CU_ASSERT_EQUAL(origin_of(&c, "link").line, 7);
	CU_ASSERT_TRUE(config_is_set(&c, "p"));
	CU_ASSERT_FALSE(config_is_set(&c, "tp"));
	/* fields the file does not name keep their values */
	CU_ASSERT_EQUAL(c.tp, 1);
	CU_ASSERT_EQUAL(c.seq, 2048);
	CU_ASSERT_STRING_EQUAL(c.schedule, "1f1b");
	CU_ASSERT_EQUAL(config_validate(&c, &err), 0);
}

static void config_load_file_reads_an_empty_object_as_no_change(void)
{
	struct config c, before;
	struct pp_error err = {0};

	config_init(&c);
	config_init(&before);
	CU_ASSERT_EQUAL(load(&c, " { } ", 5, &err), 0);
	CU_ASSERT_EQUAL(c.p, before.p);
	CU_ASSERT_EQUAL(memcmp(c.origin, before.origin, sizeof(c.origin)), 0);
}

static void config_fail_names_the_file_line_and_column_of_a_value_from_a_file(void)
{
	static const char text[] = "{\n  \"model\": \"llama3-70b\",\n    \"tp\": 3\n}\n";
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL_FATAL(load(&c, text, strlen(text), &err), 0);
	CU_ASSERT_EQUAL(config_fail(&c, "tp", &err, "must divide the %d GPUs of a node", 8), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_STRING_EQUAL(
	        err.msg, "config 'PATH':3:5: key \"tp\" = 3: must divide the 8 GPUs of a node");
	CU_ASSERT_EQUAL(err.line, 3);
	CU_ASSERT_EQUAL(err.column, 5);
}

static void config_set_after_config_load_file_wins_over_the_file(void)
{
	static const char text[] = "{\"model\": \"llama3-70b\", \"tp\": 2, \"seq\": 4096}";
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL_FATAL(load(&c, text, strlen(text), &err), 0);
	CU_ASSERT_EQUAL(c.tp, 2);
	CU_ASSERT_EQUAL(origin_of(&c, "tp").line, 1);
	CU_ASSERT_EQUAL(origin_of(&c, "tp").column, 25);
	CU_ASSERT_EQUAL(set(&c, "tp", "4", &err), 0);
	CU_ASSERT_EQUAL(c.tp, 4);
	CU_ASSERT_EQUAL(origin_of(&c, "tp").line, -1);
	CU_ASSERT_EQUAL(c.seq, 4096);
	CU_ASSERT_EQUAL(config_fail(&c, "tp", &err, "boom"), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "--tp '4': boom");
	CU_ASSERT_EQUAL(config_fail(&c, "seq", &err, "boom"), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_STRING_EQUAL(err.msg, "config 'PATH':1:34: key \"seq\" = 4096: boom");
}

static void config_load_file_rejects_an_unknown_key_at_its_position(void)
{
	assert_file_rejected("{\n  \"p\": 4,\n  \"stagez\": 4\n}", 3, 3,
	                     "config 'PATH':3:3: unknown key \"stagez\" (keys are listed in "
	                     "docs/config.md); did you mean \"p\" (the key of --stages)?");
	/* keys are case-sensitive and are the file keys, not the option names */
	assert_file_rejected("{\"P\": 4}", 1, 2,
	                     "config 'PATH':1:2: unknown key \"P\" (keys are listed in "
	                     "docs/config.md)");
	assert_file_rejected("{\"p\": 4, \"stages\": 4}", 1, 10,
	                     "config 'PATH':1:10: unknown key \"stages\" (keys are listed in "
	                     "docs/config.md); the key of --stages is \"p\"");
	assert_file_rejected("{\"schedul\": \"1f1b\"}", 1, 2,
	                     "config 'PATH':1:2: unknown key \"schedul\" (keys are listed in "
	                     "docs/config.md); did you mean \"schedule\"?");
	assert_file_rejected("{\"frobnicate\": 1}", 1, 2,
	                     "config 'PATH':1:2: unknown key \"frobnicate\" (keys are listed in "
	                     "docs/config.md)");
}

/* The unknown-key error sends people to docs/config.md: every option of the table has its row
 * there, "| `--name=...` | `key` |" (tests run from the top of the tree). */
static void docs_config_md_has_a_row_for_every_option_and_key(void)
{
	FILE *f = fopen("docs/config.md", "r");
	size_t n, len = 0;
	const struct config_option *opt = config_options(&n);
	char *text = NULL, row[160];

	CU_ASSERT_FATAL(f != NULL);
	text = unit_calloc(1, 1 << 20);
	len = fread(text, 1, (1 << 20) - 1, f);
	text[len] = '\0';
	fclose(f);
	for (size_t i = 0; i < n; i++) {
		bool found = false;

		/* the row starts with the option, "`-p`, `--stages=N`" or "`--tf=T`", then the key
		 */
		snprintf(row, sizeof(row), "`--%s%s%s` | `%s` |", opt[i].name,
		         opt[i].metavar != NULL && opt[i].metavar[0] != '\0' ? "=" : "",
		         opt[i].metavar != NULL ? opt[i].metavar : "", opt[i].key);
		found = strstr(text, row) != NULL;
		if (!found)
			fprintf(stderr, "\ndocs/config.md lacks the row %s\n", row);
		CU_ASSERT(found);
	}
	free(text);
}

static void config_load_file_rejects_a_duplicate_key_naming_where_it_first_stood(void)
{
	assert_file_rejected("{\n  \"p\": 4,\n  \"m\": 8,\n    \"p\": 4\n}", 4, 5,
	                     "config 'PATH':4:5: key \"p\" appears twice (first at 2:3)");
}

static void config_load_file_rejects_a_string_where_a_number_belongs(void)
{
	assert_file_rejected("{\"p\": \"4\"}", 1, 2,
	                     "config 'PATH':1:2: key \"p\": expected an integer, got a string");
	assert_file_rejected("{\n\"m\": 8, \"bandwidth\": \"300\"}", 2, 9,
	                     "config 'PATH':2:9: key \"bandwidth\": expected a number, got a "
	                     "string");
	assert_file_rejected("{\"t_f\": null}", 1, 2,
	                     "config 'PATH':1:2: key \"t_f\": expected a number, got null");
}

static void config_load_file_rejects_a_number_where_a_string_belongs(void)
{
	assert_file_rejected(
	        "{\"schedule\": 1}", 1, 2,
	        "config 'PATH':1:2: key \"schedule\": expected a string, got a number");
	assert_file_rejected("{\"model\": [\"llama3-70b\"]}", 1, 2,
	                     "config 'PATH':1:2: key \"model\": expected a string, got an array");
}

static void config_load_file_rejects_a_boolean_of_the_wrong_kind(void)
{
	assert_file_rejected("{\"flash_attention\": \"yes\"}", 1, 2,
	                     "config 'PATH':1:2: key \"flash_attention\": expected true or false, "
	                     "got a string");
	assert_file_rejected("{\"distributed_optimizer\": 1}", 1, 2,
	                     "config 'PATH':1:2: key \"distributed_optimizer\": expected true or "
	                     "false, got a number");
	assert_file_rejected("{\"p\": true}", 1, 2,
	                     "config 'PATH':1:2: key \"p\": expected an integer, got a boolean");
}

static void config_load_file_rejects_layers_per_stage_that_are_not_an_array_of_integers(void)
{
	assert_file_rejected("{\"layers_per_stage\": \"20,20\"}", 1, 2,
	                     "config 'PATH':1:2: key \"layers_per_stage\": expected an array of "
	                     "integers, got a string");
	assert_file_rejected("{\"layers_per_stage\": [20, \"20\"]}", 1, 2,
	                     "config 'PATH':1:2: key \"layers_per_stage\": expected an array of "
	                     "integers, got an array holding a string");
	assert_file_rejected("{\"layers_per_stage\": [20, 20.5]}", 1, 2,
	                     "config 'PATH':1:2: key \"layers_per_stage\" '20,20.5': must be up to "
	                     "1024 integers from 0 to 16777216, comma-separated");
	assert_file_rejected("{\"layers_per_stage\": []}", 1, 2,
	                     "config 'PATH':1:2: key \"layers_per_stage\" '': must be up to 1024 "
	                     "integers from 0 to 16777216, comma-separated");
}

static void config_load_file_rejects_values_out_of_range(void)
{
	assert_file_rejected("{\n  \"p\": 0\n}", 2, 3,
	                     "config 'PATH':2:3: key \"p\" '0': must be an integer from 1 to "
	                     "65536");
	assert_file_rejected("{\"m\": 2.5}", 1, 2,
	                     "config 'PATH':1:2: key \"m\" '2.5': must be an integer from 1 to "
	                     "16777216");
	assert_file_rejected("{\"p\": 4, \"bandwidth\": -5}", 1, 10,
	                     "config 'PATH':1:10: key \"bandwidth\" '-5': must be a number above 0 "
	                     "and at most 1e9");
	assert_file_rejected("{\"efficiency\": 1.5}", 1, 2,
	                     "config 'PATH':1:2: key \"efficiency\" '1.5': must be a number from 0 "
	                     "to 1");
	assert_file_rejected("{\"model\": \"llama3\"}", 1, 2,
	                     "config 'PATH':1:2: key \"model\" 'llama3': unknown model; known: "
	                     "llama3-8b, llama3-70b, llama3-405b, gpt3-175b, deepseek-v3, "
	                     "mixtral-8x7b, mixtral-8x22b, qwen3-30b-a3b, qwen3-235b-a22b");
}

static void config_load_file_rejects_invalid_json_at_the_position_of_the_error(void)
{
	/* a value missing after the colon: the parser stops at the closing brace */
	assert_file_rejected("{\n  \"p\": 4,\n  \"m\": \n}\n", 4, 1,
	                     "config 'PATH':4:1: invalid JSON");
	/* a missing comma: the parser stops at the second key */
	assert_file_rejected("{\"p\": 4 \"m\": 8}", 1, 9, "config 'PATH':1:9: invalid JSON");
	/* text after the object */
	assert_file_rejected("{\"p\": 4}\nx", 2, 1, "config 'PATH':2:1: invalid JSON");
}

static void config_load_file_places_a_trailing_comma_error_at_the_closing_brace(void)
{
	/* the comma promises another member; the brace at column 9 is where that fails */
	assert_file_rejected("{\"p\": 4,}", 1, 9, "config 'PATH':1:9: invalid JSON");
	assert_file_rejected("{\n  \"p\": 4,\n}\n", 3, 1, "config 'PATH':3:1: invalid JSON");
}

static void config_load_file_rejects_a_top_level_that_is_not_an_object(void)
{
	assert_file_rejected("[1, 2]", 1, 1, "config 'PATH':1:1: the top level must be an object");
	assert_file_rejected("4", 1, 1, "config 'PATH':1:1: the top level must be an object");
}

static void config_load_file_places_a_top_level_that_is_not_an_object_where_its_value_starts(void)
{
	assert_file_rejected("\n\n  [{\"p\": 4}]\n", 3, 3,
	                     "config 'PATH':3:3: the top level must be an object");
	assert_file_rejected("  \"p\"", 1, 3, "config 'PATH':1:3: the top level must be an object");
}

static void config_load_file_rejects_a_nul_byte_at_its_position(void)
{
	static const char text[] = "{\n  \"p\": 4,\0 \"m\": 8\n}\n";
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL(load(&c, text, sizeof(text) - 1, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_EQUAL(err.line, 2);
	CU_ASSERT_EQUAL(err.column, 10);
	CU_ASSERT_STRING_EQUAL(err.msg, "config 'PATH':2:10: a NUL byte: not a JSON file");
}

static void config_load_file_reports_a_file_it_cannot_read_as_an_io_error(void)
{
	struct config c;
	struct pp_error err = {0};
	char dir[] = "/tmp/ppsim-unit-XXXXXX", path[64];

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/missing.json", dir);
	config_init(&c);
	CU_ASSERT_EQUAL(config_load_file(&c, path, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_IO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "No such file"));
	CU_ASSERT_EQUAL(c.p, 4);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
}

static void config_set_reads_comma_separated_stage_scales(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "stage-scale", "1,1,1,1.5", &err), 0);
	CU_ASSERT_EQUAL(c.nstage_scale, 4);
	ASSERT_NEAR(c.stage_scale[0], 1);
	ASSERT_NEAR(c.stage_scale[3], 1.5);
	CU_ASSERT_EQUAL(set(&c, "stage-scale", "0.25,4e2", &err), 0);
	CU_ASSERT_EQUAL(c.nstage_scale, 2);
	ASSERT_NEAR(c.stage_scale[0], 0.25);
	ASSERT_NEAR(c.stage_scale[1], 400);
	CU_ASSERT_EQUAL(set(&c, "stage-scale", "1000000", &err), 0);
	CU_ASSERT_EQUAL(c.nstage_scale, 1);
	CU_ASSERT_TRUE(config_is_set(&c, "stage_scale"));
}

static void config_set_rejects_stage_scales_that_are_not_numbers_above_0(void)
{
	static const char *const bad[] = {"0",  "-1",    "1,0", "1,,2", "",   ",1",
	                                  "1,", "1,abc", "1e7", "nan",  "inf"};
	struct config c;
	struct pp_error err = {0};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[160];

		config_init(&c);
		CU_ASSERT_EQUAL(set(&c, "stage-scale", "2,3", &err), 0);
		CU_ASSERT_EQUAL(set(&c, "stage-scale", bad[i], &err), -1);
		CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
		snprintf(want, sizeof(want),
		         "--stage-scale '%s': must be up to 1024 numbers above 0 and at most 1e6, "
		         "comma-separated",
		         bad[i]);
		CU_ASSERT_STRING_EQUAL(err.msg, want);
		/* a rejected list keeps the old one */
		CU_ASSERT_EQUAL(c.nstage_scale, 2);
		ASSERT_NEAR(c.stage_scale[1], 3);
	}
}

static void config_validate_takes_p_or_p_times_v_stage_scales_only(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "schedule", "interleaved", &err), 0);
	c.v = 2;
	CU_ASSERT_EQUAL(set(&c, "stage-scale", "1,1,1", &err), 0);
	CU_ASSERT_EQUAL(config_validate(&c, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "--stage-scale '1,1,1': gives 3 factors; give p = 4 (per "
	                                "device) or p*v = 8 (per stage)");
	CU_ASSERT_EQUAL(set(&c, "stage-scale", "1,2,3,4,5,6,7,8,9", &err), 0);
	CU_ASSERT_EQUAL(config_validate(&c, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "gives 9 factors"));
	memset(&err, 0, sizeof(err));
	CU_ASSERT_EQUAL(set(&c, "stage-scale", "1,2,3,4", &err), 0);
	CU_ASSERT_EQUAL(config_validate(&c, &err), 0);
	CU_ASSERT_EQUAL(set(&c, "stage-scale", "1,2,3,4,5,6,7,8", &err), 0);
	CU_ASSERT_EQUAL(config_validate(&c, &err), 0);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_NONE);
}

static void config_stage_scale_is_per_device_with_p_factors_and_per_stage_with_p_times_v(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	c.v = 2;
	/* no factors: every stage 1 */
	for (int st = 0; st < 8; st++)
		ASSERT_NEAR(config_stage_scale(&c, st, st % 4), 1);
	/* p factors: the device's, whatever the stage */
	CU_ASSERT_EQUAL(set(&c, "stage-scale", "1,2,3,4", &err), 0);
	ASSERT_NEAR(config_stage_scale(&c, 4, 3), 4);
	ASSERT_NEAR(config_stage_scale(&c, 7, 0), 1);
	ASSERT_NEAR(config_stage_scale(&c, 1, 1), 2);
	/* p*v factors: the stage's, whatever the device */
	CU_ASSERT_EQUAL(set(&c, "stage-scale", "1,2,3,4,5,6,7,8", &err), 0);
	ASSERT_NEAR(config_stage_scale(&c, 4, 3), 5);
	ASSERT_NEAR(config_stage_scale(&c, 7, 0), 8);
	ASSERT_NEAR(config_stage_scale(&c, 1, 1), 2);
}

static void config_load_file_reads_stage_scale_as_an_array_of_numbers(void)
{
	struct config c;
	struct pp_error err = {0};
	static const char text[] = "{\"stage_scale\": [1, 1, 1, 1.5]}";

	config_init(&c);
	CU_ASSERT_EQUAL_FATAL(load(&c, text, strlen(text), &err), 0);
	CU_ASSERT_EQUAL(c.nstage_scale, 4);
	ASSERT_NEAR(c.stage_scale[3], 1.5);
	CU_ASSERT_TRUE(config_is_set(&c, "stage_scale"));
	assert_file_rejected(
	        "{\"stage_scale\": \"1,2\"}", 1, 2,
	        "config 'PATH':1:2: key \"stage_scale\": expected an array of numbers, "
	        "got a string");
	assert_file_rejected("{\"stage_scale\": [1, 0]}", 1, 2,
	                     "config 'PATH':1:2: key \"stage_scale\" '1,0': must be up to 1024 "
	                     "numbers above 0 and at most 1e6, comma-separated");
}

static void config_validate_takes_a_memory_limit_for_zb_auto_and_zbv_auto_only(void)
{
	static const char *const others[] = {"zbh1", "zb1p", "zb2p", "1f1b", "zbv", "vhalf"};
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "schedule", "zb-auto", &err), 0);
	CU_ASSERT_EQUAL(set(&c, "mem-limit", "2.5", &err), 0);
	ASSERT_NEAR(c.mem_limit, 2.5);
	CU_ASSERT_EQUAL(config_validate(&c, &err), 0);
	CU_ASSERT_EQUAL(set(&c, "mem-limit", "0.5", &err), 0);
	CU_ASSERT_EQUAL(config_validate(&c, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "--mem-limit '0.5': must be at least 1 micro-batch");
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		char want[96], v[8];

		snprintf(v, sizeof(v), "%d", sched_find(others[i])->min_v);
		CU_ASSERT_EQUAL(set(&c, "schedule", others[i], &err), 0);
		CU_ASSERT_EQUAL(set(&c, "chunks", v, &err), 0);
		CU_ASSERT_EQUAL(set(&c, "mem-limit", "3", &err), 0);
		CU_ASSERT_EQUAL(config_validate(&c, &err), -1);
		snprintf(want, sizeof(want),
		         "--mem-limit '3': only zbv-auto and zb-auto take a memory limit, not %s",
		         others[i]);
		CU_ASSERT_STRING_EQUAL(err.msg, want);
	}
	CU_ASSERT_EQUAL(set(&c, "schedule", "zbv-auto", &err), 0);
	CU_ASSERT_EQUAL(set(&c, "chunks", "2", &err), 0);
	CU_ASSERT_EQUAL(config_validate(&c, &err), 0);
	assert_rejected("mem-limit", "0");
	assert_rejected("mem-limit", "-4");
}

static void config_set_takes_an_overlap_factor_above_0(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "overlap-factor", "0.5", &err), 0);
	ASSERT_NEAR(c.overlap_factor, 0.5);
	CU_ASSERT_EQUAL(set(&c, "overlap-factor", "1.25", &err), 0);
	ASSERT_NEAR(c.overlap_factor, 1.25);
	assert_rejected("overlap-factor", "0");
	assert_rejected("overlap-factor", "-0.5");
	assert_rejected("overlap-factor", "x");
	CU_ASSERT_EQUAL(set(&c, "overlap-factor", "0", &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "--overlap-factor '0': must be a number above 0 and at "
	                                "most 1e9");
	ASSERT_NEAR(c.overlap_factor, 1.25);
}

/* Every schedule without overlapped F&B pairs refuses --overlap-factor, as it refuses what else
 * it does not use; those with pairs take it. */
static void config_validate_refuses_an_overlap_factor_where_no_pair_overlaps(void)
{
	size_t n;
	const struct sched_desc *t = sched_table(&n);

	for (size_t i = 0; i < n; i++) {
		struct config c;
		struct pp_error err = {0};
		char v[16];

		config_init(&c);
		snprintf(v, sizeof(v), "%d", t[i].min_v);
		CU_ASSERT_EQUAL_FATAL(set(&c, "schedule", t[i].name, &err), 0);
		CU_ASSERT_EQUAL_FATAL(set(&c, "chunks", v, &err), 0);
		CU_ASSERT_EQUAL(config_validate(&c, &err), 0);
		CU_ASSERT_EQUAL_FATAL(set(&c, "overlap-factor", "0.5", &err), 0);
		if (t[i].overlaps) {
			CU_ASSERT_EQUAL(config_validate(&c, &err), 0);
		} else {
			CU_ASSERT_EQUAL(config_validate(&c, &err), -1);
			CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
			CU_ASSERT_PTR_NOT_NULL(strstr(
			        err.msg, "--overlap-factor '0.5': only schedules of overlapped "
			                 "F&B pairs (interleaved-combined, dualpipev, and "
			                 "dualpipe) take it, not "));
		}
	}
}

static void config_set_takes_a_schedule_file_name_and_validate_bars_generator_options(void)
{
	struct config c;
	struct pp_error err = {0};
	char longname[PP_PATH_MAX + 10];

	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "schedule-file", "order.csv", &err), 0);
	CU_ASSERT_STRING_EQUAL(c.schedule_file, "order.csv");
	CU_ASSERT_EQUAL(config_validate(&c, &err), 0);
	CU_ASSERT_EQUAL(set(&c, "schedule-file", "", &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg,
	                       "--schedule-file '': must be a path of 1 to 4095 characters");
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	CU_ASSERT_EQUAL(set(&c, "schedule-file", longname, &err), -1);
	CU_ASSERT_STRING_EQUAL(c.schedule_file, "order.csv");
	CU_ASSERT_EQUAL(set(&c, "group-size", "4", &err), 0);
	CU_ASSERT_EQUAL(config_validate(&c, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "--group-size '4': not with --schedule-file");
}

static const struct unit_test tests[] = {
        UNIT_TEST(config_init_sets_the_documented_defaults),
        UNIT_TEST(config_options_describe_each_field_once),
        UNIT_TEST(config_options_name_their_commands_and_their_names),
        UNIT_TEST(config_check_command_refuses_an_option_where_it_does_not_belong),
        UNIT_TEST(config_value_words_lists_what_each_name_option_takes),
        UNIT_TEST(config_model_links_take_the_options_then_the_gpu_defaults),
        UNIT_TEST(config_set_stores_valid_counts),
        UNIT_TEST(config_set_rejects_counts_that_are_not_whole_numbers_in_range),
        UNIT_TEST(config_set_names_the_label_value_and_range_of_a_bad_count),
        UNIT_TEST(config_set_stores_valid_times),
        UNIT_TEST(config_set_rejects_times_that_are_not_finite_non_negative_and_in_range),
        UNIT_TEST(config_set_stores_valid_bytes_and_rates),
        UNIT_TEST(config_set_rejects_bad_bytes_and_rates),
        UNIT_TEST(config_set_takes_schedule_names_and_pytorch_s_in_any_case),
        UNIT_TEST(config_set_parses_comm_and_duplex_names),
        UNIT_TEST(config_set_rejects_unknown_comm_and_duplex_names),
        UNIT_TEST(config_comm_and_duplex_names_match_what_users_write),
        UNIT_TEST(config_validate_accepts_the_defaults),
        UNIT_TEST(config_validate_rejects_two_chunks_for_gpipe_and_1f1b),
        UNIT_TEST(config_validate_rejects_an_unknown_schedule),
        UNIT_TEST(config_validate_rejects_more_ops_than_the_cap),
        UNIT_TEST(config_validate_accepts_exactly_the_op_cap),
        UNIT_TEST(config_validate_caps_devices_at_65536_whatever_the_ops),
        UNIT_TEST(config_validate_refuses_a_time_below_one_tick),
        UNIT_TEST(config_validate_rejects_tcomm_together_with_bandwidth),
        UNIT_TEST(config_validate_rejects_latency_without_bandwidth),
        UNIT_TEST(config_validate_rejects_a_message_slower_than_the_time_limit),
        UNIT_TEST(config_msg_time_is_tcomm_without_a_link),
        UNIT_TEST(config_msg_time_is_latency_plus_bytes_over_bandwidth_in_ms),
        UNIT_TEST(config_set_reads_yes_true_on_1_as_true_and_no_false_off_0_as_false),
        UNIT_TEST(config_set_rejects_other_words_for_a_boolean),
        UNIT_TEST(config_set_reads_a_comma_separated_list_of_layers),
        UNIT_TEST(config_set_rejects_lists_with_an_empty_negative_or_non_integer_entry),
        UNIT_TEST(config_set_rejects_a_list_of_more_entries_than_the_most_it_takes),
        UNIT_TEST(config_set_says_why_it_rejects_a_list_too_long_to_quote_whole),
        UNIT_TEST(config_set_keeps_the_previous_list_when_it_rejects_a_new_one),
        UNIT_TEST(config_set_reads_shares_from_0_to_1),
        UNIT_TEST(config_set_takes_preset_names_and_lists_the_known_ones_otherwise),
        UNIT_TEST(config_set_reads_gated_or_plain_mlp_and_none_full_or_selective_recompute),
        UNIT_TEST(config_set_reads_device_gpus_as_names_and_runs),
        UNIT_TEST(config_is_set_only_once_an_option_was_given),
        UNIT_TEST(config_option_by_key_finds_rows_by_their_file_key_only),
        UNIT_TEST(config_validate_rejects_explicit_cost_options_with_a_model),
        UNIT_TEST(config_validate_rejects_model_options_without_a_model),
        UNIT_TEST(config_validate_accepts_a_link_with_or_without_a_model),
        UNIT_TEST(config_fail_names_the_option_and_its_value_from_the_command_line),
        UNIT_TEST(config_load_file_sets_each_field_and_records_where_its_key_stands),
        UNIT_TEST(config_load_file_reads_an_empty_object_as_no_change),
        UNIT_TEST(config_fail_names_the_file_line_and_column_of_a_value_from_a_file),
        UNIT_TEST(config_set_after_config_load_file_wins_over_the_file),
        UNIT_TEST(config_load_file_rejects_an_unknown_key_at_its_position),
        UNIT_TEST(docs_config_md_has_a_row_for_every_option_and_key),
        UNIT_TEST(config_load_file_rejects_a_duplicate_key_naming_where_it_first_stood),
        UNIT_TEST(config_load_file_rejects_a_string_where_a_number_belongs),
        UNIT_TEST(config_load_file_rejects_a_number_where_a_string_belongs),
        UNIT_TEST(config_load_file_rejects_a_boolean_of_the_wrong_kind),
        UNIT_TEST(config_load_file_rejects_layers_per_stage_that_are_not_an_array_of_integers),
        UNIT_TEST(config_load_file_rejects_values_out_of_range),
        UNIT_TEST(config_load_file_rejects_invalid_json_at_the_position_of_the_error),
        UNIT_TEST(config_load_file_places_a_trailing_comma_error_at_the_closing_brace),
        UNIT_TEST(config_load_file_rejects_a_top_level_that_is_not_an_object),
        UNIT_TEST(config_load_file_places_a_top_level_that_is_not_an_object_where_its_value_starts),
        UNIT_TEST(config_load_file_rejects_a_nul_byte_at_its_position),
        UNIT_TEST(config_load_file_reports_a_file_it_cannot_read_as_an_io_error),
        UNIT_TEST(config_set_reads_comma_separated_stage_scales),
        UNIT_TEST(config_set_rejects_stage_scales_that_are_not_numbers_above_0),
        UNIT_TEST(config_validate_takes_p_or_p_times_v_stage_scales_only),
        UNIT_TEST(config_stage_scale_is_per_device_with_p_factors_and_per_stage_with_p_times_v),
        UNIT_TEST(config_load_file_reads_stage_scale_as_an_array_of_numbers),
        UNIT_TEST(config_validate_takes_a_memory_limit_for_zb_auto_and_zbv_auto_only),
        UNIT_TEST(config_set_takes_an_overlap_factor_above_0),
        UNIT_TEST(config_validate_refuses_an_overlap_factor_where_no_pair_overlaps),
        UNIT_TEST(config_set_takes_a_schedule_file_name_and_validate_bars_generator_options),
        {NULL, NULL},
};

const struct unit_suite suite_config = {"config", tests};
