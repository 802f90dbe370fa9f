/* plan_sbom.c — the lock as a software bill of materials: CycloneDX 1.6
 * JSON and SPDX 2.3 JSON (docs/plans.md, "Exports"), for `export --format
 * cyclonedx|spdx`, and per variant for plan's sbom.cdx.json (only what
 * that variant installs, the image its plan builds FROM as the root).
 *
 * Every value comes from the lock: each package with its package URL
 * (purl, docs/plans.md gives the rules), its artifacts' hashes, the edges
 * the lock resolved, and the base image by digest as the root (for a
 * variant, the image plan_variant_from() names, which is the one its FROM
 * line names: E2B's for e2b, a spec's own image, else the base; by digest
 * when pinned, else by tag). Nothing
 * comes from the clock or the machine: the serial number and document
 * namespace are name-based UUIDs of the lock digest (and variant), the
 * time is the lock's own (excludeNewer, else its apt snapshot), and
 * components, hashes and edges are in byte order. A package's license is
 * the one the lock records, as its index declared it (CycloneDX: one
 * `expression`, acknowledged as declared; SPDX: licenseDeclared); a
 * package without one claims none (SPDX: NOASSERTION), and no license is
 * ever concluded. The JSON is json-c's,
 * so no lock string can break out of its value. Nothing here reads or
 * writes a file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "plan.h"
#include "plan_internal.h"

/* RFC 9562's namespace for names that are URLs/URIs: ours are URNs. */
#define NS_URL "6ba7b811-9dad-11d1-80b4-00c04fd430c8"

/* ---- package URLs ---- */

/* purl's percent-encoding (purl-spec "Character encoding"): letters,
 * digits, `.-_~` and `:` stay, every other byte is %XX; lower folds ASCII
 * letters first, for the components the type makes case-insensitive. */
static void purl_enc(strbuf *sb, const char *s, bool lower)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (lower && c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            strchr(".-_~:", c))
            sb_addc(sb, (char)c);
        else
            sb_addf(sb, "%%%02X", c);
    }
}

/* The pypi type's name rule: runs of `-`, `_` and `.` are one `-`,
 * lowercased (the PEP 503 normal form). */
static void pypi_name(strbuf *sb, const char *s)
{
    strbuf n;
    sb_init(&n);
    for (; *s; s++) {
        if (strchr("-_.", *s)) {
            if (n.len == 0 || n.buf[n.len - 1] != '-')
                sb_addc(&n, '-');
        } else {
            sb_addc(&n, *s);
        }
    }
    purl_enc(sb, n.buf, true);
    sb_release(&n);
}

/* Debian's release number of a suite's codename ("bookworm-security" ->
 * "debian-12"), else the codename itself (the deb type takes a name,
 * codename or suite as distro). */
static void deb_distro(strbuf *sb, const char *source)
{
    static const char *const names[][2] = {
        { "buster", "10" }, { "bullseye", "11" }, { "bookworm", "12" },
        { "trixie", "13" }, { "forky", "14" },
    };
    const char *sp = strchr(source, ' ');
    if (!sp)
        return;
    size_t n = strcspn(sp + 1, "-/ ");
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strlen(names[i][0]) == n && strncmp(sp + 1, names[i][0], n) == 0) {
            sb_addf(sb, "debian-%s", names[i][1]);
            return;
        }
    strbuf code;
    sb_init(&code);
    sb_addf(&code, "%.*s", (int)n, sp + 1);
    purl_enc(sb, code.buf, true);
    sb_release(&code);
}

/* The conda type's qualifiers, in key order (purl-spec: build, channel,
 * subdir, type): the channel by its name when it is one of anaconda.org's
 * (`conda-forge`), else its URL; the type from the file's extension. */
static void conda_qualifiers(strbuf *sb, const lock_package *p)
{
    static const char ORG[] = "https://conda.anaconda.org/";
    const char *file = p->n_artifacts ? p->artifacts[0].file : NULL;
    size_t fl = file ? strlen(file) : 0;
    char sep = '?';
    if (p->build) {
        sb_addf(sb, "%cbuild=", sep);
        purl_enc(sb, p->build, false);
        sep = '&';
    }
    if (p->source) {
        bool org = strncmp(p->source, ORG, sizeof ORG - 1) == 0 &&
                   !strchr(p->source + sizeof ORG - 1, '/');
        sb_addf(sb, "%cchannel=", sep);
        purl_enc(sb, org ? p->source + sizeof ORG - 1 : p->source, false);
        sep = '&';
    }
    if (p->subdir) {
        sb_addf(sb, "%csubdir=", sep);
        purl_enc(sb, p->subdir, false);
        sep = '&';
    }
    if (fl > 6 && strcmp(file + fl - 6, ".conda") == 0)
        sb_addf(sb, "%ctype=conda", sep);
    else if (fl > 8 && strcmp(file + fl - 8, ".tar.bz2") == 0)
        sb_addf(sb, "%ctype=tar.bz2", sep);
}

char *plan_purl(const lock_package *p, const char *deb_source)
{
    strbuf sb;
    sb_init(&sb);
    if (strcmp(p->ecosystem, "conda") == 0) {
        sb_adds(&sb, "pkg:conda/");
        purl_enc(&sb, p->name, true);
        sb_addc(&sb, '@');
        purl_enc(&sb, p->version, false);
        conda_qualifiers(&sb, p);
        size_t len;
        return sb_detach(&sb, &len);
    }
    if (strcmp(p->ecosystem, "pypi") == 0) {
        sb_adds(&sb, "pkg:pypi/");
        pypi_name(&sb, p->name);
    } else if (strcmp(p->ecosystem, "npm") == 0) {
        sb_adds(&sb, "pkg:npm/");
        const char *slash = p->name[0] == '@' ? strchr(p->name, '/') : NULL;
        if (slash) {
            strbuf scope;
            sb_init(&scope);
            sb_addf(&scope, "%.*s", (int)(slash - p->name), p->name);
            purl_enc(&sb, scope.buf, true);
            sb_release(&scope);
            sb_addc(&sb, '/');
        }
        purl_enc(&sb, slash ? slash + 1 : p->name, true);
    } else {
        sb_adds(&sb, "pkg:deb/debian/");
        purl_enc(&sb, p->name, true);
    }
    sb_addc(&sb, '@');
    purl_enc(&sb, p->version, false);
    if (strcmp(p->ecosystem, "deb") == 0) {
        const char *src = p->source ? p->source : deb_source;
        size_t mark = sb.len;
        if (p->arch) {
            sb_adds(&sb, "?arch=");
            purl_enc(&sb, p->arch, true);
        }
        if (src) {
            sb_adds(&sb, sb.len == mark ? "?distro=" : "&distro=");
            deb_distro(&sb, src);
        }
    }
    size_t len;
    return sb_detach(&sb, &len);
}

/* ---- what goes in ---- */

typedef struct sbom_pkg {
    const lock_package *p;
    char *ref;       /* bom-ref: unique within the document */
    char *spdxid;    /* "SPDXRef-Package-<16 hex of sha256(ref)>" */
    char *purl;
} sbom_pkg;

typedef struct sbom {
    const plan_input *in;
    const char *variant;      /* NULL: the whole lock */
    sbom_pkg *v;
    size_t n;
    const char *deb_source;   /* the first deb source, for debs in the base */
    plan_image img;           /* a variant's FROM image (zeroed without a variant) */
    const char *root_name;    /* the root image's repository */
    const char *root_digest;  /* its digest, or NULL */
    const char *root_version; /* the digest, else the tag, else the base channel, or NULL */
    char *root_ref;
    char time[32];            /* "YYYY-MM-DDTHH:MM:SSZ", or "" when the lock has none */
} sbom;

static int cmp_sbom_pkg(const void *x, const void *y)
{
    return strcmp(((const sbom_pkg *)x)->ref, ((const sbom_pkg *)y)->ref);
}

static char *pkg_ref(const lock_package *p)
{
    const char *tail = p->path ? p->path : p->arch;
    return xasprintf("%s:%s@%s%s%s", p->ecosystem, p->name, p->version, tail ? "#" : "",
                     tail ? tail : "");
}

static char *spdx_id(const char *kind, const char *ref)
{
    char hex[65];
    sha256_hex(ref, strlen(ref), hex);
    return xasprintf("SPDXRef-%s-%.16s", kind, hex);
}

/* The snapshot time in a deb source's URI ("…/20260914T150000Z/ …"), the
 * newest of the lock's, as RFC 3339; false when none has one. */
static bool deb_snapshot(const lock_doc *d, char out[32])
{
    char best[17] = "";
    for (size_t i = 0; i < d->n_packages; i++) {
        const char *s = d->packages[i].source;
        if (strcmp(d->packages[i].ecosystem, "deb") != 0 || !s)
            continue;
        for (const char *q = strchr(s, '/'); q; q = strchr(q + 1, '/')) {
            if (strspn(q + 1, "0123456789") == 8 && q[9] == 'T' &&
                strspn(q + 10, "0123456789") == 6 && q[16] == 'Z' && q[17] == '/' &&
                strncmp(q + 1, best, 16) > 0)
                memcpy(best, q + 1, 16);
        }
    }
    if (!best[0])
        return false;
    snprintf(out, 32, "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", best, best + 4, best + 6, best + 9,
             best + 11, best + 13);
    return true;
}

/* The lock's own time: excludeNewer, else the catalog's apt snapshot,
 * else the newest snapshot in its deb sources, else none. */
static void sbom_time(const plan_input *in, char out[32])
{
    int64_t ms = 0;
    out[0] = '\0';
    const char *ap = in->apt_snapshot;
    if (in->lock->exclude_newer && rfc3339_parse(in->lock->exclude_newer, RFC3339_DATE_OK, &ms))
        utc_format(ms / 1000 - (ms % 1000 < 0), "Z", out);
    else if (ap && strlen(ap) == 16 && ap[8] == 'T' && ap[15] == 'Z')
        snprintf(out, 32, "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", ap, ap + 4, ap + 6, ap + 9, ap + 11,
                 ap + 13);
    else if (!deb_snapshot(in->lock, out))
        out[0] = '\0';
}

static void sbom_init(sbom *s, const plan_input *in, const char *variant)
{
    const lock_doc *d = in->lock;
    memset(s, 0, sizeof *s);
    s->in = in;
    s->variant = variant;
    s->v = xcalloc(d->n_packages + 1, sizeof *s->v);
    if (variant)
        plan_variant_from(in, variant, &s->img);
    for (size_t i = 0; i < d->n_packages; i++)
        if (!s->deb_source && strcmp(d->packages[i].ecosystem, "deb") == 0)
            s->deb_source = d->packages[i].source;
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        if (variant && !plan_image_installs(&s->img, p))
            continue;
        s->v[s->n++] = (sbom_pkg){ .p = p, .ref = pkg_ref(p) };
    }
    qsort(s->v, s->n, sizeof *s->v, cmp_sbom_pkg);
    size_t k = 0;   /* a lock names each package once; a repeat adds nothing */
    for (size_t i = 0; i < s->n; i++) {
        if (k && strcmp(s->v[k - 1].ref, s->v[i].ref) == 0) {
            free(s->v[i].ref);
            continue;
        }
        s->v[k] = s->v[i];
        s->v[k].spdxid = spdx_id("Package", s->v[k].ref);
        s->v[k].purl = plan_purl(s->v[k].p, s->deb_source);
        k++;
    }
    s->n = k;
    s->root_name = variant ? s->img.name : d->base_ref ? d->base_ref : "base";
    s->root_digest = variant ? s->img.digest : plan_lock_base_digest(d);
    s->root_version = s->root_digest ? s->root_digest
                      : s->img.tag ? s->img.tag
                      : !variant || s->img.kind == PLAN_FROM_BASE ? d->base_channel : NULL;
    s->root_ref = xasprintf("image:%s", s->root_name);
    sbom_time(in, s->time);
}

static void sbom_release(sbom *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].ref);
        free(s->v[i].spdxid);
        free(s->v[i].purl);
    }
    free(s->v);
    free(s->root_ref);
    plan_image_release(&s->img);
}

static const sbom_pkg *find_ref(const sbom *s, const char *ref)
{
    sbom_pkg key = { .ref = (char *)ref };
    return s->n ? bsearch(&key, s->v, s->n, sizeof *s->v, cmp_sbom_pkg) : NULL;
}

/* The npm package an edge of `from` binds, as node finds it: the nearest
 * node_modules up from `from`'s folder holding the edge's folder name
 * (its alias when it has one). */
static const sbom_pkg *npm_target(const sbom *s, const lock_package *from, const lock_edge *e)
{
    const char *folder = e->alias ? e->alias : e->name;
    size_t len = strlen(from->path);
    for (;;) {
        char *ref = xasprintf("npm:%s@%s#%.*s%snode_modules/%s", e->name, e->version, (int)len,
                              from->path, len ? "/" : "", folder);
        const sbom_pkg *hit = find_ref(s, ref);
        free(ref);
        if (hit || !len)
            return hit;
        size_t cut = 0;  /* drop the last "node_modules/<folder>" of the path */
        for (size_t q = 0; q + 13 <= len; q++)
            if (strncmp(from->path + q, "node_modules/", 13) == 0 &&
                (q == 0 || from->path[q - 1] == '/'))
                cut = q;
        len = cut ? cut - 1 : 0;
    }
}

/* The package an edge of `from` binds: npm as node finds it, pypi by name
 * and version, deb by name and version in `from`'s arch, else any. */
static const sbom_pkg *edge_target(const sbom *s, const lock_package *from, const lock_edge *e)
{
    if (strcmp(e->ecosystem, "npm") == 0)
        return from->path ? npm_target(s, from, e) : NULL;
    if (strcmp(e->ecosystem, "deb") != 0) {
        char *ref = xasprintf("%s:%s@%s", e->ecosystem, e->name, e->version);
        const sbom_pkg *hit = find_ref(s, ref);
        free(ref);
        return hit;
    }
    const sbom_pkg *any = NULL;
    for (size_t i = 0; i < s->n; i++) {
        const lock_package *p = s->v[i].p;
        if (strcmp(p->ecosystem, "deb") != 0 || strcmp(p->name, e->name) != 0 ||
            strcmp(p->version, e->version) != 0)
            continue;
        if (from->arch && p->arch && strcmp(from->arch, p->arch) == 0)
            return &s->v[i];
        if (!any)
            any = &s->v[i];
    }
    return any;
}

/* The refs `sp`'s edges bind, sorted, each once; *n their count. */
static const char **deps_of(const sbom *s, const sbom_pkg *sp, size_t *n)
{
    const char **v = xcalloc(sp->p->n_deps + 1, sizeof *v);
    *n = 0;
    for (size_t i = 0; i < sp->p->n_deps; i++) {
        const sbom_pkg *t = edge_target(s, sp->p, &sp->p->deps[i]);
        if (t)
            v[(*n)++] = t->ref;
    }
    *n = plan_sort_unique(v, *n);
    return v;
}

/* A spec root or a base pin: what the root component depends on. */
static bool is_root(const lock_package *p)
{
    for (const char **r = p->requested_by; r && *r; r++)
        if (strcmp(*r, "spec") == 0 || strcmp(*r, "protected") == 0)
            return true;
    return false;
}

/* ---- hashes ---- */

typedef struct sbom_hash {
    const char *alg;     /* CycloneDX's name: "SHA-256" ... */
    char hex[129];
} sbom_hash;

/* One lock hash ("sha256:<hex>" or an integrity value's first
 * "sha512-<base64>") as an algorithm and hex; false for another form. */
static bool hash_of(const char *h, sbom_hash *out)
{
    static const struct { const char *sri, *alg; size_t n; } sri[] = {
        { "sha512-", "SHA-512", 64 }, { "sha384-", "SHA-384", 48 },
        { "sha256-", "SHA-256", 32 }, { "sha1-", "SHA-1", 20 },
    };
    if (strncmp(h, "sha256:", 7) == 0 && strlen(h + 7) == 64 &&
        strspn(h + 7, "0123456789abcdef") == 64) {
        out->alg = "SHA-256";
        memcpy(out->hex, h + 7, 65);
        return true;
    }
    for (size_t i = 0; i < sizeof sri / sizeof *sri; i++) {
        size_t pl = strlen(sri[i].sri), n = 0;
        unsigned char raw[96];
        char b64[100];
        if (strncmp(h, sri[i].sri, pl) != 0 || strcspn(h + pl, " ") >= sizeof b64)
            continue;
        snprintf(b64, sizeof b64, "%.*s", (int)strcspn(h + pl, " "), h + pl);
        if (!base64_decode(b64, raw, sizeof raw, &n) || n != sri[i].n)
            return false;
        out->alg = sri[i].alg;
        hex_encode(raw, n, out->hex);
        return true;
    }
    return false;
}

static int cmp_hash(const void *x, const void *y)
{
    const sbom_hash *a = x, *b = y;
    int c = strcmp(a->alg, b->alg);
    return c ? c : strcmp(a->hex, b->hex);
}

/* Every artifact's hash, sorted by algorithm then value, each once. */
static size_t hashes_of(const lock_package *p, sbom_hash **out)
{
    sbom_hash *v = xcalloc(p->n_artifacts + 1, sizeof *v);
    size_t n = 0, k = 0;
    for (size_t i = 0; i < p->n_artifacts; i++)
        if (p->artifacts[i].hash && hash_of(p->artifacts[i].hash, &v[n]))
            n++;
    if (n)
        qsort(v, n, sizeof *v, cmp_hash);
    for (size_t i = 0; i < n; i++)
        if (!k || cmp_hash(&v[k - 1], &v[i]) != 0)
            v[k++] = v[i];
    *out = v;
    return k;
}

/* ---- CycloneDX 1.6 ---- */

static void jadd(json_object *o, const char *key, const char *value)
{
    json_object_object_add(o, key, json_object_new_string(value));
}

/* The hashes of `p` as a JSON array of { alg_key: algorithm, value_key:
 * hex }, the CycloneDX algorithm names mapped by `alg` (NULL: as they are);
 * NULL when it has none. */
static json_object *hash_array(const lock_package *p, const char *alg_key, const char *value_key,
                               const char *(*alg)(const char *cdx_alg))
{
    sbom_hash *h;
    size_t n = hashes_of(p, &h);
    json_object *a = n ? json_object_new_array() : NULL;
    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_new_object();
        jadd(o, alg_key, alg ? alg(h[i].alg) : h[i].alg);
        jadd(o, value_key, h[i].hex);
        json_object_array_add(a, o);
    }
    free(h);
    return a;
}

static json_object *cdx_hashes(const lock_package *p)
{
    return hash_array(p, "alg", "content", NULL);
}

/* Where each artifact is fetched from, with its hash: the lock's URL, or
 * for npm the registry's tarball URL (a format-2 PyPI file names none). */
static json_object *cdx_distribution(const lock_package *p)
{
    json_object *a = NULL;
    for (size_t i = 0; i < p->n_artifacts; i++) {
        const lock_artifact *art = &p->artifacts[i];
        char *url = art->url ? xstrdup(art->url)
                    : strcmp(p->ecosystem, "npm") == 0 ? plan_npm_tarball_url(p) : NULL;
        if (!url)
            continue;
        json_object *o = json_object_new_object();
        jadd(o, "type", "distribution");
        jadd(o, "url", url);
        sbom_hash h;
        if (art->hash && hash_of(art->hash, &h)) {
            json_object *hs = json_object_new_array(), *ho = json_object_new_object();
            jadd(ho, "alg", h.alg);
            jadd(ho, "content", h.hex);
            json_object_array_add(hs, ho);
            json_object_object_add(o, "hashes", hs);
        }
        if (!a)
            a = json_object_new_array();
        json_object_array_add(a, o);
        free(url);
    }
    return a;
}

static json_object *cdx_property(const char *name, const char *value)
{
    json_object *o = json_object_new_object();
    jadd(o, "name", name);
    jadd(o, "value", value);
    return o;
}

static json_object *cdx_component(const sbom_pkg *sp)
{
    const lock_package *p = sp->p;
    json_object *o = json_object_new_object();
    jadd(o, "type", "library");
    jadd(o, "bom-ref", sp->ref);
    jadd(o, "name", p->name);
    jadd(o, "version", p->version);
    if (p->license) { /* one SPDX expression: the schema's second form */
        json_object *ls = json_object_new_array(), *l = json_object_new_object();
        jadd(l, "expression", p->license);
        jadd(l, "acknowledgement", "declared");
        json_object_array_add(ls, l);
        json_object_object_add(o, "licenses", ls);
    }
    jadd(o, "purl", sp->purl);
    json_object *h = cdx_hashes(p), *d = cdx_distribution(p);
    if (h)
        json_object_object_add(o, "hashes", h);
    if (d)
        json_object_object_add(o, "externalReferences", d);
    json_object *props = json_object_new_array();
    json_object_array_add(props, cdx_property("envlock:ecosystem", p->ecosystem));
    if (p->installed_in_base)
        json_object_array_add(props, cdx_property("envlock:installedInBase", "true"));
    if (p->path)
        json_object_array_add(props, cdx_property("envlock:path", p->path));
    json_object_object_add(o, "properties", props);
    return o;
}

/* The image built on: a container named by its repository, versioned by
 * digest (else its tag); a variant's with the reference FROM names. */
static json_object *cdx_root(const sbom *s)
{
    json_object *o = json_object_new_object();
    jadd(o, "type", "container");
    jadd(o, "bom-ref", s->root_ref);
    jadd(o, "name", s->root_name);
    if (s->root_version)
        jadd(o, "version", s->root_version);
    if (s->root_digest && strncmp(s->root_digest, "sha256:", 7) == 0) {
        json_object *hs = json_object_new_array(), *h = json_object_new_object();
        jadd(h, "alg", "SHA-256");
        jadd(h, "content", s->root_digest + 7);
        json_object_array_add(hs, h);
        json_object_object_add(o, "hashes", hs);
    }
    if (s->variant) {
        json_object *props = json_object_new_array();
        json_object_array_add(props, cdx_property("envlock:from", s->img.from));
        json_object_object_add(o, "properties", props);
    }
    return o;
}

static json_object *cdx_metadata(const sbom *s)
{
    json_object *m = json_object_new_object();
    if (s->time[0])
        jadd(m, "timestamp", s->time);
    json_object *tools = json_object_new_object(), *tc = json_object_new_array();
    json_object *tool = json_object_new_object();
    jadd(tool, "type", "application");
    jadd(tool, "name", "envlock");
    json_object_array_add(tc, tool);
    json_object_object_add(tools, "components", tc);
    json_object_object_add(m, "tools", tools);
    json_object_object_add(m, "component", cdx_root(s));
    json_object *props = json_object_new_array();
    json_object_array_add(props, cdx_property("envlock:lockDigest", s->in->lock_digest));
    if (s->variant)
        json_object_array_add(props, cdx_property("envlock:variant", s->variant));
    json_object_object_add(m, "properties", props);
    return m;
}

static json_object *cdx_dependency(const char *ref, const char **deps, size_t n)
{
    json_object *o = json_object_new_object(), *a = json_object_new_array();
    jadd(o, "ref", ref);
    for (size_t i = 0; i < n; i++)
        json_object_array_add(a, json_object_new_string(deps[i]));
    json_object_object_add(o, "dependsOn", a);
    return o;
}

static json_object *cdx_dependencies(const sbom *s)
{
    json_object *a = json_object_new_array();
    const char **roots = xcalloc(s->n + 1, sizeof *roots);
    size_t nr = 0;
    for (size_t i = 0; i < s->n; i++)
        if (is_root(s->v[i].p))
            roots[nr++] = s->v[i].ref;
    json_object_array_add(a, cdx_dependency(s->root_ref, roots, nr));
    free(roots);
    for (size_t i = 0; i < s->n; i++) {
        size_t n;
        const char **deps = deps_of(s, &s->v[i], &n);
        json_object_array_add(a, cdx_dependency(s->v[i].ref, deps, n));
        free(deps);
    }
    return a;
}

/* The document's name-based identity: one per lock, format and variant. */
static void doc_uuid(const sbom *s, const char *format, char out[37])
{
    char *name = xasprintf("urn:envlock:sbom:%s:%s%s%s", format, s->in->lock_digest,
                           s->variant ? ":" : "", s->variant ? s->variant : "");
    if (!uuid_v5(NS_URL, name, out))
        abort();
    free(name);
}

static json_object *cyclonedx(const sbom *s)
{
    json_object *o = json_object_new_object();
    char uuid[37];
    doc_uuid(s, "cyclonedx", uuid);
    char *serial = xasprintf("urn:uuid:%s", uuid);
    jadd(o, "$schema", "http://cyclonedx.org/schema/bom-1.6.schema.json");
    jadd(o, "bomFormat", "CycloneDX");
    jadd(o, "specVersion", "1.6");
    jadd(o, "serialNumber", serial);
    json_object_object_add(o, "version", json_object_new_int(1));
    json_object_object_add(o, "metadata", cdx_metadata(s));
    json_object *comps = json_object_new_array();
    for (size_t i = 0; i < s->n; i++)
        json_object_array_add(comps, cdx_component(&s->v[i]));
    json_object_object_add(o, "components", comps);
    json_object_object_add(o, "dependencies", cdx_dependencies(s));
    free(serial);
    return o;
}

/* ---- SPDX 2.3 ---- */

static const char *spdx_alg(const char *cdx_alg)
{
    return strcmp(cdx_alg, "SHA-512") == 0   ? "SHA512"
           : strcmp(cdx_alg, "SHA-384") == 0 ? "SHA384"
           : strcmp(cdx_alg, "SHA-1") == 0   ? "SHA1"
                                             : "SHA256";
}

static json_object *spdx_checksums(const lock_package *p)
{
    return hash_array(p, "algorithm", "checksumValue", spdx_alg);
}

/* The fields every SPDX package carries: the declared license when the
 * lock records one, else NOASSERTION; no license is ever concluded. */
static json_object *spdx_package_base(const char *id, const char *name, const char *version,
                                      const char *download, const char *license)
{
    json_object *o = json_object_new_object();
    jadd(o, "SPDXID", id);
    jadd(o, "name", name);
    if (version)
        jadd(o, "versionInfo", version);
    jadd(o, "downloadLocation", download ? download : "NOASSERTION");
    json_object_object_add(o, "filesAnalyzed", json_object_new_boolean(0));
    jadd(o, "licenseConcluded", "NOASSERTION");
    jadd(o, "licenseDeclared", license ? license : "NOASSERTION");
    jadd(o, "copyrightText", "NOASSERTION");
    return o;
}

static json_object *spdx_purl_ref(const char *purl)
{
    json_object *a = json_object_new_array(), *r = json_object_new_object();
    jadd(r, "referenceCategory", "PACKAGE-MANAGER");
    jadd(r, "referenceType", "purl");
    jadd(r, "referenceLocator", purl);
    json_object_array_add(a, r);
    return a;
}

static json_object *spdx_package(const sbom_pkg *sp)
{
    const lock_package *p = sp->p;
    char *npm_url = !p->n_artifacts || p->artifacts[0].url || strcmp(p->ecosystem, "npm") != 0
                        ? NULL : plan_npm_tarball_url(p);
    const char *url = p->n_artifacts == 1 ? (p->artifacts[0].url ? p->artifacts[0].url : npm_url)
                                          : NULL;
    json_object *o = spdx_package_base(sp->spdxid, p->name, p->version, url, p->license);
    json_object *c = spdx_checksums(p);
    if (c)
        json_object_object_add(o, "checksums", c);
    json_object_object_add(o, "externalRefs", spdx_purl_ref(sp->purl));
    jadd(o, "primaryPackagePurpose", "LIBRARY");
    free(npm_url);
    return o;
}

static json_object *spdx_root(const sbom *s, const char *id)
{
    json_object *o = spdx_package_base(id, s->root_name, s->root_version, NULL, NULL);
    if (s->root_digest && strncmp(s->root_digest, "sha256:", 7) == 0) {
        json_object *a = json_object_new_array(), *c = json_object_new_object();
        jadd(c, "algorithm", "SHA256");
        jadd(c, "checksumValue", s->root_digest + 7);
        json_object_array_add(a, c);
        json_object_object_add(o, "checksums", a);
    }
    jadd(o, "primaryPackagePurpose", "CONTAINER");
    return o;
}

static void spdx_rel(json_object *a, const char *from, const char *type, const char *to)
{
    json_object *o = json_object_new_object();
    jadd(o, "spdxElementId", from);
    jadd(o, "relationshipType", type);
    jadd(o, "relatedSpdxElement", to);
    json_object_array_add(a, o);
}

static json_object *spdx_relationships(const sbom *s, const char *root_id)
{
    json_object *a = json_object_new_array();
    spdx_rel(a, "SPDXRef-DOCUMENT", "DESCRIBES", root_id);
    const char **ids = xcalloc(s->n + 1, sizeof *ids);
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        if (is_root(s->v[i].p))
            ids[n++] = s->v[i].spdxid;
    n = plan_sort_unique(ids, n);
    for (size_t i = 0; i < n; i++)
        spdx_rel(a, root_id, "DEPENDS_ON", ids[i]);
    for (size_t i = 0; i < s->n; i++) {
        size_t nd;
        const char **deps = deps_of(s, &s->v[i], &nd);
        for (size_t k = 0; k < nd; k++)  /* refs -> SPDX ids, in the ids' order */
            deps[k] = find_ref(s, deps[k])->spdxid;
        nd = plan_sort_unique(deps, nd);
        for (size_t k = 0; k < nd; k++)
            spdx_rel(a, s->v[i].spdxid, "DEPENDS_ON", deps[k]);
        free(deps);
    }
    free(ids);
    return a;
}

static json_object *spdx(const sbom *s)
{
    const lock_doc *d = s->in->lock;
    json_object *o = json_object_new_object();
    char uuid[37];
    doc_uuid(s, "spdx", uuid);
    char *ns = xasprintf("urn:uuid:%s", uuid);
    char *name = xasprintf("%s%s%s", d->base_ref ? d->base_ref : "envlock-lock",
                           s->variant ? "-" : "", s->variant ? s->variant : "");
    char *root_id = spdx_id("Image", s->root_ref);
    jadd(o, "spdxVersion", "SPDX-2.3");
    jadd(o, "dataLicense", "CC0-1.0");
    jadd(o, "SPDXID", "SPDXRef-DOCUMENT");
    jadd(o, "name", name);
    jadd(o, "documentNamespace", ns);
    json_object *ci = json_object_new_object(), *cr = json_object_new_array();
    jadd(ci, "created", s->time[0] ? s->time : "1970-01-01T00:00:00Z");
    json_object_array_add(cr, json_object_new_string("Tool: envlock"));
    json_object_object_add(ci, "creators", cr);
    char *comment = xasprintf("From the lock %s", s->in->lock_digest);
    jadd(ci, "comment", comment);
    json_object_object_add(o, "creationInfo", ci);
    json_object *pk = json_object_new_array();
    json_object_array_add(pk, spdx_root(s, root_id));
    for (size_t i = 0; i < s->n; i++)
        json_object_array_add(pk, spdx_package(&s->v[i]));
    json_object_object_add(o, "packages", pk);
    json_object_object_add(o, "relationships", spdx_relationships(s, root_id));
    free(comment);
    free(root_id);
    free(name);
    free(ns);
    return o;
}

/* ---- the entry point ---- */

char *plan_sbom_text(const plan_input *in, plan_format fmt, const char *variant, size_t *len)
{
    sbom s;
    sbom_init(&s, in, variant);
    json_object *o = fmt == PLAN_SPDX ? spdx(&s) : cyclonedx(&s);
    const char *t = json_object_to_json_string_ext(
        o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    char *text = xasprintf("%s\n", t);
    json_object_put(o);
    sbom_release(&s);
    *len = strlen(text);
    return text;
}
