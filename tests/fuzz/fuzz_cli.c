/*
 * Fuzzes command-line parsing: the input is split at newlines and NUL bytes into arguments for
 * the command its first byte picks; parsed options are applied to a config (or to a sweep's
 * axes) and checked, without simulating and without reading files.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "fuzz.h"

#define MAX_ARGS 32

static const enum cli_mode modes[] = {CLI_RUN,      CLI_COMPARE,   CLI_SWEEP,
                                      CLI_ADVISE,   CLI_BREAKEVEN, CLI_SERVE};

/* Splits text[0..size-1] into argv[1..] at '\n' and '\0'; returns argc. */
static int split(char *text, size_t size, char **argv)
{
	static char name[] = "ppsim";
	int argc = 1;

	argv[0] = name;
	for (size_t i = 0; i < size && argc < MAX_ARGS; i++) {
		size_t start = i;

		while (i < size && text[i] != '\n' && text[i] != '\0')
			i++;
		text[i] = '\0';
		argv[argc++] = text + start;
	}
	argv[argc] = NULL;
	return argc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *argv[MAX_ARGS + 1];
	struct cli cli;
	enum cli_mode mode;
	int argc;

	if (size == 0)
		return 0;
	fuzz_quiet();
	mode = modes[data[0] % (sizeof(modes) / sizeof(modes[0]))];
	text = fuzz_text(data + 1, size - 1);
	argc = split(text, size - 1, argv);
	if (cli_parse(argc, argv, mode, &cli) < 0) {
		struct pp_error err = {0};

		cli.config_file = NULL; /* no file reads */
		if (mode == CLI_SWEEP || mode == CLI_ADVISE) {
			struct sweep sw;

			if (cli_sweep(&cli, &sw, &err) == 0)
				sweep_release(&sw);
		} else {
			struct config *c = malloc(sizeof(*c));

			if (cli_config(&cli, NULL, c, &err) == 0) {
				if (mode == CLI_SERVE)
					config_validate_serve(c, &err);
				else
					config_validate(c, &err);
			}
			free(c);
		}
	}
	cli_release(&cli);
	free(text);
	return 0;
}
