/*
 * `ppsim completion bash|zsh|fish`: prints a completion script generated from the tables, so
 * that it always knows every command, option and value ppsim takes: the command table (names,
 * the options each takes through its bit in the commands column, what its arguments are, its
 * --format list from the format registry) and the option table (the words each option's value
 * can be, which files). A value's words complete after the last comma too, for lists
 * (--schedules=1f1b,zb<TAB>, a sweep's -s). zsh runs the bash script through its bashcompinit;
 * fish gets its own `complete` lines. `make install` installs all three.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "ppsim/report.h"
#include "ppsim/schedfile.h"

/* A bash case branch completing the options in `names` with the words in `words`, after the
 * last comma of a list too. */
static void words_case(FILE *out, const char *names, const char *words)
{
	fprintf(out, "\t%s) __ppsim_words \"%s\"; return ;;\n", names, words);
}

/* The words the value of a command option (not a config one) can be, into buf; "" for any. */
static const char *command_words(const char *name, char *buf, size_t n)
{
	buf[0] = '\0';
	if (strcmp(name, "export-format") == 0)
		for (int k = 0; k < SCHEDFILE_NFORMATS; k++)
			snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", k > 0 ? " " : "",
			         schedfile_format_names[k]);
	else if (strcmp(name, "color") == 0)
		snprintf(buf, n, "auto always never");
	else if (strcmp(name, "rank-by") == 0)
		snprintf(buf, n, "step mean p50 p90 p99");
	else if (strcmp(name, "schedules") == 0) /* a list of --schedule's words, or all */
		snprintf(buf + strlen(config_value_words(config_option_by_key("schedule"), " ", buf,
		                                         n)),
		         n - strlen(buf), " all");
	return buf;
}

/* cli_option_fn: appends "|-c|--config" for each option whose value is a file name. */
static void add_file_option(void *ctx, const struct cli_option_info *o)
{
	char *names = ctx;
	size_t len = strlen(names);

	if (!o->file)
		return;
	if (o->short_name)
		len += (size_t)snprintf(names + len, 512 - len, "%s-%c", len ? "|" : "", o->short_name);
	if (len < 512)
		snprintf(names + len, 512 - len, "%s--%s", len ? "|" : "", o->name);
}

/*
 * Where an option's words come from, which orders the branches: the schedule table, then the
 * preset tables in `ppsim list` order, the choices, the distributions, yes/no.
 */
static int source_rank(const struct config_option *o)
{
	static const char *const kinds[] = {"model", "gpu", "link"};

	if (o->arg == CONFIG_ARG_BOOL)
		return 6;
	if (o->values != NULL)
		return 4;
	for (int k = 0; k < 3 && o->preset != NULL; k++)
		if (strcmp(o->preset, kinds[k]) == 0)
			return 1 + k;
	return o->format != NULL ? 5 : 0;
}

/*
 * The branches completing option values, generated from the option table: one per list of
 * words, naming every option that takes exactly those words ("--link|--inter-link|--kv-link").
 */
static void write_config_values(FILE *out)
{
	size_t n;
	const struct config_option *co = config_options(&n);
	char words[512], other[512], names[256];
	bool done[CONFIG_MAX_OPTIONS] = {false};

	for (int rank = 0; rank <= 6; rank++)
		for (size_t i = 0; i < n; i++) {
			size_t len = 0;

			if (done[i] || source_rank(&co[i]) != rank ||
			    *config_value_words(&co[i], " ", words, sizeof(words)) == '\0')
				continue;
			for (size_t k = i; k < n; k++)
				if (!done[k] && source_rank(&co[k]) == rank &&
				    strcmp(config_value_words(&co[k], " ", other, sizeof(other)),
				           words) == 0) {
					done[k] = true;
					len += (size_t)snprintf(names + len, sizeof(names) - len,
					                        "%s", len ? "|" : "");
					if (co[k].short_name && len < sizeof(names))
						len += (size_t)snprintf(names + len,
						                        sizeof(names) - len, "-%c|",
						                        co[k].short_name);
					if (len < sizeof(names))
						len += (size_t)snprintf(names + len,
						                        sizeof(names) - len, "--%s",
						                        co[k].name);
				}
			words_case(out, names, words);
		}
}

static void write_values(FILE *out)
{
	char words[512], files[512] = "";

	write_config_values(out);
	words_case(out, "--export-format", command_words("export-format", words, sizeof(words)));
	words_case(out, "--color", command_words("color", words, sizeof(words)));
	words_case(out, "--schedules", command_words("schedules", words, sizeof(words)));
	fputs("\t-f|--format)\n\t\tcase $cmd in\n", out);
	cli_write_format_cases(out);
	fputs("\t\tesac\n\t\treturn ;;\n", out);
	cli_each_option(CLI_ALL, add_file_option, files);
	fprintf(out, "\t%s)\n\t\tCOMPREPLY=($(compgen -P \"$eq\" -f -- \"$cur\")); return ;;\n",
	        files);
}

/* Writes the names of the n commands of table, separated by sep. */
static void write_names(FILE *out, const struct cmd *table, size_t n, const char *sep)
{
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? sep : "", table[i].name);
}

/* Writes the bash completion function, named fn, and (register) its `complete` line. */
static void write_script(FILE *out, const char *fn, bool register_it)
{
	size_t n;
	const struct cmd *table = cmd_table(&n);
	const char *sep = "";

	fputs("# the words of $1, after the last comma of a list too (--schedules=1f1b,zb), behind\n"
	      "# the option and its '=' when they are one word ($eq: zsh does not split at '=')\n"
	      "__ppsim_words() {\n"
	      "\tlocal head=\n\t[[ $cur == *,* ]] && head=${cur%,*},\n"
	      "\tCOMPREPLY=($(compgen -P \"$eq$head\" -W \"$1\" -- \"${cur##*,}\"))\n}\n",
	      out);
	fprintf(out, "%s() {\n", fn);
	fputs(""
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=run i\n"
	      "\tlocal eq=\n"
	      "\t# bash splits --option=value at '=': complete the value of the option\n"
	      "\tif [ \"$cur\" = \"=\" ]; then cur=\"\"; elif [ \"$prev\" = \"=\" ]; then\n"
	      "\t\tprev=${COMP_WORDS[COMP_CWORD-2]}\n"
	      "\t# zsh keeps it one word: the option is what came before '=', the candidates\n"
	      "\t# carry it\n"
	      "\telif [[ $cur == --*=* ]]; then\n"
	      "\t\tprev=${cur%%=*} eq=${cur%%=*}= cur=${cur#*=}; fi\n"
	      "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n\t\tcase ${COMP_WORDS[i]} in\n\t\t",
	      out);
	write_names(out, table, n, "|");
	fputs(") cmd=${COMP_WORDS[i]}; break ;;\n\t\tesac\n\tdone\n\tcase $prev in\n", out);
	write_values(out);
	fputs("\tesac\n\tif [[ $cur == -* ]]; then\n\t\tcase $cmd in\n", out);
	for (size_t i = 0; i < n; i++) {
		if (table[i].mode == 0 && table[i].options == NULL)
			continue;
		fprintf(out, "\t\t%s) COMPREPLY=($(compgen -W \"", table[i].name);
		if (table[i].mode != 0)
			cli_write_option_names(out, (enum cli_mode)table[i].mode);
		else
			fputs(table[i].options, out);
		fputs("\" -- \"$cur\")) ;;\n", out);
	}
	fputs("\t\t*) COMPREPLY=($(compgen -W \"--help\" -- \"$cur\")) ;;\n\t\tesac\n"
	      "\t\treturn\n\tfi\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n\t\tCOMPREPLY=($(compgen -W \"",
	      out);
	write_names(out, table, n, " ");
	fputs("\" -- \"$cur\"))\n", out);
	/* the commands' arguments, from their rows: file names or fixed words */
	for (size_t i = 0; i < n; i++)
		if (table[i].file_args) {
			fprintf(out, "%s [ \"$cmd\" = %s ]", *sep ? " ||" : "\telif",
			        table[i].name);
			sep = " ||";
		}
	if (*sep)
		fputs("; then\n\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n", out);
	for (size_t i = 0; i < n; i++)
		if (table[i].arg_words != NULL)
			fprintf(out,
			        "\telif [ \"$cmd\" = %s ]; then\n"
			        "\t\tCOMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))\n",
			        table[i].name, table[i].arg_words);
	fputs("\tfi\n}\n", out);
	if (register_it)
		fprintf(out, "complete -o default -F %s ppsim\n", fn);
}

/* Writes text single-quoted for fish: a backslash and a quote escaped. */
static void fish_quoted(FILE *out, const char *text)
{
	fputc('\'', out);
	for (; *text != '\0'; text++) {
		if (*text == '\\' || *text == '\'')
			fputc('\\', out);
		fputc(*text, out);
	}
	fputc('\'', out);
}

/* What write_fish_option needs: the output and the condition naming the command. */
struct fish_ctx {
	FILE *out;
	const char *condition;
};

/* cli_option_fn: one fish `complete` line for option o of the command in ctx. */
static void write_fish_option(void *ctx, const struct cli_option_info *o)
{
	const struct fish_ctx *f = ctx;
	char words[512] = "";

	if (strcmp(o->name, "format") == 0)
		return; /* write_fish gives it the command's formats */

	if (o->config != NULL)
		config_value_words(o->config, " ", words, sizeof(words));
	else
		command_words(o->name, words, sizeof(words));
	fprintf(f->out, "complete -c ppsim -n %s -l %s", f->condition, o->name);
	if (o->short_name)
		fprintf(f->out, " -s %c", o->short_name);
	if (o->file)
		fputs(" -r -F", f->out);
	else if (*words != '\0')
		fprintf(f->out, " -x -a '(__ppsim_words %s)'", words);
	else if (o->takes_value)
		fputs(" -x", f->out);
	fputs(" -d ", f->out);
	fish_quoted(f->out, o->help);
	fputc('\n', f->out);
}

/* The fish lines of a command without a mode: each option of words ("--output -o --help"),
 * a long name with the letter that follows it, taking a value unless it is --help. */
static void write_fish_words(FILE *out, const char *cond, const char *words)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", words);
	for (char *w = strtok_r(buf, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save)) {
		if (strncmp(w, "--", 2) != 0 || strcmp(w, "--format") == 0)
			continue; /* letters go with their long name; write_fish gives --format */
		fprintf(out, "complete -c ppsim -n %s -l %s", cond, w + 2);
		if (save != NULL && save[0] == '-' && save[1] != '-')
			fprintf(out, " -s %c", save[1]);
		fputs(strcmp(w, "--help") == 0 ? "\n" : " -r\n", out);
	}
}

static void write_fish(FILE *out)
{
	size_t n;
	const struct cmd *table = cmd_table(&n);
	char others[256] = "", cond[320], formats[64];

	fprintf(out, "# fish completion for ppsim %s, generated by `ppsim completion fish`\n",
	        PP_VERSION);
	fputs("complete -c ppsim -f\n"
	      "# the words given, after the last comma of a list too (--schedules=1f1b,zb)\n"
	      "function __ppsim_words\n"
	      "\tset -l value (string replace -r -- '^--[^=]*=' '' (commandline -ct))\n"
	      "\tset -l head (string match -r -- '^.*,' $value)\n"
	      "\tfor w in $argv\n\t\tprintf '%s%s\\n' \"$head\" $w\n\tend\nend\n",
	      out);
	for (size_t i = 1; i < n; i++)
		snprintf(others + strlen(others), sizeof(others) - strlen(others), "%s%s",
		         i > 1 ? " " : "", table[i].name);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "complete -c ppsim -n __fish_use_subcommand -a %s -d ", table[i].name);
		fish_quoted(out, table[i].summary);
		fputc('\n', out);
	}
	for (size_t i = 0; i < n; i++) {
		struct fish_ctx f = {out, cond};

		/* run is the default command: its options also come without a command */
		if (i == 0)
			snprintf(cond, sizeof(cond), "'not __fish_seen_subcommand_from %s'", others);
		else
			snprintf(cond, sizeof(cond), "'__fish_seen_subcommand_from %s'", table[i].name);
		if (table[i].mode != 0) {
			cli_each_option(table[i].mode, write_fish_option, &f);
		} else if (table[i].options != NULL) {
			write_fish_words(out, cond, table[i].options);
		}
		/* the commands with options, and those reading --format themselves (list) */
		if (table[i].mode != 0 || table[i].format_subject != NULL) {
			cli_format_names(&table[i], " ", NULL, formats, sizeof(formats));
			fprintf(out, "complete -c ppsim -n %s -s f -l format -x -a '%s'\n", cond,
			        formats);
		}
		if (table[i].file_args)
			fprintf(out, "complete -c ppsim -n %s -F\n", cond);
		if (table[i].arg_words != NULL)
			fprintf(out, "complete -c ppsim -n %s -a '%s'\n", cond, table[i].arg_words);
	}
}

int cmd_completion(int argc, char **argv)
{
	bool help = false, version = false;

	/* --help and --version anywhere, as the other commands take them; "--" ends the options */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		help |= strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0;
		version |= strcmp(argv[i], "--version") == 0;
	}
	if (version && !help) {
		fprintf(cmd_out(), "ppsim %s\n", PP_VERSION);
		return PP_EXIT_OK;
	}
	if (argc >= 2 && strcmp(argv[1], "--") == 0) {
		argv++;
		argc--;
	}
	if (help) {
		fputs("Usage: ppsim completion bash|zsh|fish\n"
		      "Print a completion script for the shell:\n"
		      "  bash: source <(ppsim completion bash)\n"
		      "  zsh:  source <(ppsim completion zsh)    (after compinit)\n"
		      "  fish: ppsim completion fish | source\n",
		      cmd_out());
		cmd_help_end(cmd_out(), cmd_of_fn(cmd_completion));
		return PP_EXIT_OK;
	}
	if (argc == 2 && strcmp(argv[1], "bash") == 0) {
		fprintf(cmd_out(),
		        "# bash completion for ppsim %s, generated by `ppsim completion bash`\n",
		        PP_VERSION);
		write_script(cmd_out(), "_ppsim", true);
	} else if (argc == 2 && strcmp(argv[1], "zsh") == 0) {
		/* zsh runs bash completion functions through bashcompinit; the function has its
		 * own name, as compinit autoloads this file as the body of _ppsim */
		fprintf(cmd_out(),
		        "#compdef ppsim\n# zsh completion for ppsim %s, generated by `ppsim "
		        "completion zsh`\nautoload -U +X bashcompinit && bashcompinit\n",
		        PP_VERSION);
		write_script(cmd_out(), "__ppsim_bash", false);
		fputs("complete -o default -F __ppsim_bash ppsim\n"
		      "# autoloaded from fpath (compinit) on the first TAB: complete that TAB too\n"
		      "if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then\n"
		      "\t_bash_complete -o default -F __ppsim_bash \"$@\"\nfi\n",
		      cmd_out());
	} else if (argc == 2 && strcmp(argv[1], "fish") == 0) {
		write_fish(cmd_out());
	} else if (argc == 2) {
		return cmd_usage("completion: '%s' is not a shell ppsim completes: bash, zsh or fish",
		                 argv[1]);
	} else if (argc > 2) {
		return cmd_usage("completion: '%s': one shell only: ppsim completion bash, zsh or "
		                 "fish",
		                 argv[2]);
	} else {
		return cmd_usage("completion: give the shell: ppsim completion bash, zsh or fish");
	}
	return PP_EXIT_OK;
}
