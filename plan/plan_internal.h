/* plan_internal.h — what the variant generators (plan_common.c,
 * plan_datalayer.c, plan_e2b.c, plan_daytona.c, plan_modal.c) share: the
 * facts every plan is generated from, the text escapers, the Dockerfile
 * steps three variants have in common, the context files and the refusal
 * helpers. Not seen outside plan/ (the tests include it to test the
 * escapers). Nothing here does I/O or keeps state between calls. */
#ifndef EL_PLAN_INTERNAL_H
#define EL_PLAN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "plan.h"
#include "util.h"

struct json_object;

/* Where the contract puts things (REFERENCE §8). */
#define PLAN_OPT "/opt/datalayer"
#define PLAN_CONTENT_DIR "/home/datalayer/content"
#define PLAN_USER_IDS "1000:100"
#define PLAN_DOCTOR_PATH PLAN_OPT "/bin/datalayer-sandbox"
#define PLAN_DOCTOR PLAN_DOCTOR_PATH " doctor --json > /tmp/doctor.json"
/* The doctor zipapp, in the build context of a plan whose image does not
 * carry it (e2b's, a spec's own image), from the build service. */
#define PLAN_DOCTOR_CONTEXT "datalayer-sandbox"
/* The base's wheelhouse (its protected stack), in the build context of a
 * plan on a spec's own image, from the build service; where Datalayer's
 * builder puts it on an image source (REFERENCE §7). */
#define PLAN_WHEELHOUSE_CONTEXT "wheelhouse"
#define PLAN_WHEELHOUSE PLAN_OPT "/wheelhouse-import"
/* The contract's user (uid 1000, gid 100, home /home/datalayer) and its
 * content directory, made on an image that lacks them. */
#define PLAN_USER_STEP                                                                        \
    "RUN (id -u datalayer >/dev/null 2>&1 || useradd --create-home --non-unique --uid 1000 " \
    "--gid 100 --shell /bin/bash datalayer) \\\n"                                            \
    " && mkdir -p " PLAN_CONTENT_DIR " \\\n"                                                 \
    " && chown " PLAN_USER_IDS " /home/datalayer " PLAN_CONTENT_DIR "\n"

/* A conda environment (an environment.yml's lock) installs into the
 * prefix whose `python` the sandbox runs (the base's interpreter), with
 * the micromamba release the reference pins for every conda build. */
#define PLAN_CONDA_PREFIX "/opt/conda"
#define PLAN_CONDA_PYTHON PLAN_CONDA_PREFIX "/bin/python"
#define PLAN_MICROMAMBA_VERSION "2.0.5"
#define PLAN_MICROMAMBA_IMAGE "mambaorg/micromamba:" PLAN_MICROMAMBA_VERSION
#define PLAN_MICROMAMBA "/usr/local/bin/micromamba"

/* The facts a plan is generated from, gathered once from a plan_input.
 * Every pointer borrows from the input; the vectors are the facts' own. */
typedef struct plan_facts {
    const plan_input *in;
    const plan_spec *spec;     /* in->spec, or an empty spec when NULL */
    const char *name;          /* metadata.name, "" when not given */
    const char *size_class;    /* "small" when not given */
    const char *contract;      /* "sandbox-contract/v1" when not given */
    bool pip;                  /* the Python step uses pip (manager pip) */
    ptrvec debs;               /* const lock_package *: debs the lock installs, by name */
    ptrvec pypi;               /* const lock_package *: every pypi package, by name */
    size_t n_pypi_installs;    /* pypi packages the base does not carry */
    ptrvec indexes;            /* const char *: their sources, distinct, first seen first */
    const char *npm_registry;  /* the lock's npm source; NULL: no npm package */
    size_t n_conda;            /* conda packages: the lock is an environment.yml's */
    ptrvec env;                /* const plan_env *: spec.env sorted by key (bytes) */
} plan_facts;

void plan_facts_init(plan_facts *f, const plan_input *in);
/* plan_apt_pins() : a line per deb of `f`: `indent`, its apt pin
 *  "name=version" as `quote` writes a literal, then `end`. */
void plan_apt_pins(strbuf *sb, const plan_facts *f, const char *indent,
                   void (*quote)(strbuf *sb, const char *s), const char *end);
void plan_facts_release(plan_facts *f);

/* plan_base_image() :
 *  "[registry/]repository@digest" of the lock's base for `variant` into sb;
 *  false (sb untouched) when the lock holds no digest for it. */
bool plan_base_image(strbuf *sb, const plan_facts *f, const char *variant, bool with_registry);
/* plan_base_digest() : the lock's base digest for `variant`, or NULL. */
const char *plan_base_digest(const plan_input *in, const char *variant);
/* plan_base_repository() : in->base_repository, else derived from the
 *  lock's base ref ("datalayer/python-cpu" -> "environments/base/python-cpu"). */
const char *plan_base_repository(const plan_input *in, strbuf *scratch);

/* ---- the image a variant builds FROM (plan_from.c) ---- */

typedef enum plan_from_kind {
    PLAN_FROM_BASE,        /* the approved (Datalayer) base, by the lock's digest */
    PLAN_FROM_SPEC_IMAGE,  /* the spec's own image (`build.source: image`) */
    PLAN_FROM_E2B,         /* E2B's template image, PLAN_E2B_IMAGE */
} plan_from_kind;

typedef struct plan_image {
    plan_from_kind kind;
    char *from;            /* as FROM names it, without a registry prefix:
                              "name@digest" ("python:3.11-slim@sha256:..."
                              for a spec's image), else the tag reference */
    char *name;            /* the repository: no tag, no digest */
    char *tag;             /* "latest", "3.11-slim", or NULL */
    const char *digest;    /* "sha256:<hex>" pinning it, or NULL (borrowed) */
} plan_image;

/* plan_variant_from() :
 *  The image `variant`'s plan builds FROM: e2b's is E2B's image (pinned by
 *  in->e2b_image_digest), a variant the lock puts on a spec's image builds
 *  on it (pinned by the lock's digest for the variant), any other on the
 *  base at the lock's digest. Release with plan_image_release(). */
void plan_variant_from(const plan_input *in, const char *variant, plan_image *out);
void plan_image_release(plan_image *im);
/* plan_from_wheelhouse() :
 *  Whether a plan on an image that is not the base installs `p` from the
 *  base's wheelhouse: a Python package the lock has the base hold as one
 *  of its protected pins (requestedBy "protected"). Another Python package
 *  marked installedInBase on such a target is the image's own. */
bool plan_from_wheelhouse(const lock_package *p);
/* plan_image_installs() :
 *  Whether the plan on `im` installs `p`: every package the lock does not
 *  mark installedInBase; of those it does, none on the base (it holds
 *  them), and on another image the base's protected stack, from the
 *  wheelhouse. The rest are, on a spec's image, the image's own (the
 *  catalog's dpkg status and preinstalled list of it); on E2B's image,
 *  which holds none of the base's, the plan installs them not either. */
bool plan_image_installs(const plan_image *im, const lock_package *p);

/* ---- text ---- */

/* plan_sh_quote() : `s` as one POSIX shell word: as is when non-empty and
 *  made only of [A-Za-z0-9@%+=:,./_-], else single-quoted with each `'`
 *  written '"'"' (close, a double-quoted quote, reopen). BuildKit reads the
 *  same quoting in ENV and LABEL; the form without a backslash also keeps
 *  simpler Dockerfile parsers (dockerfile-ast) from splitting the value. */
void plan_sh_quote(strbuf *sb, const char *s);
/* plan_json_str() : `s` as a JSON string literal (quotes included), `<`
 *  written \u003c as Go's encoder does: a `<<` in an exec-form RUN must not
 *  look like a heredoc to a parser that does not know JSON forms have none. */
void plan_json_str(strbuf *sb, const char *s);
/* plan_py_str() : `s` as a Python 3 string literal whose value is `s`:
 *  printable ASCII as is, everything else escaped, so the module is pure
 *  ASCII whatever the input. Bytes that are not UTF-8 become \udcXX (the
 *  surrogateescape spelling Python itself uses for such bytes). */
void plan_py_str(strbuf *sb, const char *s);
/* plan_comment_text() : `s` for a `#` comment: control bytes become `?`,
 *  so a value can never end the comment line. */
void plan_comment_text(strbuf *sb, const char *s);
/* plan_json_text() : `o` as JSON (2-space indent, `/` unescaped, trailing
 *  newline). Keys come out in insertion order: callers insert them sorted. */
char *plan_json_text(struct json_object *o, size_t *len);

/* ---- the install steps' commands (shell text) ---- */

/* plan_python_cmd() : the locked Python install: hashes required, no
 *  dependency resolution, only requirements.txt. With `pip` the pip form;
 *  `no_cache` asks uv not to leave its cache in the image. */
void plan_python_cmd(strbuf *sb, const plan_facts *f, bool pip, bool no_cache);
/* plan_sort_unique() : sorts v[0..n) by bytes and drops repeats; the new count. */
size_t plan_sort_unique(const char **v, size_t n);
/* plan_lock_base_digest() : the lock's datalayer base digest, else its
 *  first published one, else NULL. */
const char *plan_lock_base_digest(const lock_doc *d);

/* plan_npm_tarball_url() : where npm fetches the tarball of `p` (which has
 * an artifact): the lock's URL (format 1), else the registry layout npm's
 * registry and its mirrors serve, `<source>/<name>/-/<file>` (format 2
 * records no URL, docs/lock-format.md). Caller frees. */
char *plan_npm_tarball_url(const lock_package *p);

/* ---- a conda environment (plan_conda.c) ---- */

/* plan_micromamba_fetch_cmd() : the shell command that puts the pinned
 *  micromamba at PLAN_MICROMAMBA, for a builder that cannot copy it from
 *  its image (e2b, daytona, modal). */
void plan_micromamba_fetch_cmd(strbuf *sb);
/* plan_conda_cmd() : installs conda-explicit.txt's packages into
 *  PLAN_CONDA_PREFIX without solving (`install` into the base's prefix;
 *  `create` makes it, for an image that has none), then drops the
 *  package cache. */
void plan_conda_cmd(strbuf *sb, bool create);
/* plan_conda_install_text() : conda-explicit.txt, the conda step's only
 *  input: the lock's conda packages as an explicit file whose URLs go
 *  through the site's mirrors (plan_export_conda.c). NULL when the lock
 *  has no conda package. */
char *plan_conda_install_text(const plan_input *in, size_t *len);
struct plan_df_style;
/* plan_df_conda() : the Dockerfile lines of the conda step (none without
 *  conda packages): conda-explicit.txt, micromamba, the install. */
void plan_df_conda(strbuf *sb, const plan_facts *f, const struct plan_df_style *st);

/* plan_npm_cmd() : `cd /opt/datalayer/node && npm ci ...` from the lock's registry. */
void plan_npm_cmd(strbuf *sb, const plan_facts *f);
/* plan_names_secret() : whether `cmd` names `name` as a whole word (not
 *  preceded or followed by [A-Za-z0-9_.-]; REFERENCE §1 rule 13). */
bool plan_names_secret(const char *cmd, const char *name);
/* plan_first_word_upper() : the first word of `cmd`, uppercased, into out
 *  (truncated to cap-1 bytes). */
void plan_first_word_upper(const char *cmd, char *out, size_t cap);

/* ---- Dockerfile steps (datalayer, daytona, e2b) ---- */

typedef struct plan_df_style {
    bool buildkit;          /* uv cache mount, --network=none, secret mounts */
    bool pip;               /* the pip form of the Python step */
    const char *user;       /* USER of the files and postInstall steps */
    const plan_env *extra_env; /* variables the variant sets unless the spec does */
    size_t n_extra_env;
    bool micromamba_image;  /* conda: COPY micromamba from its image, else fetch it */
    bool conda_create;      /* conda: the image has no conda prefix; make it and
                               put its bin first on PATH */
    bool wheelhouse;        /* a spec's own image: the Python packages the lock
                               has the base hold (its protected stack) come from
                               the wheelhouse in the build context */
} plan_df_style;

void plan_df_header(strbuf *sb, const plan_facts *f, const char *variant);
void plan_df_labels(strbuf *sb, const plan_facts *f);
void plan_df_env(strbuf *sb, const plan_facts *f, const plan_df_style *st);
void plan_df_installs(strbuf *sb, const plan_facts *f, const plan_df_style *st);
void plan_df_files(strbuf *sb, const plan_facts *f, const plan_df_style *st);
void plan_df_post_install(strbuf *sb, const plan_facts *f, const plan_df_style *st);
/* plan_df_foreign_tail() : the steps after the installs on an image that
 *  is not Datalayer's (e2b's, a spec's own): the doctor copied from the
 *  build context, the contract user, the files, postInstall, the doctor. */
void plan_df_foreign_tail(strbuf *sb, const plan_facts *f, const plan_df_style *st);
/* plan_df_base_build() : the whole Dockerfile of a variant built from the
 *  lock's base image (datalayer, daytona): syntax line when BuildKit,
 *  header, FROM the variant's digest, labels, installs, files, postInstall,
 *  the doctor; added to `out` as "Dockerfile". */
void plan_df_base_build(const plan_facts *f, const char *variant, const plan_df_style *st,
                        plan_files *out);

/* ---- context files ---- */

/* plan_context_files() : lock.txt, requirements.txt, apt-packages.txt,
 *  apt-sources.list, package.json, package-lock.json,
 *  expected-packages.json — those that apply, in that order. */
void plan_context_files(const plan_facts *f, plan_files *out);
/* plan_expected_packages() : the conformance manifest (REFERENCE §8 check 5). */
char *plan_expected_packages(const plan_input *in, size_t *len);
/* plan_export_refusal() : refuses (true) when an export the plan needs
 *  cannot be made from this lock, with the export's own reason. */
bool plan_export_refusal(const plan_facts *f, plan_refusal *r);

/* ---- refusals ---- */

/* plan_refusal_set() : fills *r and returns true, so checks read
 *  `return plan_refusal_set(r, at, "...", ...);`. */
bool plan_refusal_set(plan_refusal *r, plan_pos at, const char *fmt, ...) EL_PRINTF(3, 4);
/* plan_refuse_common() : the refusals every variant shares, in order:
 *  build source, manager, architecture, size class. `builder` names the
 *  variant's builder in messages ("the Modal builder"). */
bool plan_refuse_common(const plan_facts *f, const char *builder, plan_refusal *r);
/* plan_refuse_gpu() : refuses a GPU size class (at sizeClass) or an
 *  accelerator (at accelerator): "`<class>` needs a GPU, <why>. Choose
 *  small, medium or large, <tail>". */
bool plan_refuse_gpu(const plan_facts *f, const char *why, const char *tail, plan_refusal *r);
/* plan_refuse_gpu_without_cuda() : plan_refuse_gpu() unless the base carries
 *  CUDA (a variant whose builder can use a CUDA base's GPU). */
bool plan_refuse_gpu_without_cuda(const plan_facts *f, const char *why, const char *tail,
                                  plan_refusal *r);
/* plan_refuse_secrets() / plan_refuse_regions() : any buildSecrets / any
 *  region, with `message`. */
bool plan_refuse_secrets(const plan_facts *f, const char *message, plan_refusal *r);
bool plan_refuse_regions(const plan_facts *f, const char *message, plan_refusal *r);
/* plan_secret_env_name() : the shell variable a secret mounted as env is
 *  exported as: its name with every character but [A-Za-z0-9_] written
 *  `_`, and `_` before a leading digit (`my.token` -> `my_token`), since
 *  sh refuses other names and dash drops them from the environment. */
void plan_secret_env_name(strbuf *sb, const char *name);
/* plan_refuse_secret_env_names() : two env secrets exported as one name. */
bool plan_refuse_secret_env_names(const plan_facts *f, plan_refusal *r);
/* plan_refuse_copy_paths() : a spec.files path with `$` (COPY would
 *  expand it as a variable), for the Dockerfile variants. */
bool plan_refuse_copy_paths(const plan_facts *f, const char *builder, plan_refusal *r);
/* plan_refuse_image_source() : a spec built on an image (`build.source:
 *  image`, a recipe's `baseImage`) for a variant that cannot build on it:
 *  "`<variant>` cannot build on the image `<ref>`: <why>. <how to leave
 *  it>", at the spec's build source (its `baseImage` for a recipe). */
bool plan_refuse_image_source(const plan_facts *f, const char *variant, const char *why,
                              plan_refusal *r);
/* plan_refuse_no_base() : the lock holds no base digest for `variant`. */
bool plan_refuse_no_base(const plan_facts *f, const char *variant, plan_refusal *r);

/* ---- the variants ---- */

bool plan_datalayer_refuse(const plan_facts *f, plan_refusal *r);
void plan_datalayer_files(const plan_facts *f, plan_files *out);
bool plan_e2b_refuse(const plan_facts *f, plan_refusal *r);
void plan_e2b_files(const plan_facts *f, plan_files *out);
/* plan_e2b_note() : plan_note() of e2b: why its FROM is not pinned, or NULL. */
char *plan_e2b_note(const plan_input *in);
bool plan_daytona_refuse(const plan_facts *f, plan_refusal *r);
void plan_daytona_files(const plan_facts *f, plan_files *out);
/* plan_daytona_note() : for daytona on an image the lock holds no digest
 *  of, that its FROM is a floating tag and what pins it; else NULL. */
char *plan_daytona_note(const plan_input *in);
bool plan_modal_refuse(const plan_facts *f, plan_refusal *r);
void plan_modal_files(const plan_facts *f, plan_files *out);

/* ---- what the exports share (plan_export.c) ---- */

/* The lock's packages of one ecosystem in name order (then version, arch,
 * path); `v` is the caller's to free, the packages are the lock's. */
typedef struct plan_pkgv {
    const lock_package **v;
    size_t n;
} plan_pkgv;

/* plan_pkgs_of() : the packages of `eco`; with installs_only, without those
 *  the base holds (installedInBase). */
plan_pkgv plan_pkgs_of(const lock_doc *d, const char *eco, bool installs_only);
/* plan_sha256_hex() : the 64 lowercase hex of a `sha256:` hash, or NULL. */
const char *plan_sha256_hex(const lock_artifact *a);
/* plan_is_wheel() : whether the file is a wheel (`.whl`). */
bool plan_is_wheel(const lock_artifact *a);
/* plan_export_refuse() : DL_ENV_CAPABILITY_UNSUPPORTED "the lock cannot be
 *  exported as FORMAT: PACKAGE WHY" (`p` NULL: WHY of the whole lock), detail
 *  reason unexportable_lock, the format and the package. Returns NULL. */
char *plan_export_refuse(el_ctx *ctx, plan_format fmt, const lock_package *p, const char *why);
/* plan_export_conda() : `conda-explicit` or `conda-lock` (plan_export_conda.c). */
char *plan_export_conda(el_ctx *ctx, const plan_input *in, plan_format fmt, size_t *len);

#endif
