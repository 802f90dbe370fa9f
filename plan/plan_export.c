/* plan_export.c — the lock exports (uv-pip-compile, requirements,
 * pylock, package-lock, apt; conda-explicit and conda-lock are
 * plan_export_conda.c's) and the two
 * texts plans install from beside them (package.json, apt sources). Each
 * is a pure function of a plan_input: the lock's packages in a fixed
 * order, written in the other tool's own syntax, byte for byte the same
 * for the same input.
 *
 * It owns only the formats. What goes into a plan directory, and the
 * install steps that read these texts, are plan_common.c's; reading the
 * lock and the bases catalog is the verbs'. Nothing here writes a file,
 * prints, or keeps state between calls. A lock a format cannot express
 * (a Python package without a hash to check, an npm package without a
 * place in node_modules) is refused by plan_export() with the package
 * named, never exported with the package silently missing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "plan.h"
#include "plan_internal.h"

/* ---- the formats' names ---- */

static const char *const format_name[] = {
    [PLAN_UV_PIP_COMPILE] = "uv-pip-compile", [PLAN_REQUIREMENTS] = "requirements",
    [PLAN_PYLOCK] = "pylock",                 [PLAN_PACKAGE_LOCK] = "package-lock",
    [PLAN_APT] = "apt",                       [PLAN_CYCLONEDX] = "cyclonedx",
    [PLAN_SPDX] = "spdx",                     [PLAN_CONDA_EXPLICIT] = "conda-explicit",
    [PLAN_CONDA_LOCK] = "conda-lock",
};

bool plan_format_parse(const char *name, plan_format *out)
{
    for (size_t i = 0; name && i < sizeof format_name / sizeof *format_name; i++)
        if (strcmp(name, format_name[i]) == 0) {
            *out = (plan_format)i;
            return true;
        }
    return false;
}

const char *plan_format_names(void)
{
    return "uv-pip-compile, requirements, pylock, package-lock, apt, cyclonedx, spdx, "
           "conda-explicit, conda-lock";
}

/* ---- the lock's packages of one ecosystem, in name order ---- */

typedef plan_pkgv pkgv;

static int cmp_str(const char *a, const char *b)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

static int cmp_pkg(const void *x, const void *y)
{
    const lock_package *a = *(const lock_package *const *)x, *b = *(const lock_package *const *)y;
    int c = strcmp(a->name, b->name);
    if (!c)
        c = strcmp(a->version, b->version);
    if (!c)
        c = cmp_str(a->arch, b->arch);
    if (!c)
        c = cmp_str(a->path, b->path);
    return c;
}

/* The packages of `eco`; with installs_only, without those the base has. */
pkgv plan_pkgs_of(const lock_doc *d, const char *eco, bool installs_only)
{
    pkgv p = { xcalloc(d->n_packages + 1, sizeof *p.v), 0 };
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *k = &d->packages[i];
        if (strcmp(k->ecosystem, eco) == 0 && !(installs_only && k->installed_in_base))
            p.v[p.n++] = k;
    }
    qsort(p.v, p.n, sizeof *p.v, cmp_pkg);
    return p;
}

static bool strv_has(const char *const *v, const char *s)
{
    for (; v && *v; v++)
        if (strcmp(*v, s) == 0)
            return true;
    return false;
}

static int cmp_strp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorts v[0..n) and drops repeats; returns the new count. */
size_t plan_sort_unique(const char **v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_strp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!k || strcmp(v[k - 1], v[i]) != 0)
            v[k++] = v[i];
    return k;
}

/* The hex of a "sha256:<64 lowercase hex>" artifact hash, else NULL. */
const char *plan_sha256_hex(const lock_artifact *a)
{
    if (!a->hash || strncmp(a->hash, "sha256:", 7) != 0)
        return NULL;
    const char *h = a->hash + 7;
    if (strlen(h) != 64 || strspn(h, "0123456789abcdef") != 64)
        return NULL;
    return h;
}

/* The package's sha256 hexes, sorted, without repeats (caller frees). */
static size_t sha256s_of(const lock_package *p, const char ***out)
{
    const char **v = xcalloc(p->n_artifacts + 1, sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < p->n_artifacts; i++)
        if ((v[n] = plan_sha256_hex(&p->artifacts[i])))
            n++;
    *out = v;
    return plan_sort_unique(v, n);
}

/* ---- resolved-at ---- */

/* "20260914T150000Z" -> seconds since the epoch; false if not that shape. */
static bool snapshot_time(const char *t, int64_t *s)
{
    if (!t || strlen(t) != 16 || t[8] != 'T' || t[15] != 'Z' || strspn(t, "0123456789") != 8 ||
        strspn(t + 9, "0123456789") != 6)
        return false;
    char iso[32];
    snprintf(iso, sizeof iso, "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", t, t + 4, t + 6, t + 9, t + 11,
             t + 13);
    int64_t ms;
    if (!rfc3339_parse(iso, 0, &ms))
        return false;
    *s = ms / 1000;
    return true;
}

void plan_resolved_at(const plan_input *in, char out[32])
{
    int64_t ms = 0, s = 0;
    if (in->lock->exclude_newer && rfc3339_parse(in->lock->exclude_newer, RFC3339_DATE_OK, &ms))
        s = ms / 1000 - (ms % 1000 < 0);
    else if (!snapshot_time(in->apt_snapshot, &s))
        s = 0;
    utc_format(s, "+00:00", out);
}

/* ---- refusals ---- */

char *plan_export_refuse(el_ctx *ctx, plan_format fmt, const lock_package *p, const char *why)
{
    /* The lock is sound; the format cannot hold it: a capability, as plan
     * says of a variant that cannot honour the spec (one status, 11).
     * Without `p`, `why` says what the lock as a whole lacks. */
    if (p)
        el_fail(ctx, EL_CAPABILITY_UNSUPPORTED, "the lock cannot be exported as %s: %s:%s@%s %s",
                format_name[fmt], p->ecosystem, p->name, p->version, why);
    else
        el_fail(ctx, EL_CAPABILITY_UNSUPPORTED, "the lock cannot be exported as %s: %s",
                format_name[fmt], why);
    el_detail_str(ctx, "reason", "unexportable_lock");
    el_detail_str(ctx, "format", format_name[fmt]);
    if (!p)
        return NULL;
    char *id = xasprintf("%s:%s@%s", p->ecosystem, p->name, p->version);
    el_detail_str(ctx, "package", id);
    free(id);
    return NULL;
}

bool plan_is_wheel(const lock_artifact *a)
{
    size_t n = a->file ? strlen(a->file) : 0;
    return n > 4 && strcmp(a->file + n - 4, ".whl") == 0;
}

/* "algo:value" with a hashlib-style algorithm name: what pylock's hashes take. */
static bool hash_split(const char *h, size_t *algo_len)
{
    const char *c = h ? strchr(h, ':') : NULL;
    if (!c || c == h || !c[1])
        return false;
    *algo_len = (size_t)(c - h);
    return strspn(h, "abcdefghijklmnopqrstuvwxyz0123456789_") == *algo_len;
}

static const char *pylock_problem(const lock_package *p)
{
    size_t sdists = 0, algo;
    if (!p->installed_in_base && p->n_artifacts == 0)
        return "has no wheel or sdist, and the base image does not have it";
    for (size_t i = 0; i < p->n_artifacts; i++) {
        if (!hash_split(p->artifacts[i].hash, &algo))
            return "has an artifact whose hash is not `algorithm:value`";
        if (!p->artifacts[i].url)
            return "has a file its index page does not list (pylock.toml needs its URL)";
        sdists += !plan_is_wheel(&p->artifacts[i]);
    }
    return sdists > 1 ? "has more than one sdist, and pylock.toml records one" : NULL;
}

/* Whether the Python exports can express every pypi package (false after
 * recording why not on ctx). */
static bool pypi_check(el_ctx *ctx, plan_format fmt, const pkgv *py)
{
    for (size_t i = 0; i < py->n; i++) {
        const lock_package *p = py->v[i];
        if (i && strcmp(py->v[i - 1]->name, p->name) == 0)
            return plan_export_refuse(ctx, fmt, p, "is locked at two versions; one environment installs one"),
                   false;
        const char *why = NULL;
        if (fmt == PLAN_PYLOCK)
            why = pylock_problem(p);
        else if (!p->installed_in_base) {
            const char **h;
            size_t n = sha256s_of(p, &h);
            free(h);
            if (!n)
                why = "has no sha256 artifact to check with --require-hashes, and the base image "
                      "does not have it: resolve the lock again";
        }
        if (why)
            return plan_export_refuse(ctx, fmt, p, why), false;
    }
    return true;
}

/* ---- pip's hash-checking lines (uv-pip-compile and requirements) ---- */

/* "name==version", then " \" and one --hash line per sha256; no newline. */
static void pip_entry(strbuf *sb, const lock_package *p)
{
    const char **h;
    size_t n = sha256s_of(p, &h);
    sb_addf(sb, "%s==%s", p->name, p->version);
    for (size_t i = 0; i < n; i++)
        sb_addf(sb, " \\\n    --hash=sha256:%s", h[i]);
    free(h);
}

char *plan_requirements_text(const plan_input *in, bool only_installs, size_t *len)
{
    pkgv py = plan_pkgs_of(in->lock, "pypi", only_installs);
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "# Exported by envlock from lock %s: install with\n"
                 "# pip install --no-deps --require-hashes -r <this file>\n",
            in->lock_digest ? in->lock_digest : "(no digest)");
    for (size_t i = 0; i < py.n; i++) {
        const char **h;
        size_t n = sha256s_of(py.v[i], &h);
        free(h);
        if (!n)
            continue;
        pip_entry(&sb, py.v[i]);
        sb_addc(&sb, '\n');
    }
    free(py.v);
    return sb_detach(&sb, len);
}

/* ---- uv-pip-compile: the reference's lock text ---- */

static const char *python_minor(const plan_input *in, char buf[16])
{
    if (in->python_minor)
        return in->python_minor;
    const char *v = in->lock->python_version ? in->lock->python_version : "";
    const char *dot = strchr(v, '.');
    size_t n = dot ? strcspn(dot + 1, ".") + (size_t)(dot + 1 - v) : strlen(v);
    snprintf(buf, 16, "%.*s", (int)(n < 15 ? n : 15), v);
    return buf;
}

/* The datalayer variant's base digest, else the first published one. */
const char *plan_lock_base_digest(const lock_doc *d)
{
    const char *first = NULL;
    for (size_t i = 0; d->variants && d->variants[i]; i++) {
        const char *g = d->base_digests ? d->base_digests[i] : NULL;
        if (g && strcmp(d->variants[i], "datalayer") == 0)
            return g;
        if (g && !first)
            first = g;
    }
    return first;
}

static void uv_base_line(strbuf *sb, const plan_input *in)
{
    const char *repo = in->base_repository ? in->base_repository : in->lock->base_ref;
    const char *dg = plan_lock_base_digest(in->lock);
    sb_adds(sb, "# base: ");
    if (in->base_registry && *in->base_registry)
        sb_addf(sb, "%s/", in->base_registry);
    sb_adds(sb, repo ? repo : "");
    if (dg)
        sb_addf(sb, "@%s", dg);
    sb_addc(sb, '\n');
}

/* "name=version" of an installed deb ("name:arch=version" for a foreign
 * architecture, which apt needs spelled out). */
static void apt_pin(strbuf *sb, const lock_doc *d, const lock_package *p)
{
    bool foreign = p->arch && strcmp(p->arch, "all") != 0 && d->arch && strcmp(p->arch, d->arch);
    sb_adds(sb, p->name);
    if (foreign)
        sb_addf(sb, ":%s", p->arch);
    sb_addf(sb, "=%s", p->version);
}

static void uv_apt_lines(strbuf *sb, const plan_input *in, const pkgv *debs)
{
    const char **src = xcalloc(debs->n + 1, sizeof *src);
    size_t ns = 0;
    for (size_t i = 0; i < debs->n; i++) {
        sb_adds(sb, "# datalayer-apt: ");
        apt_pin(sb, in->lock, debs->v[i]);
        sb_addc(sb, '\n');
        if (debs->v[i]->source)
            src[ns++] = debs->v[i]->source;
    }
    ns = plan_sort_unique(src, ns);
    for (size_t i = 0; i < ns; i++)
        sb_addf(sb, "# datalayer-apt-source: %s\n", src[i]);
    if (debs->n && in->apt_snapshot)
        sb_addf(sb, "# datalayer-apt-snapshot: %s\n", in->apt_snapshot);
    free(src);
}

static void uv_header(strbuf *sb, const plan_input *in, const pkgv *debs)
{
    char at[32], minor[16];
    if (in->resolved_at)
        snprintf(at, sizeof at, "%s", in->resolved_at);
    else
        plan_resolved_at(in, at);
    sb_addf(sb, "# Exported by envlock from lock %s. Do not edit: change the spec and lock "
                "again.\n",
            in->lock_digest ? in->lock_digest : "(no digest)");
    sb_addf(sb, "# resolved-at: %s\n", at);
    sb_addf(sb, "# python: %s\n", python_minor(in, minor));
    uv_base_line(sb, in);
    uv_apt_lines(sb, in, debs);
    for (const char *const *c = in->spec ? in->spec->python_constraints : NULL; c && *c; c++)
        sb_addf(sb, "# datalayer-protected: %s\n", *c);
    for (const char *const *c = in->protected_pins; c && *c; c++)
        sb_addf(sb, "# datalayer-protected: %s\n", *c);
}

/* Who asked for p, in uv's order: the requirements file, the base's pins,
 * then the dependents' names (sorted). Borrowed strings; caller frees v. */
static size_t uv_sources(const lock_package *p, const char ***out)
{
    size_t cap = 2;
    for (const char **r = p->requested_by; r && *r; r++)
        cap++;
    const char **v = xcalloc(cap, sizeof *v), **deps = v + 2;
    size_t n = 0, nd = 0;
    if (strv_has(p->requested_by, "spec"))
        v[n++] = "-r requirements.in";
    if (strv_has(p->requested_by, "protected"))
        v[n++] = "protected";
    for (const char **r = p->requested_by; r && *r; r++)
        if (strcmp(*r, "spec") && strcmp(*r, "protected"))
            deps[nd++] = *r;
    nd = plan_sort_unique(deps, nd);
    memmove(v + n, deps, nd * sizeof *v);
    *out = v;
    return n + nd;
}

/* A dependent "pypi:name@version" is written as its name. */
static void uv_source_name(strbuf *sb, const char *s)
{
    const char *at = strchr(s, '@');
    if (strncmp(s, "pypi:", 5) == 0 && at)
        sb_add(sb, s + 5, (size_t)(at - s - 5));
    else
        sb_adds(sb, s);
}

/* uv's "split" annotation: one source on the via line, several below it. */
static void uv_via(strbuf *sb, const lock_package *p)
{
    const char **v;
    size_t n = uv_sources(p, &v);
    const char *note = p->installed_in_base ? " (installed in the base image)" : "";
    if (n == 0 && *note)
        sb_adds(sb, "    # installed in the base image\n");
    else if (n == 1) {
        sb_adds(sb, "    # via ");
        uv_source_name(sb, v[0]);
        sb_addf(sb, "%s\n", note);
    } else if (n > 1) {
        sb_addf(sb, "    # via%s\n", note);
        for (size_t i = 0; i < n; i++) {
            sb_adds(sb, "    #   ");
            uv_source_name(sb, v[i]);
            sb_addc(sb, '\n');
        }
    }
    free(v);
}

static char *export_uv(el_ctx *ctx, const plan_input *in, size_t *len)
{
    pkgv py = plan_pkgs_of(in->lock, "pypi", false), debs = plan_pkgs_of(in->lock, "deb", true);
    bool ok = pypi_check(ctx, PLAN_UV_PIP_COMPILE, &py);
    strbuf sb = STRBUF_INIT;
    if (ok) {
        uv_header(&sb, in, &debs);
        for (size_t i = 0; i < py.n; i++) {
            pip_entry(&sb, py.v[i]);
            sb_addc(&sb, '\n');
            uv_via(&sb, py.v[i]);
        }
    }
    free(py.v);
    free(debs.v);
    if (!ok)
        return NULL;
    return sb_detach(&sb, len);
}

static char *export_requirements(el_ctx *ctx, const plan_input *in, size_t *len)
{
    pkgv py = plan_pkgs_of(in->lock, "pypi", false);
    bool ok = pypi_check(ctx, PLAN_REQUIREMENTS, &py);
    free(py.v);
    return ok ? plan_requirements_text(in, false, len) : NULL;
}

/* ---- pylock.toml (PEP 751) ---- */

/* A TOML basic string: quotes, backslashes and control characters escaped,
 * everything else (UTF-8 included) as is. */
static void toml_str(strbuf *sb, const char *s)
{
    sb_addc(sb, '"');
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            sb_addf(sb, "\\%c", *c);
        else if (*c == '\n')
            sb_adds(sb, "\\n");
        else if (*c == '\t')
            sb_adds(sb, "\\t");
        else if (*c == '\r')
            sb_adds(sb, "\\r");
        else if (*c < 0x20 || *c == 0x7f)
            sb_addf(sb, "\\u%04X", *c);
        else
            sb_addc(sb, (char)*c);
    }
    sb_addc(sb, '"');
}

static void toml_kv(strbuf *sb, const char *key, const char *value)
{
    sb_addf(sb, "%s = ", key);
    toml_str(sb, value);
    sb_addc(sb, '\n');
}

static const char *pep508_machine(const char *deb_arch)
{
    static const char *const map[][2] = {
        { "amd64", "x86_64" },  { "arm64", "aarch64" }, { "ppc64el", "ppc64le" },
        { "s390x", "s390x" },   { "i386", "i686" },     { "armhf", "armv7l" },
        { "riscv64", "riscv64" },
    };
    for (size_t i = 0; deb_arch && i < sizeof map / sizeof *map; i++)
        if (strcmp(deb_arch, map[i][0]) == 0)
            return map[i][1];
    return NULL;
}

/* The one environment the lock was resolved for, as a PEP 508 marker. */
static void pylock_marker(strbuf *m, const lock_doc *d)
{
    const char *plat = d->platform ? d->platform : "", *mach = pep508_machine(d->arch);
    bool linux_tag = strncmp(plat, "manylinux", 9) == 0 || strncmp(plat, "musllinux", 9) == 0 ||
                     strncmp(plat, "linux", 5) == 0;
    if (d->python_version)
        sb_addf(m, "python_full_version == '%s'", d->python_version);
    if (linux_tag)
        sb_addf(m, "%ssys_platform == 'linux'", m->len ? " and " : "");
    if (mach)
        sb_addf(m, "%splatform_machine == '%s'", m->len ? " and " : "", mach);
}

static void pylock_header(strbuf *sb, const plan_input *in)
{
    const lock_doc *d = in->lock;
    strbuf m = STRBUF_INIT;
    sb_addf(sb, "# Exported by envlock from lock %s. Do not edit: change the spec and lock "
                "again.\n",
            in->lock_digest ? in->lock_digest : "(no digest)");
    toml_kv(sb, "lock-version", "1.0");
    pylock_marker(&m, d);
    if (m.len) {
        sb_adds(sb, "environments = [");
        toml_str(sb, m.buf);
        sb_adds(sb, "]\n");
    }
    sb_release(&m);
    if (d->python_version) {
        bool full = strchr(d->python_version, '.') != strrchr(d->python_version, '.');
        char *rp = xasprintf("==%s%s", d->python_version, full ? "" : ".*");
        toml_kv(sb, "requires-python", rp);
        free(rp);
    }
    toml_kv(sb, "created-by", "envlock");
}

/* {name = "...", url = "...", size = N, hashes = {algo = "..."}} */
static void pylock_file(strbuf *sb, const lock_artifact *a)
{
    size_t algo = 0;
    hash_split(a->hash, &algo);
    sb_adds(sb, "{name = ");
    toml_str(sb, a->file);
    sb_adds(sb, ", url = ");
    toml_str(sb, a->url);
    if (a->size)
        sb_addf(sb, ", size = %llu", (unsigned long long)a->size);
    sb_addf(sb, ", hashes = {%.*s = ", (int)algo, a->hash);
    toml_str(sb, a->hash + algo + 1);
    sb_adds(sb, "}}");
}

/* dependencies = [{name = "...", version = "..."}, ...]: the pypi edges. */
static void pylock_deps(strbuf *sb, const lock_package *p)
{
    bool any = false;
    for (size_t i = 0; i < p->n_deps; i++) {
        const lock_edge *e = &p->deps[i];
        if ((e->ecosystem && strcmp(e->ecosystem, "pypi")) ||
            (i && strcmp(p->deps[i - 1].name, e->name) == 0 &&
             strcmp(p->deps[i - 1].version, e->version) == 0))
            continue;
        sb_adds(sb, any ? ", {name = " : "dependencies = [{name = ");
        toml_str(sb, e->name);
        sb_adds(sb, ", version = ");
        toml_str(sb, e->version);
        sb_addc(sb, '}');
        any = true;
    }
    if (any)
        sb_adds(sb, "]\n");
}

static void pylock_package(strbuf *sb, const lock_package *p)
{
    sb_adds(sb, "\n[[packages]]\n");
    toml_kv(sb, "name", p->name);
    toml_kv(sb, "version", p->version);
    pylock_deps(sb, p);
    if (p->source)
        toml_kv(sb, "index", p->source);
    for (size_t i = 0; i < p->n_artifacts; i++)
        if (!plan_is_wheel(&p->artifacts[i])) {
            sb_adds(sb, "sdist = ");
            pylock_file(sb, &p->artifacts[i]);
            sb_addc(sb, '\n');
        }
    bool wheels = false;
    for (size_t i = 0; i < p->n_artifacts; i++)
        if (plan_is_wheel(&p->artifacts[i])) {
            sb_adds(sb, wheels ? "    " : "wheels = [\n    ");
            pylock_file(sb, &p->artifacts[i]);
            sb_adds(sb, ",\n");
            wheels = true;
        }
    if (wheels)
        sb_adds(sb, "]\n");
    if (p->installed_in_base)
        sb_adds(sb, "tool = {envlock = {installed-in-base = true}}\n");
}

static char *export_pylock(el_ctx *ctx, const plan_input *in, size_t *len)
{
    pkgv py = plan_pkgs_of(in->lock, "pypi", false);
    bool ok = pypi_check(ctx, PLAN_PYLOCK, &py);
    strbuf sb = STRBUF_INIT;
    if (ok) {
        pylock_header(&sb, in);
        for (size_t i = 0; i < py.n; i++)
            pylock_package(&sb, py.v[i]);
    }
    free(py.v);
    if (!ok)
        return NULL;
    return sb_detach(&sb, len);
}

/* ---- package-lock.json (lockfileVersion 3) and package.json ---- */

/* npm writes every object's keys through a sort: scalars before objects,
 * its preferred keys first, the rest in the ICU "en" collation of
 * String.localeCompare. For the ASCII npm names and paths use, that
 * collation is: punctuation and symbols in the order below, then digits,
 * then letters, case ignored, and only on a tie lowercase first. */
static int coll_weight(unsigned char c, bool *upper)
{
    static const char order[] = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz";
    *upper = c >= 'A' && c <= 'Z';
    if (*upper)
        c = (unsigned char)(c - 'A' + 'a');
    const char *at = c && c < 0x80 ? strchr(order, c) : NULL;
    return at ? (int)(at - order) : 256 + c;
}

static int npm_collate(const char *a, const char *b)
{
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    bool ux, uy;
    size_t i;
    for (i = 0; x[i] && y[i]; i++) {
        int wx = coll_weight(x[i], &ux), wy = coll_weight(y[i], &uy);
        if (wx != wy)
            return wx < wy ? -1 : 1;
    }
    if (x[i] || y[i])
        return x[i] ? 1 : -1;
    for (i = 0; x[i]; i++) {
        coll_weight(x[i], &ux);
        coll_weight(y[i], &uy);
        if (ux != uy)
            return ux ? 1 : -1;
    }
    return strcmp(a, b);
}

typedef struct npm_dep {
    const char *name, *spec;
    size_t at; /* its place in the input: the first of a repeated name wins */
} npm_dep;

static int cmp_npm_dep_first(const void *a, const void *b)
{
    const npm_dep *x = a, *y = b;
    int c = npm_collate(x->name, y->name);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* A {name: spec} object in npm's order (first of a repeated name kept);
 * NULL when empty, as npm leaves empty objects out. One sort, so the roots
 * of a lock of 65,000 npm packages cost n log n, not n squared. */
static json_object *npm_dep_object(npm_dep *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i].at = i;
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_npm_dep_first);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!k || strcmp(v[k - 1].name, v[i].name) != 0)
            v[k++] = v[i];
    if (!k)
        return NULL;
    json_object *o = json_object_new_object();
    for (size_t i = 0; i < k; i++)
        json_object_object_add(o, v[i].name, json_object_new_string(v[i].spec));
    return o;
}

static void json_add_opt(json_object *o, const char *key, json_object *v)
{
    if (v)
        json_object_object_add(o, key, v);
}

static char *json_text(json_object *o, size_t *len)
{
    const char *t = json_object_to_json_string_ext(
        o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    char *s = xasprintf("%s\n", t);
    json_object_put(o);
    *len = strlen(s);
    return s;
}

/* The npm tree: the lock's npm packages by path, and who reaches whom. */
typedef struct npm_tree {
    const lock_doc *d;
    pkgv p;          /* sorted by path for lookup */
    size_t *root;    /* the spec roots: packages at node_modules/<folder> */
    size_t n_root;
    bool *any, *nonopt, *nonpeer; /* reached at all / by non-optional / by non-peer edges */
    struct nv_ref *by_nv; /* the packages with a path, by (name, version, index) */
    size_t n_nv;
} npm_tree;

typedef struct nv_ref {
    const char *name, *version;
    size_t i;        /* index into npm_tree.p */
} nv_ref;

static int cmp_path(const void *a, const void *b)
{
    int c = cmp_str((*(const lock_package *const *)a)->path, (*(const lock_package *const *)b)->path);
    return c ? c : cmp_pkg(a, b);
}

static long npm_at(const npm_tree *t, const char *path)
{
    size_t lo = 0, hi = t->p.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = cmp_str(t->p.v[mid]->path, path);
        if (!c)
            return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int cmp_nv(const nv_ref *r, const char *name, const char *version)
{
    int c = strcmp(r->name, name);
    return c ? c : strcmp(r->version, version);
}

static int cmp_nv_ref(const void *a, const void *b)
{
    const nv_ref *x = a, *y = b;
    int c = cmp_nv(x, y->name, y->version);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* The first copy (in path order) of name@version, or -1: a binary search
 * of by_nv, so an edge that misses node's lookup costs log n, not n. */
static long npm_by_name(const npm_tree *t, const char *name, const char *version)
{
    size_t lo = 0, hi = t->n_nv;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_nv(&t->by_nv[mid], name, version) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->n_nv && cmp_nv(&t->by_nv[lo], name, version) == 0 ? (long)t->by_nv[lo].i : -1;
}

/* Node's lookup: `name` under `from`, then under each ancestor, then at
 * the top; falls back to any copy of name@version. -1 if none. */
static long npm_resolve(const npm_tree *t, const char *from, const char *name, const char *version)
{
    strbuf base = STRBUF_INIT, cand = STRBUF_INIT;
    sb_adds(&base, from);
    long hit = -1;
    for (;;) {
        sb_reset(&cand);
        sb_addf(&cand, "%s%snode_modules/%s", base.buf, base.len ? "/" : "", name);
        long i = npm_at(t, cand.buf);
        if (i >= 0 && strcmp(t->p.v[i]->version, version) == 0) {
            hit = i;
            break;
        }
        char *cut = NULL;
        for (char *s = strstr(base.buf, "node_modules/"); s; s = strstr(s + 1, "node_modules/"))
            cut = s;
        if (!cut)
            break;
        sb_setlen(&base, cut > base.buf ? (size_t)(cut - base.buf - 1) : 0);
    }
    sb_release(&base);
    sb_release(&cand);
    return hit >= 0 ? hit : npm_by_name(t, name, version);
}

/* Marks in `seen` what the root reaches through edges not of kind `skip`. */
static void npm_reach(const npm_tree *t, const char *skip, bool *seen)
{
    long *queue = xcalloc(t->p.n + 1, sizeof *queue);
    size_t qn = 0;
    for (size_t i = 0; i < t->n_root; i++)
        if (!seen[t->root[i]])
            seen[t->root[i]] = true, queue[qn++] = (long)t->root[i];
    for (size_t q = 0; q < qn; q++) {
        const lock_package *p = t->p.v[queue[q]];
        for (size_t j = 0; j < p->n_deps; j++) {
            const lock_edge *e = &p->deps[j];
            if ((e->ecosystem && strcmp(e->ecosystem, "npm")) || (skip && cmp_str(e->kind, skip) == 0))
                continue;
            long k = npm_resolve(t, p->path, e->alias ? e->alias : e->name, e->version);
            if (k >= 0 && !seen[k])
                seen[k] = true, queue[qn++] = k;
        }
    }
    free(queue);
}

/* The folder a path names: what follows its last "node_modules/". */
static const char *folder_name(const char *path)
{
    const char *s = NULL;
    for (const char *c = strstr(path, "node_modules/"); c; c = strstr(c + 1, "node_modules/"))
        s = c + 13;
    return s ? s : path;
}

static void npm_tree_build(npm_tree *t, const lock_doc *d)
{
    t->d = d;
    t->p = plan_pkgs_of(d, "npm", false);
    qsort(t->p.v, t->p.n, sizeof *t->p.v, cmp_path);
    t->root = xcalloc(t->p.n + 1, sizeof *t->root);
    t->n_root = 0;
    for (size_t i = 0; i < t->p.n; i++) {
        const lock_package *p = t->p.v[i];
        if (p->path && strv_has(p->requested_by, "spec") &&
            strncmp(p->path, "node_modules/", 13) == 0 && folder_name(p->path) == p->path + 13)
            t->root[t->n_root++] = i;
    }
    t->by_nv = xcalloc(t->p.n + 1, sizeof *t->by_nv);
    t->n_nv = 0;
    for (size_t i = 0; i < t->p.n; i++)
        if (t->p.v[i]->path)
            t->by_nv[t->n_nv++] = (nv_ref){ t->p.v[i]->name, t->p.v[i]->version, i };
    if (t->n_nv > 1)
        qsort(t->by_nv, t->n_nv, sizeof *t->by_nv, cmp_nv_ref);
    t->any = xcalloc(t->p.n + 1, 3 * sizeof(bool));
    t->nonopt = t->any + t->p.n + 1;
    t->nonpeer = t->nonopt + t->p.n + 1;
    npm_reach(t, NULL, t->any);
    npm_reach(t, "optional", t->nonopt);
    npm_reach(t, "peer", t->nonpeer);
}

static void npm_tree_free(npm_tree *t)
{
    free(t->p.v);
    free(t->root);
    free(t->any);
    free(t->by_nv);
}

char *plan_npm_tarball_url(const lock_package *p)
{
    const lock_artifact *a = &p->artifacts[0];
    if (a->url)
        return xstrdup(a->url);
    size_t n = strlen(p->source);
    while (n && p->source[n - 1] == '/')
        n--;
    return xasprintf("%.*s/%s/-/%s", (int)n, p->source, p->name, a->file);
}

/* Why an npm package has no package-lock entry, or NULL. Paths are unique
 * and under node_modules/; each installs one tarball. */
static const char *npm_problem(const npm_tree *t, size_t i)
{
    const lock_package *p = t->p.v[i];
    if (strncmp(p->path, "node_modules/", 13) != 0 || !p->path[13])
        return "has a path outside node_modules/";
    if (i && strcmp(t->p.v[i - 1]->path, p->path) == 0)
        return "shares its node_modules path with another package";
    if (!p->installed_in_base && !p->in_bundle && (!p->n_artifacts || !p->artifacts[0].hash ||
                                  (!p->artifacts[0].url && !p->source)))
        return "has no tarball with an integrity to lock";
    return NULL;
}

/* One "node_modules/..." entry, keys in npm's order. */
static json_object *npm_entry(const npm_tree *t, const plan_input *in, size_t i)
{
    const lock_package *p = t->p.v[i];
    json_object *o = json_object_new_object();
    if (strcmp(folder_name(p->path), p->name) != 0)
        json_object_object_add(o, "name", json_object_new_string(p->name));
    json_object_object_add(o, "version", json_object_new_string(p->version));
    if (p->n_artifacts) {
        char *url = plan_npm_tarball_url(p), *site = plan_mirror_url(in, url);
        json_object_object_add(o, "resolved", json_object_new_string(site));
        free(site);
        free(url);
        json_object_object_add(o, "integrity", json_object_new_string(p->artifacts[0].hash));
    }
    if (p->in_bundle) /* shipped in its bundler's tarball: nothing to fetch */
        json_object_object_add(o, "inBundle", json_object_new_boolean(1));
    if (!t->any[i])
        json_object_object_add(o, "extraneous", json_object_new_boolean(1));
    if (t->any[i] && !t->nonopt[i])
        json_object_object_add(o, "optional", json_object_new_boolean(1));
    if (t->any[i] && !t->nonpeer[i])
        json_object_object_add(o, "peer", json_object_new_boolean(1));
    static const char *const kinds[][2] = { { "dependency", "dependencies" },
                                            { "optional", "optionalDependencies" },
                                            { "peer", "peerDependencies" } };
    npm_dep *v = xcalloc(p->n_deps + 1, sizeof *v);
    for (size_t k = 0; k < 3; k++) {
        size_t n = 0;
        for (size_t j = 0; j < p->n_deps; j++) {
            const lock_edge *e = &p->deps[j];
            if ((!e->ecosystem || strcmp(e->ecosystem, "npm") == 0) &&
                strcmp(e->kind ? e->kind : "dependency", kinds[k][0]) == 0)
                v[n++] = (npm_dep){ e->alias ? e->alias : e->name, e->spec ? e->spec : e->version, 0 };
        }
        json_add_opt(o, kinds[k][1], npm_dep_object(v, n));
    }
    free(v);
    return o;
}

static const char *project_name(const plan_input *in)
{
    return in->spec && in->spec->name && *in->spec->name ? in->spec->name : "envlock-plan";
}

/* The root's {folder: exact version}; an alias as npm writes one,
 * "npm:<name>@<version>". */
static json_object *npm_root_deps(const npm_tree *t)
{
    npm_dep *v = xcalloc(t->n_root + 1, sizeof *v);
    char **alias = xcalloc(t->n_root + 1, sizeof *alias);
    for (size_t i = 0; i < t->n_root; i++) {
        const lock_package *p = t->p.v[t->root[i]];
        v[i].name = folder_name(p->path);
        if (strcmp(v[i].name, p->name) != 0)
            alias[i] = xasprintf("npm:%s@%s", p->name, p->version);
        v[i].spec = alias[i] ? alias[i] : p->version;
    }
    json_object *o = npm_dep_object(v, t->n_root);
    for (size_t i = 0; i < t->n_root; i++)
        free(alias[i]);
    free(alias);
    free(v);
    return o;
}

static int cmp_entry_path(const void *a, const void *b)
{
    return npm_collate((*(const lock_package *const *)a)->path,
                       (*(const lock_package *const *)b)->path);
}

static json_object *npm_packages(const npm_tree *t, const plan_input *in)
{
    json_object *pk = json_object_new_object(), *root = json_object_new_object();
    json_object_object_add(root, "name", json_object_new_string(project_name(in)));
    json_add_opt(root, "dependencies", npm_root_deps(t));
    json_object_object_add(pk, "", root);
    const lock_package **order = xcalloc(t->p.n + 1, sizeof *order);
    memcpy(order, t->p.v, t->p.n * sizeof *order);
    qsort(order, t->p.n, sizeof *order, cmp_entry_path);
    for (size_t i = 0; i < t->p.n; i++)
        json_object_object_add(pk, order[i]->path, npm_entry(t, in, (size_t)npm_at(t, order[i]->path)));
    free(order);
    return pk;
}

static char *export_package_lock(el_ctx *ctx, const plan_input *in, size_t *len)
{
    npm_tree t;
    for (size_t i = 0; i < in->lock->n_packages; i++)
        if (strcmp(in->lock->packages[i].ecosystem, "npm") == 0 && !in->lock->packages[i].path)
            return plan_export_refuse(ctx, PLAN_PACKAGE_LOCK, &in->lock->packages[i],
                          "has no node_modules path");
    npm_tree_build(&t, in->lock);
    for (size_t i = 0; i < t.p.n; i++) {
        const char *why = npm_problem(&t, i);
        if (why) {
            plan_export_refuse(ctx, PLAN_PACKAGE_LOCK, t.p.v[i], why);
            npm_tree_free(&t);
            return NULL;
        }
    }
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(project_name(in)));
    json_object_object_add(o, "lockfileVersion", json_object_new_int(3));
    json_object_object_add(o, "requires", json_object_new_boolean(1));
    json_object_object_add(o, "packages", npm_packages(&t, in));
    npm_tree_free(&t);
    return json_text(o, len);
}

char *plan_package_json_text(const plan_input *in, size_t *len)
{
    npm_tree t;
    npm_tree_build(&t, in->lock);
    if (!t.p.n) {
        npm_tree_free(&t);
        *len = 0;
        return NULL;
    }
    json_object *o = json_object_new_object();
    char *desc = xasprintf("The npm project of envlock lock %s",
                           in->lock_digest ? in->lock_digest : "(no digest)");
    json_object_object_add(o, "name", json_object_new_string(project_name(in)));
    json_object_object_add(o, "description", json_object_new_string(desc));
    json_object_object_add(o, "private", json_object_new_boolean(1));
    json_add_opt(o, "dependencies", npm_root_deps(&t));
    free(desc);
    npm_tree_free(&t);
    return json_text(o, len);
}

/* ---- apt ---- */

static char *export_apt(const plan_input *in, size_t *len)
{
    pkgv debs = plan_pkgs_of(in->lock, "deb", true);
    strbuf sb = STRBUF_INIT, prev = STRBUF_INIT, line = STRBUF_INIT;
    for (size_t i = 0; i < debs.n; i++) {
        sb_reset(&line);
        apt_pin(&line, in->lock, debs.v[i]);
        if (i && strcmp(line.buf, prev.buf) == 0)
            continue; /* the same pin twice is written once */
        sb_addf(&sb, "%s\n", line.buf);
        sb_reset(&prev);
        sb_adds(&prev, line.buf);
    }
    sb_release(&line);
    sb_release(&prev);
    free(debs.v);
    return sb_detach(&sb, len);
}

/* "URI SUITE COMPONENT..." or "URI SUITE/COMPONENT" -> "deb URI SUITE
 * COMPONENT...". A source of any other shape is kept as a comment: apt then
 * finds the packages nowhere and says so, rather than reading a guess. */
/* Every plan installs exact name=version pins whose hashes apt checks
 * against the signed index, so a Release past its Valid-Until cannot make
 * it install anything else; it could only stop a snapshot's plan from
 * building once the snapshot's Release expires. */
#define APT_SOURCE_OPTIONS "[check-valid-until=no]"

/* The deb line of a locked source, its URI through the site's mirrors. */
static char *apt_source_line(const plan_input *in, const char *src)
{
    char *s = xstrdup(src), *save = NULL, *f[16];
    size_t n = 0;
    for (char *w = strtok_r(s, " \t", &save); w && n < 16; w = strtok_r(NULL, " \t", &save))
        f[n++] = w;
    char *uri = n ? plan_mirror_url(in, f[0]) : NULL;
    if (uri)
        f[0] = uri;
    char *slash = n == 2 ? strrchr(f[1], '/') : NULL, *out;
    strbuf sb = STRBUF_INIT;
    if (n >= 3) {
        sb_adds(&sb, "deb " APT_SOURCE_OPTIONS);
        for (size_t i = 0; i < n; i++)
            sb_addf(&sb, " %s", f[i]);
        out = sb_detach(&sb, NULL);
    } else if (slash && slash != f[1] && slash[1]) {
        *slash = '\0';
        out = xasprintf("deb " APT_SOURCE_OPTIONS " %s %s %s", f[0], f[1], slash + 1);
    } else
        out = xasprintf("# not an apt source: %s", src);
    free(uri);
    free(s);
    return out;
}

char *plan_apt_sources_text(const plan_input *in, size_t *len)
{
    pkgv debs = plan_pkgs_of(in->lock, "deb", true);
    *len = 0;
    if (!debs.n) {
        free(debs.v);
        return NULL;
    }
    char **lines = xcalloc(debs.n + 1, sizeof *lines);
    size_t n = 0;
    for (size_t i = 0; i < debs.n; i++)
        if (debs.v[i]->source)
            lines[n++] = apt_source_line(in, debs.v[i]->source);
    qsort(lines, n, sizeof *lines, cmp_strp);
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "# The apt sources of envlock lock %s\n",
            in->lock_digest ? in->lock_digest : "(no digest)");
    for (size_t i = 0; i < n; i++)
        if (!i || strcmp(lines[i - 1], lines[i]) != 0)
            sb_addf(&sb, "%s\n", lines[i]);
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
    free(debs.v);
    return sb_detach(&sb, len);
}

/* ---- the entry point ---- */

char *plan_export(el_ctx *ctx, const plan_input *in, plan_format fmt, size_t *len)
{
    *len = 0;
    switch (fmt) {
    case PLAN_UV_PIP_COMPILE:
        return export_uv(ctx, in, len);
    case PLAN_REQUIREMENTS:
        return export_requirements(ctx, in, len);
    case PLAN_PYLOCK:
        return export_pylock(ctx, in, len);
    case PLAN_PACKAGE_LOCK:
        return export_package_lock(ctx, in, len);
    case PLAN_APT:
        return export_apt(in, len);
    case PLAN_CYCLONEDX:
    case PLAN_SPDX:
        return plan_sbom_text(in, fmt, NULL, len);
    case PLAN_CONDA_EXPLICIT:
    case PLAN_CONDA_LOCK:
        return plan_export_conda(ctx, in, fmt, len);
    }
    el_fail(ctx, EL_INTERNAL, "unknown export format %d", (int)fmt);
    return NULL;
}
