/* Unit tests of config: defaults, the option table, value parsing and whole-config validation. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ppsim/config.h"
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
	CU_ASSERT_EQUAL(c.distributed_optimizer, 0);
	ASSERT_NEAR(c.bytes_per_param, 16);
	CU_ASSERT_EQUAL(c.dtype_bytes, 2);
	ASSERT_NEAR(c.efficiency, 0.5);
	CU_ASSERT_EQUAL(c.tied, -1);
	CU_ASSERT_EQUAL(c.mlp, PP_MLP_PRESET);
}

static void config_options_describe_each_field_once(void)
{
	static const struct {
		const char *name;
		int short_name;
		const char *key;
		enum config_arg arg;
	} want[] = {
	        {"schedule", 's', "schedule", CONFIG_ARG_NAME},
	        {"stages", 'p', "p", CONFIG_ARG_COUNT},
	        {"microbatches", 'm', "m", CONFIG_ARG_COUNT},
	        {"chunks", 'v', "v", CONFIG_ARG_COUNT},
	        {"tf", 0, "t_f", CONFIG_ARG_TIME},
	        {"tb", 0, "t_b", CONFIG_ARG_TIME},
	        {"tw", 0, "t_w", CONFIG_ARG_TIME},
	        {"tcomm", 0, "t_comm", CONFIG_ARG_TIME},
	        {"msg-bytes", 0, "msg_bytes", CONFIG_ARG_BYTES},
	        {"bandwidth", 0, "bandwidth", CONFIG_ARG_RATE},
	        {"latency", 0, "latency", CONFIG_ARG_TIME},
	        {"comm", 0, "comm", CONFIG_ARG_NAME},
	        {"group-size", 0, "group_size", CONFIG_ARG_COUNT},
	        {"w-mem-fraction", 0, "w_mem_fraction", CONFIG_ARG_SHARE},
	        {"duplex", 0, "duplex", CONFIG_ARG_NAME},
	        {"link", 0, "link", CONFIG_ARG_NAME},
	        {"model", 0, "model", CONFIG_ARG_NAME},
	        {"layers", 0, "layers", CONFIG_ARG_COUNT},
	        {"hidden", 0, "hidden", CONFIG_ARG_COUNT},
	        {"ffn", 0, "ffn", CONFIG_ARG_COUNT},
	        {"heads", 0, "heads", CONFIG_ARG_COUNT},
	        {"kv-heads", 0, "kv_heads", CONFIG_ARG_COUNT},
	        {"vocab", 0, "vocab", CONFIG_ARG_COUNT},
	        {"mlp", 0, "mlp", CONFIG_ARG_NAME},
	        {"tied-embeddings", 0, "tied_embeddings", CONFIG_ARG_BOOL},
	        {"gpu", 0, "gpu", CONFIG_ARG_NAME},
	        {"tflops", 0, "tflops", CONFIG_ARG_RATE},
	        {"gpu-memory", 0, "gpu_memory", CONFIG_ARG_RATE},
	        {"efficiency", 0, "efficiency", CONFIG_ARG_SHARE},
	        {"inter-link", 0, "inter_link", CONFIG_ARG_NAME},
	        {"inter-bandwidth", 0, "inter_bandwidth", CONFIG_ARG_RATE},
	        {"inter-latency", 0, "inter_latency", CONFIG_ARG_TIME},
	        {"seq", 0, "seq", CONFIG_ARG_COUNT},
	        {"mbs", 0, "mbs", CONFIG_ARG_COUNT},
	        {"tp", 0, "tp", CONFIG_ARG_COUNT},
	        {"dp", 0, "dp", CONFIG_ARG_COUNT},
	        {"gpus", 0, "gpus", CONFIG_ARG_COUNT},
	        {"gpus-per-node", 0, "gpus_per_node", CONFIG_ARG_COUNT},
	        {"flash-attention", 0, "flash_attention", CONFIG_ARG_BOOL},
	        {"recompute", 0, "recompute", CONFIG_ARG_NAME},
	        {"distributed-optimizer", 0, "distributed_optimizer", CONFIG_ARG_BOOL},
	        {"bytes-per-param", 0, "bytes_per_param", CONFIG_ARG_RATE},
	        {"dtype-bytes", 0, "dtype_bytes", CONFIG_ARG_COUNT},
	        {"layers-per-stage", 0, "layers_per_stage", CONFIG_ARG_LIST},
	        {"first-stage-layers", 0, "first_stage_layers", CONFIG_ARG_COUNT},
	        {"last-stage-layers", 0, "last_stage_layers", CONFIG_ARG_COUNT},
	};
	size_t n;
	const struct config_option *opts = config_options(&n);

	CU_ASSERT_EQUAL(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct config_option *o = option(want[i].name);

		CU_ASSERT_EQUAL(o->short_name, want[i].short_name);
		CU_ASSERT_STRING_EQUAL(o->key, want[i].key);
		CU_ASSERT_EQUAL(o->arg, want[i].arg);
		CU_ASSERT_PTR_NOT_NULL(o->metavar);
		CU_ASSERT_PTR_NOT_NULL(o->help);
		for (size_t j = 0; j < n; j++)
			if (&opts[j] != o)
				CU_ASSERT_NOT_EQUAL(opts[j].offset, o->offset);
	}
}

static void config_set_stores_valid_counts(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "stages", "8", &err), 0);
	CU_ASSERT_EQUAL(set(&c, "microbatches", "1", &err), 0);
	CU_ASSERT_EQUAL(set(&c, "chunks", "16777216", &err), 0);
	CU_ASSERT_EQUAL(c.p, 8);
	CU_ASSERT_EQUAL(c.m, 1);
	CU_ASSERT_EQUAL(c.v, 16777216);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_NONE);
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
	CU_ASSERT_STRING_EQUAL(err.msg, "-p '0': must be an integer from 1 to 16777216");
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

static void config_set_accepts_known_schedules_only(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL(set(&c, "schedule", "gpipe", &err), 0);
	CU_ASSERT_STRING_EQUAL(c.schedule, "gpipe");
	CU_ASSERT_EQUAL(set(&c, "schedule", "1f1b", &err), 0);
	CU_ASSERT_STRING_EQUAL(c.schedule, "1f1b");
	CU_ASSERT_EQUAL(set(&c, "schedule", "GPipe", &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "--schedule 'GPipe': unknown schedule; known: gpipe, 1f1b, "
	                                "interleaved, zbh1, zbh2");
	CU_ASSERT_STRING_EQUAL(c.schedule, "1f1b");
	assert_rejected("schedule", "");
	assert_rejected("schedule", "zbh1x");
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
	c.p = 100000;
	c.m = 100000;
	c.v = 64;
	CU_ASSERT_EQUAL(config_validate(&c, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "-p 100000 -m 100000 -v 64"));
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

static const struct unit_test tests[] = {
        UNIT_TEST(config_init_sets_the_documented_defaults),
        UNIT_TEST(config_options_describe_each_field_once),
        UNIT_TEST(config_set_stores_valid_counts),
        UNIT_TEST(config_set_rejects_counts_that_are_not_whole_numbers_in_range),
        UNIT_TEST(config_set_names_the_label_value_and_range_of_a_bad_count),
        UNIT_TEST(config_set_stores_valid_times),
        UNIT_TEST(config_set_rejects_times_that_are_not_finite_non_negative_and_in_range),
        UNIT_TEST(config_set_stores_valid_bytes_and_rates),
        UNIT_TEST(config_set_rejects_bad_bytes_and_rates),
        UNIT_TEST(config_set_accepts_known_schedules_only),
        UNIT_TEST(config_set_parses_comm_and_duplex_names),
        UNIT_TEST(config_set_rejects_unknown_comm_and_duplex_names),
        UNIT_TEST(config_comm_and_duplex_names_match_what_users_write),
        UNIT_TEST(config_validate_accepts_the_defaults),
        UNIT_TEST(config_validate_rejects_two_chunks_for_gpipe_and_1f1b),
        UNIT_TEST(config_validate_rejects_an_unknown_schedule),
        UNIT_TEST(config_validate_rejects_more_ops_than_the_cap),
        UNIT_TEST(config_validate_accepts_exactly_the_op_cap),
        UNIT_TEST(config_validate_rejects_tcomm_together_with_bandwidth),
        UNIT_TEST(config_validate_rejects_latency_without_bandwidth),
        UNIT_TEST(config_validate_rejects_a_message_slower_than_the_time_limit),
        UNIT_TEST(config_msg_time_is_tcomm_without_a_link),
        UNIT_TEST(config_msg_time_is_latency_plus_bytes_over_bandwidth_in_ms),
        {NULL, NULL},
};

const struct unit_suite suite_config = {"config", tests};
