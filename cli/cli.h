/* cli.h — shared pieces of the envlock command-line tool: option state, the
 * subcommand entry points (one file each) and the output helpers that turn
 * an el_ctx failure into text on stderr or one JSON object on stdout.
 * The tool uses only the public API (include/envlock.h). */
#ifndef EL_CLI_H
#define EL_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "envlock.h"
#include "cli_env.h"

typedef struct cli_opts {
    bool json;  /* one JSON object on stdout, nothing else there */
    bool quiet; /* no progress or notes on stderr */
    const char *cache_dir;      /* --cache-dir DIR */
    bool offline;               /* --offline */
    const char *const *mirrors; /* --mirror CANONICAL=URL, repeatable */
    size_t n_mirrors;
    const char *cert;           /* --cert FILE: the CA bundle to trust */
    el_cache_options env;       /* what the ENVLOCK_* variables set (env.c) */
    const char *env_redirect[1]; /* ENVLOCK_REDIRECT_HOSTS, env.redirect_hosts */
    bool resolve_checks; /* specs load with el_spec_options.resolve_checks
                            (validate and resolve: what resolve would refuse) */
} cli_opts;

/* Each subcommand takes the arguments after its name, with global options
 * already removed, and returns the process exit status. */
int cli_validate(el_ctx *ctx, const cli_opts *o, int argc, char **argv);
int cli_digest(el_ctx *ctx, const cli_opts *o, int argc, char **argv);
int cli_version(el_ctx *ctx, const cli_opts *o, int argc, char **argv);
int cli_normalize(el_ctx *ctx, const cli_opts *o, int argc, char **argv);
int cli_templates(el_ctx *ctx, const cli_opts *o, int argc, char **argv);
int cli_cache(el_ctx *ctx, const cli_opts *o, int argc, char **argv);
int cli_index(el_ctx *ctx, const cli_opts *o, int argc, char **argv);
int cli_resolve(el_ctx *ctx, const cli_opts *o, int argc, char **argv);
int cli_check(el_ctx *ctx, const cli_opts *o, int argc, char **argv);
int cli_audit(el_ctx *ctx, const cli_opts *o, int argc, char **argv);
int cli_plan(el_ctx *ctx, const cli_opts *o, int argc, char **argv);
int cli_export(el_ctx *ctx, const cli_opts *o, int argc, char **argv);
int cli_bundle(el_ctx *ctx, const cli_opts *o, int argc, char **argv);
int cli_base(el_ctx *ctx, const cli_opts *o, int argc, char **argv);

/* cli_cache_options() : the fetch options the global flags and the
 *  ENVLOCK_* variables select (the flags win). Borrows from `o`. */
void cli_cache_options(const cli_opts *o, el_cache_options *co);
/* cli_terminal_redraws() : whether $TERM names a terminal that can redraw a
 *  line (not unset, not "dumb"). */
bool cli_terminal_redraws(void);
/* ENVLOCK_DEBUG_STATS set (and not "0"): statistics lines go to stderr as
 * "envlock-stats: LINE" through cli_print_stat (an el_*_options.stats). */
bool cli_debug_stats(void);
/* cli_bases_path() : the catalog to use: `given` (--bases), else
 *  $ENVLOCK_BASES, else NULL (the library's installed catalog). */
const char *cli_bases_path(const char *given);
/* cli_path_or_env() : `given` (the flag), else the variable `var` when set
 *  and not empty, else NULL: ENVLOCK_POLICY and ENVLOCK_ADVISORIES are an
 *  organization's defaults for --policy and --advisories. */
const char *cli_path_or_env(const char *given, const char *var);
void cli_print_stat(void *user, const char *line);

/* cli_load_spec() : loads the spec named by FILE (or "-" for stdin, or none
 * with --template) with --format/--template applied. Returns NULL after
 * reporting a failure; *status then holds the exit status. */
el_spec *cli_load_spec(el_ctx *ctx, const cli_opts *o, int argc, char **argv,
                       const char **path_out, int *status);

/* cli_report_findings() : 0 if the spec has no findings; otherwise prints
 * them ("FILE:LINE:COL: field: message [CODE]" on stderr, or the JSON error
 * body with detail.findings) and returns the exit status. */
int cli_report_findings(el_ctx *ctx, const cli_opts *o, const el_spec *spec, const char *path);

/* cli_load_valid_spec() : cli_load_spec() then cli_report_findings(): the
 * spec if it loads with no findings; otherwise NULL after reporting, with
 * *status holding the exit status. */
el_spec *cli_load_valid_spec(el_ctx *ctx, const cli_opts *o, int argc, char **argv,
                             const char **path_out, int *status);
/* cli_load_spec_in() : cli_load_spec() against the catalog `bases` the
 *  caller holds (NULL: the one --bases names, else the installed one). */
el_spec *cli_load_spec_in(el_ctx *ctx, const cli_opts *o, int argc, char **argv,
                          const el_bases *bases, const char **path_out, int *status);

/* cli_load_valid_spec_in() : the same against the catalog `bases` the
 * caller has loaded already (borrowed), so that a command which reads the
 * catalog for more than the spec reads it once. */
el_spec *cli_load_valid_spec_in(el_ctx *ctx, const cli_opts *o, int argc, char **argv,
                                const el_bases *bases, const char **path_out, int *status);

/* cli_spec_digest_run() : the body of `digest` and `validate`: loads a
 * valid spec (cli_load_valid_spec()), judges its sources against the
 * policy file `policy` when not NULL (el_policy_check_spec()), computes
 * its digest and hands both to `print`. Returns the exit status. */
int cli_spec_digest_run(el_ctx *ctx, const cli_opts *o, int argc, char **argv,
                        const char *policy,
                        void (*print)(const cli_opts *o, const char *path, const el_spec *spec,
                                      const char *digest));

/* cli_report_failure() : prints the failure recorded on ctx (JSON body on
 * stdout with --json, "envlock: CODE: message" on stderr otherwise) and
 * returns its exit status. */
int cli_report_failure(el_ctx *ctx, const cli_opts *o);

/* cli_usage_error() : a malformed command line; exit status 2. */
int cli_usage_error(el_ctx *ctx, const cli_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* cli_unknown_option() : the usage error for an option the command does
 *  not take, with the nearest of its options (those named in `usage`,
 *  printed after the message, and in `more`; either may be NULL; and the
 *  global ones) as a "did you mean"; exit status 2. */
int cli_unknown_option(el_ctx *ctx, const cli_opts *o, const char *arg, const char *usage,
                       const char *more);

/* cli_text() : writes s[0..n) for a terminal: C0 and C1 control
 *  characters (ESC, CR, NEL...) but newline and tab, DEL, U+2028 and U+2029
 *  written as \xNN or \uNNNN, bytes that are not UTF-8 as \xNN, so a
 *  string of a lock or an index cannot steer the terminal it is shown on. */
void cli_text(FILE *f, const char *s, size_t n);
/* cli_json_string() : writes s as a JSON string literal (with quotes); the
 *  characters cli_text() escapes as \uNNNN, bytes that are not UTF-8 as
 *  U+FFFD. */
void cli_json_string(FILE *f, const char *s);

/* cli_spec_options() : parses --format/--template at argv[*i] (advancing *i);
 * returns 1 if consumed, 0 if not a spec option, -1 on a usage error. */
int cli_spec_option(el_ctx *ctx, const cli_opts *o, int argc, char **argv, int *i,
                    el_spec_options *so);

#endif
