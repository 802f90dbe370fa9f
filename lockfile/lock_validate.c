/* lock_validate.c — every string of a lock against its grammar, offline.
 *
 * Owns the grammar of a lock's values (docs/lock-format.md, "Reading: what
 * is refused"): names, versions, paths, sources, URLs, digests, hashes and
 * file names, each by its ecosystem's rule, and the rule that no free text
 * holds a control character or a line break of any kind. lock_read() checks
 * only the YAML shape (and npm paths); `check` reports a malformed artifact
 * as a line of its report (lock_check.c uses the helpers below); plan,
 * export and bundle call lock_validate() before they write anything, since
 * each copies lock strings into text other tools parse line by line
 * (Dockerfiles, requirements files, apt sources). It never compares the
 * lock with a spec or an index: that is lock_check()'s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>
#include <uriparser/Uri.h>

#include "condaver.h"
#include "debver.h"
#include "lock_internal.h"
#include "npm_spec.h"
#include "pep440.h"
#include "pep508.h"
#include "semver.h"
#include "spdx.h"

/* ---- helpers lock_check.c shares ---- */

const char *lock_file_name_problem(const char *f)
{
    if (!f || !*f)
        return "empty";
    if (f[0] == '.')
        return "starts with `.`";
    for (const unsigned char *p = (const unsigned char *)f; *p; p++) {
        if (*p == '/' || *p == '\\')
            return "is not a plain file name (it has a directory part)";
        if (*p < 0x20 || *p == 0x7f)
            return "has a control character";
    }
    return lock_text_problem(f);
}

/* Canonical padded base64 of exactly `bytes` bytes, not all zero: OpenSSL
 * decodes it, and encoding those bytes again must give `s` back (which
 * refuses other alphabets, missing or extra padding and stray low bits). */
static const char *b64_problem(const char *s, size_t bytes)
{
    size_t len = strlen(s);
    if (len != 4 * ((bytes + 2) / 3) || bytes > 64)
        return "has the wrong length";
    unsigned char raw[66], again[4 * 22 + 1];
    if (EVP_DecodeBlock(raw, (const unsigned char *)s, (int)len) < 0)
        return "is not base64";
    EVP_EncodeBlock(again, raw, (int)bytes);
    if (memcmp(again, s, len) != 0)
        return "is not canonical padded base64";
    for (size_t i = 0; i < bytes; i++)
        if (raw[i])
            return NULL;
    return "is all zeros";
}

/* "sha256:" and 64 lowercase hex; `zero_ok` lets all zeros pass. */
static const char *sha256_problem(const char *h, bool zero_ok)
{
    if (!h || strncmp(h, "sha256:", 7) != 0)
        return "is not sha256:<64 lowercase hex>";
    size_t n = 0;
    bool zero = true;
    for (const char *p = h + 7; *p; p++, n++) {
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return "is not sha256:<64 lowercase hex>";
        zero = zero && *p == '0';
    }
    if (n != 64)
        return "is not sha256:<64 lowercase hex>";
    return zero && !zero_ok ? "is all zeros" : NULL;
}

const char *lock_hash_problem(const char *eco, const char *h)
{
    if (!h || !*h)
        return "is empty";
    if (eco && strcmp(eco, "npm") == 0) {
        if (strncmp(h, "sha512-", 7) == 0)
            return b64_problem(h + 7, 64);
        if (strncmp(h, "sha1-", 5) == 0)
            return b64_problem(h + 5, 20);
        return "is not an npm integrity (sha512-<base64> or sha1-<base64>)";
    }
    return sha256_problem(h, false);
}

const char *lock_npm_path_problem(const char *path)
{
    const char *p = path;
    if (strncmp(p, "node_modules/", 13) != 0)
        return "is not a node_modules path";
    while (strncmp(p, "node_modules/", 13) == 0) {
        p += 13;
        size_t n = strcspn(p, "/");
        if (*p == '@' && p[n] == '/') /* @scope/name is one folder */
            n += 1 + strcspn(p + n + 1, "/");
        char *folder = xstrndup(p, n);
        int bad = npm_name_check(folder, NPM_NAME_LEGACY, NULL);
        free(folder);
        if (bad)
            return "names a folder that is not an npm package name (`.`, `..`, an empty or "
                   "unsafe segment)";
        p += n;
        if (!*p)
            return NULL;
        p++;
    }
    return "is not node_modules/<name>[/node_modules/<name>...]";
}

const char *lock_path_segment_problem(const char *path)
{
    for (const char *p = path;; p++) {
        size_t n = strcspn(p, "/\\");
        if (p[n] == '\\')
            return "has a backslash";
        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return "has an empty, `.` or `..` segment, which no installer puts a package under";
        p += n;
        if (!*p)
            return NULL;
    }
}

const char *lock_license_problem(const char *s)
{
    if (strlen(s) > LOCK_LICENSE_MAX)
        return "is longer than 1024 bytes";
    if (!*s || s[0] == ' ' || s[strlen(s) - 1] == ' ' || strstr(s, "  "))
        return "is empty, or its tokens are not separated by single spaces";
    const char *why = lock_text_problem(s);
    if (why)
        return why;
    if (spdx_expr_valid(s))
        return NULL;
    char id[8];
    return spdx_expr_unlisted(s, id, sizeof id)
               ? "is not an SPDX license expression (an identifier is not on the SPDX "
                 "License List)"
               : "is not an SPDX license expression";
}

/* Control characters (C0, DEL, C1), the Unicode line and paragraph
 * separators, and bytes that are not UTF-8: what no lock string holds,
 * since each could end a line or steer a terminal where it is copied. */
const char *lock_text_problem(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s), i = 0;
    while (i < n) {
        unsigned cp;
        if (!utf8_next(u, n, &i, &cp))
            return "is not UTF-8";
        if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
            return "has a control character";
        if (cp == 0x2028 || cp == 0x2029)
            return "has a Unicode line or paragraph separator";
    }
    return NULL;
}

/* An http, https or file URL as uriparser reads it (RFC 3986), with a host
 * for http(s), no userinfo, query or fragment. */
const char *lock_url_problem(const char *u)
{
    UriUriA uri;
    const char *err = NULL;
    if (!u || !*u || uriParseSingleUriA(&uri, u, &err) != URI_SUCCESS)
        return "is not a URL (RFC 3986)";
    const char *why = NULL;
    size_t scheme = (size_t)(uri.scheme.afterLast - uri.scheme.first);
    bool http = uri.scheme.first && ((scheme == 4 && strncasecmp(uri.scheme.first, "http", 4) == 0) ||
                                     (scheme == 5 && strncasecmp(uri.scheme.first, "https", 5) == 0));
    bool file = uri.scheme.first && scheme == 4 && strncasecmp(uri.scheme.first, "file", 4) == 0;
    if (!http && !file)
        why = "is not an https, http or file URL";
    else if (uri.userInfo.first)
        why = "carries credentials (user:password@); give them to the installers by netrc or "
              "build secrets";
    else if (http && uri.hostText.first == uri.hostText.afterLast)
        why = "has no host";
    else if (uri.query.first || uri.fragment.first)
        why = "has a query or fragment";
    uriFreeUriMembersA(&uri);
    return why;
}

/* ---- the grammar of each field ---- */

static bool all_of(const char *s, const char *set)
{
    return *s && strspn(s, set) == strlen(s);
}

#define LOWER_DIGITS "abcdefghijklmnopqrstuvwxyz0123456789"
#define ALNUM LOWER_DIGITS "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
/* A printable ASCII word: no space, no control byte. */
#define WORD ALNUM "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

const char *lock_name_problem(const char *eco, const char *name)
{
    if (strcmp(eco, "pypi") == 0) {
        if (!pypi_name_valid(name))
            return "is not a PEP 508 name";
        char *c = pypi_name_canonical(name);
        bool same = strcmp(c, name) == 0;
        free(c);
        return same ? NULL : "is not a PEP 503 canonical name";
    }
    if (strcmp(eco, "npm") == 0)
        return npm_name_check(name, NPM_NAME_LEGACY, NULL) ? "is not an npm package name" : NULL;
    if (strcmp(eco, "deb") == 0)
        return deb_name_valid(name, strlen(name)) ? NULL : "is not a Debian package name";
    if (strcmp(eco, "conda") == 0) /* CEP 26, as the repodata reader admits names */
        return all_of(name, LOWER_DIGITS "_.-") && name[0] != '.' && name[0] != '-'
                   ? NULL
                   : "is not a conda package name";
    return "belongs to no known ecosystem";
}

const char *lock_version_problem(const char *eco, const char *v)
{
    if (!all_of(v, WORD))
        return "is not a version (empty, or a space or control character)";
    if (strcmp(eco, "pypi") == 0) {
        pypi_version *pv = pypi_version_parse(v, NULL);
        pypi_version_free(pv);
        return pv ? NULL : "is not a PEP 440 version";
    }
    if (strcmp(eco, "npm") == 0) {
        npm_semver sv;
        if (!(v[0] >= '0' && v[0] <= '9') || npm_semver_parse(&sv, v, 0, NULL) != 0)
            return "is not a semver version";
        npm_semver_release(&sv);
        return NULL;
    }
    if (strcmp(eco, "deb") == 0)
        return deb_version_valid(v) ? NULL : "is not a Debian version";
    if (strcmp(eco, "conda") == 0) {
        conda_version *cv = conda_version_parse(v, strlen(v), NULL);
        conda_version_free(cv);
        return cv ? NULL : "is not a conda version";
    }
    return "belongs to no known ecosystem";
}

/* A deb source: "URI SUITE/COMPONENT", "URI SUITE" or "URI SUITE COMPONENT...",
 * single spaces, the words of apt's suite and component names. */
static const char *deb_source_problem(const char *s)
{
    size_t n = strcspn(s, " ");
    char *uri = xstrndup(s, n);
    const char *why = lock_url_problem(uri);
    free(uri);
    if (why)
        return why;
    if (!s[n])
        return "names no suite (URI SUITE[/COMPONENT])";
    for (const char *w = s + n + 1; ; ) {
        size_t k = strcspn(w, " ");
        char *word = xstrndup(w, k);
        bool ok = all_of(word, ALNUM "._+~/-");
        free(word);
        if (!ok)
            return "is not an apt source (URI SUITE[/COMPONENT]: a suite or component word "
                   "holds other than letters, digits and ._+~/-)";
        if (!w[k])
            return NULL;
        w += k + 1;
    }
}

const char *lock_source_problem(const char *eco, const char *src)
{
    return strcmp(eco, "deb") == 0 ? deb_source_problem(src) : lock_url_problem(src);
}

/* ---- lock_validate() ---- */

typedef struct vd {
    el_ctx *ctx;
    bool failed;
} vd;

/* The value as a message can show it: non-printable bytes as \xNN. */
static void show_value(strbuf *sb, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p >= 0x7f || *p == '\\')
            sb_addf(sb, "\\x%02x", *p);
        else
            sb_addc(sb, (char)*p);
    }
}

/* Records the first problem; true when `why` is one. */
static bool bad(vd *v, const char *field, unsigned line, const char *value, const char *why)
{
    if (!why || v->failed)
        return why != NULL;
    v->failed = true;
    strbuf sb = STRBUF_INIT;
    show_value(&sb, value ? value : "");
    char at[32] = "";
    if (line)
        snprintf(at, sizeof at, " (line %u)", line);
    el_fail(v->ctx, EL_SPEC_INVALID, "invalid lock: %s%s: `%s` %s", field, at, sb.buf, why);
    el_detail_str(v->ctx, "reason", "invalid_lock");
    el_detail_str(v->ctx, "field", field);
    if (line)
        el_detail_int(v->ctx, "line", line);
    sb_release(&sb);
    return true;
}

static const char *word_problem(const char *s, const char *set, const char *what)
{
    return all_of(s, set) ? NULL : what;
}

static bool known_eco(const char *e)
{
    return e && (!strcmp(e, "pypi") || !strcmp(e, "npm") || !strcmp(e, "deb") ||
                 !strcmp(e, "conda"));
}

static void target_fields(vd *v, const char *pre, unsigned ln, const char *py, const char *plat,
                          const char *arch, const char *image)
{
    char f[64];
#define F(k) (snprintf(f, sizeof f, "%s%s", pre, k), f)
    if (py)
        bad(v, F("python"), ln, py, word_problem(py, "0123456789.", "is not a Python version X.Y.Z"));
    if (plat)
        bad(v, F("platform"), ln, plat, word_problem(plat, ALNUM "_.", "is not a platform tag"));
    if (arch)
        bad(v, F("arch"), ln, arch, word_problem(arch, LOWER_DIGITS "-", "is not an architecture"));
    if (image)
        bad(v, F("image"), ln, image, word_problem(image, ALNUM "._/:@+-", "is not an image reference"));
#undef F
}

static void validate_target(vd *v, const lock_doc *d)
{
    unsigned ln = d->line_target;
    target_fields(v, "target.", ln, d->python_version, d->platform, d->arch, d->image);
    for (size_t i = 0; i < d->n_targets; i++) {
        char pre[48];
        snprintf(pre, sizeof pre, "target.targets[%zu].", i);
        const lock_target *t = &d->targets[i];
        target_fields(v, pre, ln, t->python_version, t->platform, t->arch, t->image);
        for (size_t k = 0; t->variants && t->variants[k]; k++)
            bad(v, pre, ln, t->variants[k], word_problem(t->variants[k], LOWER_DIGITS "-", "is not a variant name"));
    }
    const char *ref_set = ALNUM "._/:@+-";
    if (d->base_ref)
        bad(v, "target.base.ref", ln, d->base_ref, word_problem(d->base_ref, ref_set, "is not an image reference"));
    if (d->base_channel)
        bad(v, "target.base.channel", ln, d->base_channel, word_problem(d->base_channel, ref_set, "is not a channel name"));
    for (size_t i = 0; d->variants && d->variants[i]; i++) {
        unsigned dl = d->base_digest_lines ? d->base_digest_lines[i] : ln;
        char f[96];
        snprintf(f, sizeof f, "target.base.digests.%.40s", d->variants[i]);
        if (bad(v, "target.base.digests", dl, d->variants[i],
                word_problem(d->variants[i], LOWER_DIGITS "-", "is not a variant name")))
            return;
        if (d->base_digests && d->base_digests[i])
            bad(v, f, dl, d->base_digests[i], sha256_problem(d->base_digests[i], true));
    }
}

static void validate_options(vd *v, const lock_doc *d)
{
    int64_t ms;
    if (d->exclude_newer && !rfc3339_parse(d->exclude_newer, RFC3339_DATE_OK, &ms))
        bad(v, "options.excludeNewer", 0, d->exclude_newer, "is not an RFC 3339 time");
    if (d->prereleases)
        bad(v, "options.prereleases", 0, d->prereleases, word_problem(d->prereleases, LOWER_DIGITS "-", "is not a pre-release mode"));
    const char **lists[] = { d->only_binary, d->no_binary, d->upgrade };
    static const char *const names[] = { "options.onlyBinary", "options.noBinary", "options.upgradePackages" };
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; lists[k] && lists[k][i]; i++)
            if (strcmp(lists[k][i], ":all:") != 0)
                bad(v, names[k], 0, lists[k][i], lock_name_problem("pypi", lists[k][i]));
}

static void validate_inputs(vd *v, const lock_doc *d)
{
    for (size_t i = 0; i < d->n_inputs && !v->failed; i++) {
        const lock_input *in = &d->inputs[i];
        char f[64];
        snprintf(f, sizeof f, "inputs[%zu]", i);
        if (!known_eco(in->ecosystem))
            bad(v, f, in->line, in->ecosystem, "is not an ecosystem (conda, deb, npm, pypi)");
        bad(v, f, in->line, in->url, lock_url_problem(in->url));
        bad(v, f, in->line, in->identity, in->identity ? lock_text_problem(in->identity) : NULL);
        bad(v, f, in->line, in->modified, in->modified ? lock_text_problem(in->modified) : NULL);
    }
}

/* "spec", "protected" or "<ecosystem>:<name>@<version>". */
static const char *requested_by_problem(const char *r)
{
    if (!strcmp(r, "spec") || !strcmp(r, "protected"))
        return NULL;
    const char *colon = strchr(r, ':');
    if (!colon || !all_of(colon + 1, WORD) || !strchr(colon + 1, '@'))
        return "is not spec, protected or <ecosystem>:<name>@<version>";
    char *eco = xstrndup(r, (size_t)(colon - r));
    bool ok = known_eco(eco);
    free(eco);
    return ok ? NULL : "names no known ecosystem";
}

static void validate_edge(vd *v, const lock_package *p, size_t i, size_t j)
{
    const lock_edge *e = &p->deps[j];
    const char *eco = e->ecosystem ? e->ecosystem : p->ecosystem;
    char f[80];
    snprintf(f, sizeof f, "packages[%zu].dependencies[%zu]", i, j);
    if (!known_eco(eco) && bad(v, f, e->line, eco, "is not an ecosystem (conda, deb, npm, pypi)"))
        return;
    bad(v, f, e->line, e->name, lock_name_problem(eco, e->name ? e->name : ""));
    bad(v, f, e->line, e->version, lock_version_problem(eco, e->version ? e->version : ""));
    if (e->kind)
        bad(v, f, e->line, e->kind, word_problem(e->kind, LOWER_DIGITS "-", "is not a dependency kind"));
    if (e->spec)
        bad(v, f, e->line, e->spec, lock_text_problem(e->spec));
    if (e->alias)
        bad(v, f, e->line, e->alias, lock_name_problem("npm", e->alias));
}

static void validate_artifact(vd *v, const lock_package *p, size_t i, size_t j)
{
    const lock_artifact *a = &p->artifacts[j];
    char f[80];
    snprintf(f, sizeof f, "packages[%zu].artifacts[%zu].file", i, j);
    bad(v, f, a->line_file ? a->line_file : a->line, a->file, lock_file_name_problem(a->file));
    snprintf(f, sizeof f, "packages[%zu].artifacts[%zu].hash", i, j);
    bad(v, f, a->line_hash ? a->line_hash : a->line, a->hash, lock_hash_problem(p->ecosystem, a->hash));
    snprintf(f, sizeof f, "packages[%zu].artifacts[%zu].url", i, j);
    if (a->url)
        bad(v, f, a->line_url ? a->line_url : a->line, a->url, lock_url_problem(a->url));
    snprintf(f, sizeof f, "packages[%zu].artifacts[%zu].md5", i, j);
    if (a->md5)
        bad(v, f, a->line, a->md5,
            strcmp(p->ecosystem, "conda") ? "is only for conda packages"
            : strlen(a->md5) == 32 && all_of(a->md5, "0123456789abcdef")
                ? NULL
                : "is not 32 lowercase hex");
}

static void validate_package(vd *v, const lock_package *p, size_t i)
{
    char f[64];
#define F(k) (snprintf(f, sizeof f, "packages[%zu].%s", i, k), f)
    if (bad(v, F("ecosystem"), p->line, p->ecosystem,
            known_eco(p->ecosystem) ? NULL : "is not an ecosystem (conda, deb, npm, pypi)"))
        return;
    const char *eco = p->ecosystem;
    bad(v, F("name"), p->line, p->name, lock_name_problem(eco, p->name ? p->name : ""));
    bad(v, F("version"), p->line, p->version, lock_version_problem(eco, p->version ? p->version : ""));
    if (p->arch)
        bad(v, F("arch"), p->line, p->arch, word_problem(p->arch, LOWER_DIGITS "-", "is not an architecture"));
    if (p->src_name)
        bad(v, F("sourcePackage"), p->line, p->src_name,
            strcmp(eco, "deb") ? "is only for deb packages" : lock_name_problem("deb", p->src_name));
    if (p->src_version)
        bad(v, F("sourceVersion"), p->line, p->src_version,
            strcmp(eco, "deb") ? "is only for deb packages"
                               : lock_version_problem("deb", p->src_version));
    if (p->build)
        bad(v, F("build"), p->line, p->build,
            strcmp(eco, "conda") ? "is only for conda packages"
                                 : word_problem(p->build, ALNUM "_.+", "is not a conda build string"));
    if (p->build_number && strcmp(eco, "conda") != 0)
        bad(v, F("buildNumber"), p->line, "", "is only for conda packages");
    if (strcmp(eco, "conda") == 0 && (!p->build || !p->subdir))
        bad(v, F(p->build ? "subdir" : "build"), p->line, "", "is required for a conda package");
    if (p->subdir)
        bad(v, F("subdir"), p->line, p->subdir,
            strcmp(eco, "conda") ? "is only for conda packages"
                                 : word_problem(p->subdir, LOWER_DIGITS "-", "is not a conda subdir"));
    if (p->path)
        bad(v, F("path"), p->line, p->path, strcmp(eco, "npm") ? "is only for npm packages"
                                                               : lock_npm_path_problem(p->path));
    if (p->source)
        bad(v, F("source"), p->line_source ? p->line_source : p->line, p->source,
            lock_source_problem(eco, p->source));
    if (p->license)
        bad(v, F("license"), p->line, p->license, lock_license_problem(p->license));
    if (p->in_bundle)
        bad(v, F("inBundle"), p->line, "true",
            strcmp(eco, "npm") || !p->path ? "is only for npm packages with a path"
            : p->n_artifacts || p->source  ? "is for a package its bundler's tarball ships: no "
                                             "source or artifacts of its own"
                                           : NULL);
    if (p->has_pypi_names && strcmp(eco, "conda") != 0)
        bad(v, F("pypiNames"), p->line, "", "is only for conda packages");
    for (size_t k = 0; p->pypi_names && p->pypi_names[k]; k++)
        bad(v, F("pypiNames"), p->line, p->pypi_names[k],
            lock_name_problem("pypi", p->pypi_names[k]));
    for (size_t k = 0; p->extras && p->extras[k]; k++)
        bad(v, F("extras"), p->line, p->extras[k], lock_name_problem("pypi", p->extras[k]));
    for (size_t k = 0; p->requested_by && p->requested_by[k]; k++)
        bad(v, F("requestedBy"), p->line, p->requested_by[k], requested_by_problem(p->requested_by[k]));
#undef F
    for (size_t j = 0; j < p->n_deps && !v->failed; j++)
        validate_edge(v, p, i, j);
    for (size_t j = 0; j < p->n_artifacts && !v->failed; j++)
        validate_artifact(v, p, i, j);
}

el_code lock_validate(el_ctx *ctx, const lock_doc *d)
{
    vd v = { .ctx = ctx };
    bad(&v, "specDigest", 0, d->spec_digest, sha256_problem(d->spec_digest, true));
    validate_target(&v, d);
    validate_options(&v, d);
    if (d->dep_format) {
        bad(&v, "dependencyFile.format", d->line_dep, d->dep_format,
            strcmp(d->dep_format, "pyproject") ? "is not `pyproject`" : NULL);
        bad(&v, "dependencyFile.content", d->line_dep, d->dep_content,
            sha256_problem(d->dep_content, false));
        bad(&v, "dependencyFile.lockContent", d->line_dep, d->dep_lock,
            sha256_problem(d->dep_lock, false));
    }
    validate_inputs(&v, d);
    for (size_t i = 0; i < d->n_packages && !v.failed; i++)
        validate_package(&v, &d->packages[i], i);
    return v.failed ? el_ctx_code(ctx) : EL_OK;
}
