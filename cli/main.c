/* main.c — argument dispatch for the envlock tool: global options, help,
 * and the table of subcommands. Nothing here prompts: envlock runs as a
 * build stage and everything comes from arguments and files. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: envlock [--json] [--quiet] <command> [args]\n"
    "\n"
    "commands:\n"
    "  validate FILE [--format F] [--template NAME] [--bases FILE] [--policy FILE]\n"
    "                      check a spec (Environment or DataGen recipe) against the\n"
    "                      catalog's approved bases; print every finding\n"
    "  digest FILE [--format F] [--template NAME] [--bases FILE]\n"
    "                      print the spec digest (sha256 of its RFC 8785 canonical JSON)\n"
    "  normalize FILE [--format F] [--template NAME] [--bases FILE]\n"
    "                      print the normalized document with every default\n"
    "  version compare ECOSYSTEM A B\n"
    "                      print <, = or > (ECOSYSTEM: pypi, npm, deb, conda)\n"
    "  version satisfies ECOSYSTEM RANGE V...\n"
    "                      print the versions that satisfy RANGE, one per line\n"
    "  templates           list the DataGen built-in templates\n"
    "  index show ECOSYSTEM:NAME [--spec SPEC] [--python X.Y] [--platform TAG]\n"
    "             [--index URL]... [--registry URL] [--apt-source LINE]...\n"
    "             [--keyring FILE] [--arch A] [--exclude-newer TIME] [--ignore-valid-until]\n"
    "             [--no-build] [--only-binary :all:|NAME] [--no-binary :all:|NAME]\n"
    "                      what the index says about a package for the target:\n"
    "                      usable candidates newest first, excluded ones with reasons\n"
    "  resolve SPEC [-o FILE] [--bases FILE] [--exclude-newer TIME] [--upgrade]\n"
    "               [--upgrade-package NAME]... [--debug-solver DIR] [--explain]\n"
    "               [--prerelease MODE] [--no-build] [--only-binary :all:|NAME,...]\n"
    "               [--no-binary :all:|NAME,...] [--advisories DIR]\n"
    "               [--vulnerable avoid|block|allow] [--ignore ID]... [--policy FILE]\n"
    "                      solve the spec's PyPI, npm and apt packages together and\n"
    "                      write the lock (default: beside the spec, its name with\n"
    "                      .lock: geo.yaml -> geo.lock);\n"
    "                      --advisories: OSV records kept out of the solve (block:\n"
    "                      exit 19 when only affected versions fit); --policy: an\n"
    "                      organization's denied versions and allowed sources (exit 18)\n"
    "  check SPEC [LOCK] [--bases FILE] [--exclude-newer TIME] [--policy FILE]\n"
    "                  [--advisories DIR]\n"
    "                      is the lock still a valid answer for the spec (requirements,\n"
    "                      target, options, inputs re-read through the cache)? exit 1\n"
    "                      and what changed when not (LOCK: resolve's default);\n"
    "                      --offline: the cache only\n"
    "  audit LOCK --advisories DIR [--format text|json|sarif] [--ignore ID]...\n"
    "             [--max-age DAYS] [--spec SPEC [--bases FILE]]\n"
    "                      every locked package an advisory of the offline OSV\n"
    "                      snapshot affects, with its path and fix; exit 1 when\n"
    "                      some, another code when the snapshot cannot be used\n"
    "  plan SPEC LOCK [--variant V]... [-o DIR] [--bases FILE] [--base-registry HOST]\n"
    "                      write what each variant's builder consumes (V: datalayer,\n"
    "                      e2b, daytona, modal or all; default the spec's required and\n"
    "                      optional variants) into DIR/<variant>/ (default plan/\n"
    "                      beside the lock)\n"
    "  export LOCK --format F [-o FILE] [--bases FILE] [--resolved-at TIME]\n"
    "                      the lock as F: uv-pip-compile, requirements, pylock,\n"
    "                      package-lock, apt, cyclonedx, spdx, conda-explicit or\n"
    "                      conda-lock\n"
    "  bundle LOCK -o DIR [--base-url URL] [--sign KEY] [--advisories DIR]\n"
    "                      write a static mirror of what the lock installs (PyPI,\n"
    "                      npm and apt trees, verified) and the index documents it\n"
    "                      was resolved from into DIR; DIR/README says how to serve\n"
    "                      it; a rerun fetches only what is missing or wrong;\n"
    "                      --sign adds DIR/SHA256SUMS and its Ed25519 signature;\n"
    "                      --advisories copies the lock's OSV snapshot into\n"
    "                      DIR/advisories (refused unless it is the lock's)\n"
    "  bundle --verify KEY DIR\n"
    "                      check a signed bundle: the signature, every file's\n"
    "                      sha256, nothing added\n"
    "  base inspect IMAGE.tar [-o FILE] [--ref REF]\n"
    "                      the bases catalog entry of an image archive (docker\n"
    "                      save or OCI layout): Python, platform, apt sources,\n"
    "                      dpkg status (beside FILE) and installed distributions\n"
    "  cache info | prune [--days N] [--all] | export FILE [--sign KEY]\n"
    "        | import FILE [--verify KEY]\n"
    "                      look after the download cache; export/import carry it\n"
    "                      as one tar+zstd archive with a sha256 manifest; --sign\n"
    "                      signs it with an Ed25519 private key (PEM), --verify\n"
    "                      refuses it unless that public key signed it\n"
    "\n"
    "options:\n"
    "  --json              print one JSON object on stdout (errors too)\n"
    "  --quiet             no notes on stderr\n"
    "  --cache-dir DIR     cache directory (default $ENVLOCK_CACHE_DIR, else\n"
    "                      $XDG_CACHE_HOME/envlock)\n"
    "  --offline           use only the cache; name what is missing\n"
    "  --mirror CANONICAL=URL\n"
    "                      fetch URLs under CANONICAL from URL instead (repeatable;\n"
    "                      also ENVLOCK_MIRRORS and the mirrors config file)\n"
    "  --cert FILE         trust the CA certificates of this PEM file for https\n"
    "                      (else $ENVLOCK_CERT, $SSL_CERT_FILE, $CURL_CA_BUNDLE;\n"
    "                      $SSL_CERT_DIR adds a directory; npmrc cafile: npm only)\n"
    "  --format F          environment, datagen or auto (default auto)\n"
    "  --template NAME     start from a DataGen built-in template\n"
    "  -h, --help          this text; `envlock help COMMAND` one command's, and\n"
    "                      `envlock help spec` every field of an Environment spec\n"
    "  --version           print envlock's version\n"
    "\n"
    "exit status: 0 ok; 1 a negative answer (no version satisfies, a stale lock);\n"
    "2 usage; 10-24 the DL_ENV_* codes, 25 no answer from an index (no network,\n"
    "proxy, TLS, credentials); 70 internal error; 74 a local file could not be\n"
    "read or written (docs/cli.md, \"Exit status\").\n";

static const struct {
    const char *name;
    int (*run)(el_ctx *, const cli_opts *, int, char **);
} commands[] = {
    { "validate", cli_validate },
    { "digest", cli_digest },
    { "normalize", cli_normalize },
    { "version", cli_version },
    { "templates", cli_templates },
    { "cache", cli_cache },
    { "index", cli_index },
    { "resolve", cli_resolve },
    { "check", cli_check },
    { "audit", cli_audit },
    { "plan", cli_plan },
    { "export", cli_export },
    { "bundle", cli_bundle },
    { "base", cli_base },
};

/* The usage error for a command envlock does not have, with the nearest
 * one as a "did you mean" (`reslove`). */
static int unknown_command(el_ctx *ctx, const cli_opts *o, const char *word)
{
    const char *names[sizeof commands / sizeof commands[0]];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        names[i] = commands[i].name;
    const char *near = el_closest_name(word, names, sizeof names / sizeof names[0]);
    if (near)
        return cli_usage_error(ctx, o, "unknown command `%s`; did you mean `%s`?", word, near);
    return cli_usage_error(ctx, o, "unknown command `%s`", word);
}

/* `envlock COMMAND --help` / `envlock help COMMAND`: the command's own lines
 * of the usage text (a first line "  COMMAND ..." and its indented
 * continuation lines; `version` has two). False if the usage names no such
 * command. */
static bool command_help(const char *name)
{
    size_t n = strlen(name);
    bool found = false, in = false;
    for (const char *l = strstr(usage, "commands:\n"); l && *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) + 1 : strlen(l);
        if (len > 2 && l[0] == ' ' && l[1] == ' ' && l[2] != ' ')
            in = strncmp(l + 2, name, n) == 0 && (l[2 + n] == ' ' || l[2 + n] == '\n');
        else if (len < 3 || l[0] != ' ')
            in = false;
        if (in) {
            if (!found)
                fputs("usage: envlock [--json] [--quiet] [--cache-dir DIR] [--offline] "
                      "[--mirror CANONICAL=URL]... [--cert FILE]\n", stdout);
            found = true;
            fwrite(l, 1, len, stdout);
        }
        l += len;
    }
    if (found)
        fputs("run `envlock --help` for every command and the global options\n", stdout);
    return found;
}

/* Whether the command's arguments ask for help (before any `--`). */
static bool wants_help(int n, char **args)
{
    for (int i = 0; i < n && strcmp(args[i], "--") != 0; i++)
        if (strcmp(args[i], "-h") == 0 || strcmp(args[i], "--help") == 0)
            return true;
    return false;
}

/* Pulls the global options (anywhere before `--`) out of argv into *o,
 * keeping the rest in order in rest[0..*nrest). -1, or the status of a
 * usage error it reported. */
static int pull_globals(el_ctx *ctx, cli_opts *o, int argc, char **argv, char **rest, int *nrest,
                        const char **mirrors)
{
    bool after_dashdash = false;
    for (int i = 1; i < argc; i++) {
        if (!after_dashdash && strcmp(argv[i], "--") == 0) {
            after_dashdash = true;
            rest[(*nrest)++] = argv[i];
        } else if (!after_dashdash && strcmp(argv[i], "--json") == 0) {
            o->json = true;
        } else if (!after_dashdash && (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0)) {
            o->quiet = true;
        } else if (!after_dashdash && strcmp(argv[i], "--offline") == 0) {
            o->offline = true;
        } else if (!after_dashdash && (strcmp(argv[i], "--cache-dir") == 0 ||
                                       strcmp(argv[i], "--mirror") == 0 ||
                                       strcmp(argv[i], "--cert") == 0)) {
            if (i + 1 >= argc)
                return cli_usage_error(ctx, o, "%s needs a value", argv[i]);
            if (strcmp(argv[i], "--cache-dir") == 0)
                o->cache_dir = argv[++i];
            else if (strcmp(argv[i], "--cert") == 0)
                o->cert = argv[++i];
            else
                mirrors[o->n_mirrors++] = argv[++i];
        } else if (!after_dashdash && strncmp(argv[i], "--cache-dir=", 12) == 0) {
            o->cache_dir = argv[i] + 12;
        } else if (!after_dashdash && strncmp(argv[i], "--cert=", 7) == 0) {
            o->cert = argv[i] + 7;
        } else if (!after_dashdash && strncmp(argv[i], "--mirror=", 9) == 0) {
            mirrors[o->n_mirrors++] = argv[i] + 9;
        } else {
            rest[(*nrest)++] = argv[i];
        }
    }
    return -1;
}

/* The command rest[0] (or help, or the version) run: its exit status. */
static int dispatch(el_ctx *ctx, const cli_opts *o, int nrest, char **rest)
{
    if (nrest == 0)
        return cli_usage_error(ctx, o, "no command given");
    if (strcmp(rest[0], "help") == 0 && nrest > 1 && strcmp(rest[1], "spec") == 0) {
        char *ref = el_spec_field_reference(); /* docs/spec-fields.md */
        fputs(ref, stdout);
        el_free(ref);
        return 0;
    }
    if (strcmp(rest[0], "help") == 0 && nrest > 1)
        return command_help(rest[1]) ? 0 : unknown_command(ctx, o, rest[1]);
    if (strcmp(rest[0], "-h") == 0 || strcmp(rest[0], "--help") == 0 ||
        strcmp(rest[0], "help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (wants_help(nrest - 1, rest + 1) && command_help(rest[0]))
        return 0;
    if (strcmp(rest[0], "--version") == 0) {
        printf("envlock %s\n", el_version_string());
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(rest[0], commands[i].name) == 0)
            return commands[i].run(ctx, o, nrest - 1, rest + 1);
    return unknown_command(ctx, o, rest[0]);
}

int main(int argc, char **argv)
{
    cli_opts o = { 0 };
    el_ctx *ctx = el_ctx_new();
    /* Global options may appear anywhere; pull them out, keep the rest in order. */
    char **rest = calloc((size_t)argc + 1, sizeof(char *));
    const char **mirrors = calloc((size_t)argc + 1, sizeof(char *));
    int nrest = 0;
    int status = pull_globals(ctx, &o, argc, argv, rest, &nrest, mirrors);
    o.mirrors = mirrors;
    /* --cert wins over every variable naming a CA bundle (env.c) */
    o.env.ca_bundle = o.cert;
    if (status == -1 && o.cert && cli_ca_path(ctx, "--cert", o.cert, false) != EL_OK)
        status = cli_usage_error(ctx, &o, "%s", el_ctx_message(ctx));
    if (status == -1 && cli_env_cache_options(ctx, &o.env, o.env_redirect) != EL_OK)
        status = cli_report_failure(ctx, &o);
    /* else a usage error in the global options or the environment, already
     * reported */
    if (status == -1)
        status = dispatch(ctx, &o, nrest, rest);
    free(rest);
    free(mirrors);
    el_ctx_free(ctx);
    return status;
}
