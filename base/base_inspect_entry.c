/* base_inspect_entry.c — el_base_inspect(): the catalog entry of an image
 * (corpus/bases/README.md, `images:`) worked out from its files as
 * base_inspect.c reads them: the Python from include/python3.X/patchlevel.h
 * (else the config's PYTHON_VERSION), the platform from the architecture and
 * the installed libc6 (glibc X.Y -> manylinux_X_Y_<machine>), the apt
 * sources from sources.list and sources.list.d (NAME.list, NAME.sources as deb822),
 * the dpkg status as the image has it, and the distributions whose
 * *.dist-info/METADATA sit in that Python's site-packages. Written as a
 * whole catalog document (no bases), so it can be passed to --bases as it
 * is, or its entry copied into a site's catalog. */
#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "envlock/bases.h"
#include "debsources.h"
#include "pep440.h"
#include "pep508.h"
#include "base.h"
#include "base_inspect.h"

typedef struct entry {
    el_ctx *ctx;
    const char *path;
    const inspect_image *im;
    arena *mem;
    const char *prefix;   /* "usr/local" or "usr" */
    const char *python;   /* X.Y.Z */
    const char *glibc;    /* X.Y */
    const char *arch, *machine;
    ptrvec sources;       /* one-line "deb URI SUITE COMP..." */
    const char *keyring;  /* the one Signed-By every source names, or NULL */
    bool keyring_mixed;
    ptrvec dists;         /* "name==version", sorted */
    ptrvec notes;         /* the header's notes: sources left out */
} entry;

static el_code fail(entry *E, const char *reason, const char *fmt, ...) EL_PRINTF(3, 4);
static el_code fail(entry *E, const char *reason, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    el_code rc = inspect_vbad(E->ctx, E->path, reason, NULL, fmt, ap);
    va_end(ap);
    return rc;
}

/* The value of `field` in one RFC 822 style stanza [s, e), first line only. */
static const char *field_in(arena *mem, const char *s, const char *e, const char *field)
{
    size_t n = strlen(field);
    for (const char *l = s; l < e;) {
        const char *nl = memchr(l, '\n', (size_t)(e - l));
        const char *le = nl ? nl : e;
        if ((size_t)(le - l) > n && !strncasecmp(l, field, n) && l[n] == ':') {
            const char *v = l + n + 1;
            while (v < le && (*v == ' ' || *v == '\t'))
                v++;
            const char *ve = le;
            while (ve > v && isspace((unsigned char)ve[-1]))
                ve--;
            return arena_strndup(mem, v, (size_t)(ve - v));
        }
        l = le + 1;
    }
    return NULL;
}

/* The next stanza of `text` at *pos: [*s, *e), false at the end. */
static bool next_stanza(const char *text, size_t len, size_t *pos, const char **s, const char **e)
{
    while (*pos < len && (text[*pos] == '\n' || text[*pos] == '\r'))
        (*pos)++;
    if (*pos >= len)
        return false;
    *s = text + *pos;
    const char *end = strstr(*s, "\n\n");
    *e = end && end < text + len ? end + 1 : text + len;
    *pos = (size_t)(*e - text);
    return true;
}

/* ---- Python ---- */

static const char *leading_xyz(arena *mem, const char *v)
{
    size_t n = 0;
    int dots = 0;
    while (isdigit((unsigned char)v[n]) || (v[n] == '.' && dots < 2 && isdigit((unsigned char)v[n + 1])))
        dots += v[n++] == '.';
    return dots == 2 ? arena_strndup(mem, v, n) : NULL;
}

static const char *patchlevel_version(entry *E, const inspect_file *f)
{
    const char *d = f->data ? strstr(f->data, "#define PY_VERSION") : NULL;
    const char *q = d ? strchr(d, '"') : NULL;
    return q ? leading_xyz(E->mem, q + 1) : NULL;
}

/* The interpreter the image runs as python3: /usr/local's (the official
 * images build their own there) before Debian's /usr. */
static el_code find_python(entry *E)
{
    static const char *const prefixes[] = { "usr/local", "usr", NULL };
    for (const char *const *p = prefixes; *p && !E->python; p++) {
        size_t n = strlen(*p);
        for (size_t i = 0; i < E->im->n_files && !E->python; i++) {
            const inspect_file *f = &E->im->files[i];
            if (strncmp(f->path, *p, n) || strncmp(f->path + n, "/include/python3.", 17) ||
                !strstr(f->path, "/patchlevel.h"))
                continue;
            E->python = patchlevel_version(E, f);
            E->prefix = *p;
        }
    }
    if (!E->python && E->im->python_env && (E->python = leading_xyz(E->mem, E->im->python_env)))
        E->prefix = "usr/local";
    if (!E->python)
        return fail(E, "no_python",
                    "finds no Python version in the image: no include/python3.X/patchlevel.h "
                    "under /usr/local or /usr, and no PYTHON_VERSION in its config");
    return EL_OK;
}

/* ---- platform ---- */

static el_code find_platform(entry *E)
{
    const inspect_file *st = inspect_find(E->im, "var/lib/dpkg/status");
    const char *ver = NULL, *arch = NULL, *s, *e;
    size_t pos = 0;
    while (st && st->data && !ver && next_stanza(st->data, st->len, &pos, &s, &e)) {
        const char *pkg = field_in(E->mem, s, e, "Package");
        const char *status = field_in(E->mem, s, e, "Status");
        size_t sl = status ? strlen(status) : 0;
        if (pkg && !strcmp(pkg, "libc6") && sl > 10 && !strcmp(status + sl - 10, " installed")) {
            ver = field_in(E->mem, s, e, "Version");
            arch = field_in(E->mem, s, e, "Architecture");
        }
    }
    if (!ver)
        return fail(E, "no_glibc",
                    "names no installed libc6 in var/lib/dpkg/status: envlock works out "
                    "manylinux platforms from the image's glibc");
    const char *up = strchr(ver, ':') ? strchr(ver, ':') + 1 : ver;
    size_t n = strspn(up, "0123456789");
    size_t m = up[n] == '.' ? strspn(up + n + 1, "0123456789") : 0;
    if (!n || !m)
        return fail(E, "no_glibc", "libc6 %s is not a glibc X.Y version", ver);
    E->glibc = arena_strndup(E->mem, up, n + 1 + m);
    E->arch = E->im->arch ? E->im->arch : arch;
    if (E->arch && !strcmp(E->arch, "amd64"))
        E->machine = "x86_64";
    else if (E->arch && !strcmp(E->arch, "arm64"))
        E->machine = "aarch64";
    else
        return fail(E, "unsupported_arch",
                    "is for the architecture `%s`; envlock targets amd64 and arm64",
                    E->arch ? E->arch : "(none)");
    return EL_OK;
}

/* ---- apt sources ---- */

static void signed_by(entry *E, const char *path)
{
    if (!path || E->keyring_mixed)
        return;
    if (!E->keyring)
        E->keyring = path;
    else if (strcmp(E->keyring, path) != 0)
        E->keyring_mixed = true;
}

/* One entry: kept in the catalog's form ("deb URI SUITE COMP...", the
 * keyring apart) when the apt reader's parser takes it, else named in a
 * note of the header. */
static void add_source(entry *E, const char *file, const char *line)
{
    deb_source src;
    char *err = NULL;
    if (deb_source_parse(line, E->mem, &src, &err) != 0) {
        strbuf sb = STRBUF_INIT;
        sb_adds(&sb, "apt: left out, an entry of ");
        inspect_yaml_quote(&sb, file);
        sb_adds(&sb, ": ");
        inspect_yaml_quote(&sb, err ? err : "unreadable");
        ptrvec_push(&E->notes, arena_strdup(E->mem, sb.buf));
        sb_release(&sb);
        free(err);
        return;
    }
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "deb %s %s", src.uri, src.suite);
    for (size_t i = 0; i < src.n_components; i++)
        sb_addf(&sb, " %s", src.components[i]);
    ptrvec_push(&E->sources, arena_strdup(E->mem, sb.buf));
    sb_release(&sb);
    signed_by(E, src.signed_by);
    if (!src.signed_by)
        E->keyring_mixed = true;
}

static void file_sources(entry *E, const inspect_file *f, bool deb822)
{
    ptrvec lines = PTRVEC_INIT;
    if (f->data)
        deb_sources_entries(f->data, f->len, deb822, E->mem, &lines);
    for (size_t i = 0; i < lines.len; i++)
        add_source(E, f->path, lines.items[i]);
    ptrvec_release(&lines);
}

/* sources.list, then sources.list.d in name order, as apt reads them. */
static void find_sources(entry *E)
{
    const inspect_file *main_list = inspect_find(E->im, "etc/apt/sources.list");
    if (main_list)
        file_sources(E, main_list, false);
    for (size_t i = 0; i < E->im->n_files; i++) {
        const inspect_file *f = &E->im->files[i];
        size_t n = strlen(f->path);
        if (strncmp(f->path, "etc/apt/sources.list.d/", 23) != 0)
            continue;
        if (n > 5 && !strcmp(f->path + n - 5, ".list"))
            file_sources(E, f, false);
        else if (n > 8 && !strcmp(f->path + n - 8, ".sources"))
            file_sources(E, f, true);
    }
}

/* ---- Python distributions ---- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* `name==version` as the catalog's preinstalled: takes it. */
static bool exact_requirement(const char *line)
{
    char *err = NULL;
    pypi_requirement *r = pypi_requirement_parse(line, &err);
    bool ok = r && pypi_specset_len(r->specset) == 1 && !r->url && !r->marker && !r->nextras &&
              !strcmp(pypi_specset_op(r->specset, 0), "==");
    pypi_requirement_free(r);
    free(err);
    return ok;
}

static void find_dists(entry *E)
{
    char minor[16];
    snprintf(minor, sizeof minor, "%.*s", (int)(strrchr(E->python, '.') - E->python), E->python);
    const char *site = !strcmp(E->prefix, "usr/local")
                           ? arena_sprintf(E->mem, "usr/local/lib/python%s/site-packages/", minor)
                           : "usr/lib/python3/dist-packages/";
    size_t n = strlen(site);
    for (size_t i = 0; i < E->im->n_files; i++) {
        const inspect_file *f = &E->im->files[i];
        if (strncmp(f->path, site, n) || !f->data)
            continue;
        const char *slash = strchr(f->path + n, '/'); /* NAME-V.dist-info/METADATA, one level */
        if (!slash || slash - (f->path + n) < 10 || strncmp(slash - 10, ".dist-info", 10) ||
            strcmp(slash, "/METADATA") != 0)
            continue;
        const char *hdr_end = strstr(f->data, "\n\n");
        const char *end = hdr_end ? hdr_end + 1 : f->data + f->len;
        const char *name = field_in(E->mem, f->data, end, "Name");
        const char *version = field_in(E->mem, f->data, end, "Version");
        if (!name || !version)
            continue;
        char *canon = pypi_name_canonical(name);
        const char *req = arena_sprintf(E->mem, "%s==%s", canon, version);
        free(canon);
        if (exact_requirement(req)) /* else no catalog could hold it */
            ptrvec_push(&E->dists, (void *)req);
    }
    if (E->dists.len)
        qsort(E->dists.items, E->dists.len, sizeof *E->dists.items, cmp_str);
}

/* ---- the document ---- */

static bool is_sha256_digest(const char *s)
{
    if (strncmp(s, "sha256:", 7) != 0 || strlen(s) != 71)
        return false;
    return strspn(s + 7, "0123456789abcdef") == 64;
}

/* The header's word on the keyring, which the entry names only when this
 * machine has the file (the catalog reads it when it is loaded). */
static const char *keyring_note(entry *E, bool *here)
{
    strbuf sb = STRBUF_INIT;
    bool one = E->keyring && !E->keyring_mixed;
    *here = one && access(E->keyring, R_OK) == 0;
    if (one) {
        sb_adds(&sb, "apt: the image verifies every source with ");
        inspect_yaml_quote(&sb, E->keyring);
        sb_adds(&sb, *here ? ", the same file of this machine is the keyring:"
                           : ", which this machine does not have: name a copy as keyring:");
    } else {
        sb_adds(&sb, "apt: the sources name no one keyring: name the one to verify with as "
                     "keyring:, or sign them with signed-by= in each line");
    }
    const char *out = arena_strdup(E->mem, sb.buf);
    sb_release(&sb);
    return out;
}

static char *write_entry(entry *E, const char *ref, const char *digest,
                         const el_base_inspect_options *o)
{
    const char **notes = arena_alloc(E->mem, (E->notes.len + 3) * sizeof *notes);
    inspect_entry x = {
        .archive = strrchr(E->path, '/') ? strrchr(E->path, '/') + 1 : E->path,
        .n_layers = E->im->n_layers, .ref = ref, .python = E->python, .arch = E->arch,
        .libc = arena_sprintf(E->mem, "glibc %s", E->glibc),
        .digest = digest && is_sha256_digest(digest) ? digest : NULL,
        .platform = arena_sprintf(E->mem, "manylinux_%.*s_%s_%s", (int)strcspn(E->glibc, "."),
                                  E->glibc, strchr(E->glibc, '.') + 1, E->machine),
        .sources = (const char *const *)E->sources.items, .n_sources = E->sources.len,
        .keyring = E->keyring_mixed ? NULL : E->keyring,
        .status_name = o ? o->status_name : NULL,
        .dists = (const char *const *)E->dists.items, .n_dists = E->dists.len, .notes = notes };
    if (E->sources.len)
        notes[x.n_notes++] = keyring_note(E, &x.keyring_here);
    for (size_t i = 0; i < E->notes.len; i++)
        notes[x.n_notes++] = E->notes.items[i];
    if (!x.status_name)
        notes[x.n_notes++] = "dpkgStatus: the image's var/lib/dpkg/status is written beside the "
                             "entry with -o FILE";
    return inspect_entry_yaml(&x);
}

/* A reference or -o name that the YAML document cannot hold. */
static el_code not_utf8(entry *E, const char *what)
{
    el_fail(E->ctx, EL_SPEC_INVALID, "%s: %s is not UTF-8, which a catalog is", E->path, what);
    el_detail_str(E->ctx, "reason", "not_utf8");
    el_detail_str(E->ctx, "path", E->path);
    return EL_SPEC_INVALID;
}

static bool utf8_str(const char *s)
{
    return !s || utf8_valid(s, strlen(s));
}

char *el_base_inspect(el_ctx *ctx, const char *archive, const el_base_inspect_options *o)
{
    inspect_image im;
    if (inspect_image_read(ctx, archive, &im) != EL_OK) {
        inspect_image_clear(&im);
        return NULL;
    }
    entry E = { .ctx = ctx, .path = archive, .im = &im, .mem = im.mem };
    const char *ref = o && o->reference ? o->reference : im.reference;
    el_code rc = EL_OK;
    if (!ref)
        rc = fail(&E, "no_reference",
                  "names no reference for the image (no RepoTags in manifest.json, no "
                  "io.containerd.image.name or org.opencontainers.image.ref.name annotation "
                  "in index.json): give one with --ref");
    if (rc == EL_OK && (rc = find_python(&E)) == EL_OK && (rc = find_platform(&E)) == EL_OK) {
        find_sources(&E);
        find_dists(&E);
    }
    if (rc == EL_OK && !utf8_str(ref))
        rc = not_utf8(&E, "the image's reference");
    if (rc == EL_OK && o && !utf8_str(o->status_name))
        rc = not_utf8(&E, "the name of the dpkg status file");
    char *out = NULL;
    if (rc == EL_OK) {
        const char *digest = NULL;
        const char *key = target_image_normalize(im.mem, ref, &digest);
        if (!(out = write_entry(&E, key, digest, o)))
            rc = el_fail(ctx, EL_INTERNAL, "%s: the entry cannot be written as YAML", archive);
    }
    const inspect_file *st = inspect_find(&im, "var/lib/dpkg/status");
    if (rc == EL_OK && o && (o->out_path || o->status_path) &&
        inspect_write_pair(ctx, o->out_path, out, o->status_path, st->data, st->len) != EL_OK) {
        free(out);
        out = NULL;
    }
    ptrvec_release(&E.sources);
    ptrvec_release(&E.dists);
    ptrvec_release(&E.notes);
    inspect_image_clear(&im);
    return out;
}
