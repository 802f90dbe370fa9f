/* pypi_page.c — one project page of a PyPI-style index into file records:
 * PEP 691 JSON (json-c) and PEP 503 HTML (libxml2's HTML parser), with the
 * attributes of PEP 592 (yanked), PEP 629 (repository version), PEP 658/714
 * (core metadata), PEP 700 (size, upload-time) and data-requires-python.
 *
 * Owns the page formats only: it resolves relative URLs (cache_url_join)
 * but fetches nothing, and judges nothing about the target. Anything
 * malformed inside one file entry drops that entry or field (as pip does),
 * except a link that cannot be fetched: that entry stays, marked bad_url,
 * so that the loader can say why the file is not used;
 * only a page that cannot be read at all is an error. */
#include <ctype.h>
#include <strings.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>

#include "pypi_index.h"

/* ---- small helpers ---- */

static const char *hex_or_null(arena *a, const char *s, size_t n)
{
    if (n != 64)
        return NULL;
    char buf[65];
    for (size_t i = 0; i < 64; i++) {
        if (!isxdigit((unsigned char)s[i]))
            return NULL;
        buf[i] = (char)tolower((unsigned char)s[i]);
    }
    buf[64] = '\0';
    return arena_strdup(a, buf);
}

bool pypi_time_parse(const char *s, int64_t *out)
{
    int64_t ms;
    if (!rfc3339_parse(s, RFC3339_LEAP_SECOND_OK, &ms))
        return false;
    /* floor, not truncation: an instant before the epoch stays before it */
    *out = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
    return true;
}

static el_code bad_page(el_ctx *ctx, const char *url, const char *what)
{
    el_fail(ctx, EL_PACKAGE_NOT_FOUND, "the project page %s cannot be read: %s", url, what);
    el_detail_str(ctx, "reason", "invalid_page");
    el_detail_str(ctx, "url", url);
    return EL_PACKAGE_NOT_FOUND;
}

/* PEP 629: a major version other than 1 must be refused. */
static bool api_major_ok(const char *v)
{
    return v[0] == '1' && (v[1] == '\0' || v[1] == '.');
}

/* Percent-decodes the last path segment of `url` (before ? and #). */
static char *url_basename(arena *a, const char *url)
{
    size_t n = strcspn(url, "?#");
    const char *seg = url;
    for (size_t i = 0; i < n; i++)
        if (url[i] == '/')
            seg = url + i + 1;
    size_t sn = (size_t)(url + n - seg);
    char *out = arena_alloc(a, sn + 1);
    size_t o = 0;
    for (size_t i = 0; i < sn; i++) {
        if (seg[i] == '%' && i + 2 < sn && isxdigit((unsigned char)seg[i + 1]) &&
            isxdigit((unsigned char)seg[i + 2])) {
            char hx[3] = { seg[i + 1], seg[i + 2], 0 };
            out[o++] = (char)strtol(hx, NULL, 16);
            i += 2;
        } else {
            out[o++] = seg[i];
        }
    }
    out[o] = '\0';
    return out;
}

/* Whether a resolved link is one the cache can fetch (http, https or file
 * with an authority). RFC 3986 reads `a-1.0+02:00` or `a:=1` as an
 * absolute URI of scheme `a-1.0+02` or `a`, which cache_url_join returns
 * as is; nothing can fetch it. */
static bool fetchable(const char *u) { return cache_url_fetchable(u); }

/* A link as written, for a file that cannot be fetched: at most 200 bytes,
 * control bytes as '?', so that `index show` can print it safely. */
static const char *shown_link(arena *a, const char *href)
{
    size_t n = strnlen(href, 200);
    char *s = arena_strndup(a, href, n);
    for (char *p = s; *p; p++)
        if ((unsigned char)*p < ' ' || *p == 0x7f)
            *p = '?';
    return s;
}

/* `href` resolved against the page's canonical URL (`base`: what records
 * name) and, when the page was read from elsewhere (a mirror), against the
 * URL actually read (`read_base`: where this run fetches the file). The
 * second is NULL when it is the same. The fragment is split off; a sha256
 * is taken from it when it names one. `doc` is the URL the page was read
 * from. NULL when the link can be followed; else why not, and then *url
 * is shown_link(href) and *read_url NULL: "unsupported_url" when it is
 * not fetchable(), "local_link" when it is a file:// link in a page read
 * over http(s) (cache_link_allowed(): a remote index never makes envlock
 * read a local file, whatever <base href> says). */
static const char *resolve(arena *a, const char *doc, const char *base, const char *read_base,
                           const char *href, const char **url, const char **read_url,
                           const char **frag_sha)
{
    *frag_sha = NULL;
    *read_url = NULL;
    const char *hash = strchr(href, '#');
    char *ref = hash ? xstrndup(href, (size_t)(hash - href)) : xstrdup(href);
    if (hash) {
        for (const char *p = hash; *p; p++) {
            if ((*p == '#' || *p == '&') && strncmp(p + 1, "sha256=", 7) == 0) {
                const char *v = p + 8;
                *frag_sha = hex_or_null(a, v, strcspn(v, "&"));
                break;
            }
        }
    }
    char *abs = cache_url_join(base, ref);
    char *rd = abs && read_base ? cache_url_join(read_base, ref) : NULL;
    free(ref);
    const char *why = !abs || !fetchable(abs) ? "unsupported_url"
                      : !cache_link_allowed(doc, abs) || (rd && !cache_link_allowed(doc, rd))
                          ? "local_link"
                          : NULL;
    if (why) {
        free(abs);
        free(rd);
        *url = shown_link(a, href);
        return why;
    }
    *url = arena_strdup(a, abs);
    if (rd && strcmp(rd, abs) != 0)
        *read_url = arena_strdup(a, rd);
    free(abs);
    free(rd);
    return NULL;
}

static void file_init(pypi_file *f)
{
    memset(f, 0, sizeof *f);
    f->size = -1;
    f->upload_s = INT64_MIN;
}

typedef struct filevec {
    pypi_file *v;
    size_t n, cap;
} filevec;

static pypi_file *files_add(filevec *fv)
{
    if (fv->n == fv->cap) {
        fv->cap = fv->cap ? fv->cap * 2 : 16;
        fv->v = xrealloc(fv->v, fv->cap * sizeof *fv->v);
    }
    pypi_file *f = &fv->v[fv->n++];
    file_init(f);
    return f;
}

static void files_finish(arena *a, filevec *fv, pypi_page *out)
{
    out->nfiles = fv->n;
    out->files = arena_alloc(a, (fv->n ? fv->n : 1) * sizeof *out->files);
    if (fv->n)
        memcpy(out->files, fv->v, fv->n * sizeof *fv->v);
    free(fv->v);
}

/* ---- PEP 691 JSON ---- */

static const char *jstr(json_object *o, const char *key)
{
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

static const char *hashes_sha256(arena *a, json_object *h)
{
    if (!h || !json_object_is_type(h, json_type_object))
        return NULL;
    json_object *v;
    if (!json_object_object_get_ex(h, "sha256", &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return hex_or_null(a, json_object_get_string(v), (size_t)json_object_get_string_len(v));
}

/* api_version() : records the repository API version a page declares
 * (PEP 691 meta.api-version, PEP 629 pypi:repository-version) and refuses
 * a major version other than 1. */
static el_code api_version(el_ctx *ctx, arena *a, const char *page_url, const char *av,
                           pypi_page *out)
{
    out->api_version = arena_strdup(a, av);
    if (api_major_ok(av))
        return EL_OK;
    char what[160];
    snprintf(what, sizeof what, "repository API version %.32s is not 1.x", av);
    return bad_page(ctx, page_url, what);
}

/* One JSON document and nothing after it but white space. */
static el_code json_document(el_ctx *ctx, const char *body, size_t len, const char *page_url,
                             json_object **out)
{
    *out = NULL;
    if (len > INT_MAX)
        return bad_page(ctx, page_url, "the JSON document is too large");
    json_tokener *tok = json_tokener_new();
    json_object *root = json_tokener_parse_ex(tok, body, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (!root || jerr != json_tokener_success) {
        json_object_put(root);
        char what[160];
        snprintf(what, sizeof what, "invalid JSON (%s)",
                 jerr == json_tokener_continue ? "it ends early" : json_tokener_error_desc(jerr));
        return bad_page(ctx, page_url, what);
    }
    for (size_t i = used; i < len; i++) {
        if (!isspace((unsigned char)body[i])) {
            json_object_put(root);
            return bad_page(ctx, page_url, "text after the JSON document");
        }
    }
    *out = root;
    return EL_OK;
}

/* A file's yanked flag and its core metadata (PEP 714's key first; PEP
 * 658's older spelling otherwise). */
static void json_file_flags(arena *a, json_object *fo, pypi_file *f)
{
    json_object *v;
    if (json_object_object_get_ex(fo, "yanked", &v)) {
        if (json_object_is_type(v, json_type_boolean)) {
            f->yanked = json_object_get_boolean(v);
        } else if (json_object_is_type(v, json_type_string)) {
            f->yanked = true;
            if (json_object_get_string_len(v) > 0)
                f->yanked_reason = arena_strdup(a, json_object_get_string(v));
        }
    }
    v = NULL;
    if (!json_object_object_get_ex(fo, "core-metadata", &v) &&
        !json_object_object_get_ex(fo, "dist-info-metadata", &v))
        v = NULL;
    if (v) {
        if (json_object_is_type(v, json_type_boolean)) {
            f->core_metadata = json_object_get_boolean(v);
        } else if (json_object_is_type(v, json_type_object)) {
            f->core_metadata = true;
            f->core_metadata_sha256 = hashes_sha256(a, v);
        }
    }
}

/* One entry of PEP 691's "files"; one without url or filename is skipped. */
static void json_file(arena *a, json_object *fo, const char *page_url, const char *read_url,
                      filevec *fv)
{
    json_object *v;
    if (!json_object_is_type(fo, json_type_object))
        return;
    const char *url = jstr(fo, "url"), *filename = jstr(fo, "filename");
    if (!url || !filename || !*filename)
        return;
    const char *abs, *rd, *frag;
    const char *why = resolve(a, read_url ? read_url : page_url, page_url, read_url, url,
                              &abs, &rd, &frag);
    pypi_file *f = files_add(fv);
    f->filename = arena_strdup(a, filename);
    f->bad_url = why;
    f->url = abs;
    f->read_url = rd;
    f->sha256 = json_object_object_get_ex(fo, "hashes", &v) ? hashes_sha256(a, v) : NULL;
    if (!f->sha256)
        f->sha256 = frag;
    if (json_object_object_get_ex(fo, "size", &v) && json_object_is_type(v, json_type_int) &&
        json_object_get_int64(v) >= 0)
        f->size = json_object_get_int64(v);
    const char *ut = jstr(fo, "upload-time");
    if (ut) {
        f->upload_time = arena_strdup(a, ut);
        if (!pypi_time_parse(ut, &f->upload_s))
            f->upload_s = INT64_MIN;
    }
    const char *rp = jstr(fo, "requires-python");
    if (rp && *rp)
        f->requires_python = arena_strdup(a, rp);
    json_file_flags(a, fo, f);
}

static el_code parse_json(el_ctx *ctx, arena *a, const char *body, size_t len,
                          const char *page_url, const char *read_url, pypi_page *out)
{
    json_object *root;
    el_code rc = json_document(ctx, body, len, page_url, &root);
    if (rc != EL_OK)
        return rc;
    json_object *meta, *files;
    if (!json_object_is_type(root, json_type_object)) {
        rc = bad_page(ctx, page_url, "the JSON document is not an object");
        goto done;
    }
    if (json_object_object_get_ex(root, "meta", &meta) &&
        json_object_is_type(meta, json_type_object)) {
        const char *av = jstr(meta, "api-version");
        if (av && (rc = api_version(ctx, a, page_url, av, out)) != EL_OK)
            goto done;
    }
    if (!json_object_object_get_ex(root, "files", &files) ||
        !json_object_is_type(files, json_type_array)) {
        rc = bad_page(ctx, page_url, "no \"files\" array");
        goto done;
    }
    filevec fv = { 0 };
    size_t n = json_object_array_length(files);
    for (size_t i = 0; i < n; i++)
        json_file(a, json_object_array_get_idx(files, i), page_url, read_url, &fv);
    files_finish(a, &fv, out);
done:
    json_object_put(root);
    return rc;
}

/* ---- PEP 503 HTML ---- */

static char *prop(xmlNode *n, const char *name)
{
    return (char *)xmlGetProp(n, (const xmlChar *)name);
}

static bool name_is(xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && n->name &&
           strcasecmp((const char *)n->name, name) == 0;
}

/* Next node in document order, without recursion. */
static xmlNode *next_node(xmlNode *n)
{
    if (n->children)
        return n->children;
    while (n) {
        if (n->next)
            return n->next;
        n = n->parent;
        if (n && n->type == XML_DOCUMENT_NODE)
            return NULL;
        if (n && n->type == XML_HTML_DOCUMENT_NODE)
            return NULL;
    }
    return NULL;
}

static void metadata_attr(arena *a, const char *v, pypi_file *f)
{
    if (!v)
        return;
    if (strcmp(v, "true") == 0) {
        f->core_metadata = true;
        return;
    }
    const char *eq = strchr(v, '=');
    if (!eq || eq == v)
        return;
    f->core_metadata = true;
    if ((size_t)(eq - v) == 6 && strncmp(v, "sha256", 6) == 0)
        f->core_metadata_sha256 = hex_or_null(a, eq + 1, strlen(eq + 1));
}

/* libxml2 stops at the first NUL or invalid UTF-8 sequence, losing every
 * link after it; one bad byte should cost at most one link. NULs become
 * spaces and each invalid byte U+FFFD. */
static char *clean_utf8(const char *s, size_t n, size_t *out_len)
{
    strbuf sb = STRBUF_INIT;
    sb_grow(&sb, n);
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        size_t want = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
                                 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
        if (want == 1) {
            sb_addc(&sb, c ? (char)c : ' ');
            i++;
        } else if (want && i + want <= n && utf8_valid(s + i, want)) {
            sb_add(&sb, s + i, want);
            i += want;
        } else {
            sb_adds(&sb, "\xef\xbf\xbd");
            i++;
        }
    }
    return sb_detach(&sb, out_len);
}

/* <base href>: a base that is no fetchable URL is ignored (every link
 * resolved against it would be unusable). */
static void html_base(xmlNode *n, const char *page_url, const char *read_url, char **base,
                      char **read_base)
{
    char *h = prop(n, "href");
    if (!h)
        return;
    char *b = cache_url_join(page_url, h);
    if (b && !fetchable(b)) {
        free(b);
        b = NULL;
    }
    char *rb = b && read_url ? cache_url_join(read_url, h) : NULL;
    if (b) {
        free(*base);
        *base = b;
    }
    if (rb) {
        free(*read_base);
        *read_base = rb;
    }
    xmlFree(h);
}

/* First pass: <base href> and the repository version. */
static el_code html_head(el_ctx *ctx, arena *a, xmlNode *root, const char *page_url,
                         const char *read_url, char **base, char **read_base, pypi_page *out)
{
    el_code rc = EL_OK;
    for (xmlNode *n = root; n; n = next_node(n)) {
        if (name_is(n, "base")) {
            html_base(n, page_url, read_url, base, read_base);
        } else if (name_is(n, "meta")) {
            char *nm = prop(n, "name");
            if (nm && strcmp(nm, "pypi:repository-version") == 0) {
                char *c = prop(n, "content");
                if (c) {
                    el_code vrc = api_version(ctx, a, page_url, c, out);
                    if (vrc != EL_OK)
                        rc = vrc;
                    xmlFree(c);
                }
            }
            if (nm)
                xmlFree(nm);
        }
    }
    return rc;
}

/* The file name of a link: its URL's last segment, else its text. */
static char *link_filename(arena *a, xmlNode *n, const char *abs)
{
    char *fname = url_basename(a, abs);
    if (*fname)
        return fname;
    xmlChar *text = xmlNodeGetContent(n);
    if (text) {
        const char *t = (const char *)text;
        size_t tl = strlen(t);
        while (tl && isspace((unsigned char)*t))
            t++, tl--;
        while (tl && isspace((unsigned char)t[tl - 1]))
            tl--;
        fname = arena_strndup(a, t, tl);
        xmlFree(text);
    }
    return fname;
}

/* One <a>: a file unless it has no href or no name. */
static void html_link(arena *a, xmlNode *n, const char *page_url, const char *read_url,
                      const char *base, const char *read_base, filevec *fv)
{
    char *href = prop(n, "href");
    if (!href)
        return;
    const char *abs, *rd, *frag;
    const char *why = resolve(a, read_url ? read_url : page_url, base, read_base, href, &abs,
                              &rd, &frag);
    xmlFree(href);
    char *fname = link_filename(a, n, abs);
    if (!*fname)
        return;
    pypi_file *f = files_add(fv);
    f->filename = fname;
    f->bad_url = why;
    f->url = abs;
    f->read_url = rd;
    f->sha256 = frag;
    char *rp = prop(n, "data-requires-python");
    if (rp) {
        if (*rp)
            f->requires_python = arena_strdup(a, rp);
        xmlFree(rp);
    }
    char *y = prop(n, "data-yanked");
    if (y) {
        f->yanked = true;
        if (*y)
            f->yanked_reason = arena_strdup(a, y);
        xmlFree(y);
    }
    char *cm = prop(n, "data-core-metadata");
    if (!cm)
        cm = prop(n, "data-dist-info-metadata");
    if (cm) {
        metadata_attr(a, cm, f);
        xmlFree(cm);
    }
}

static el_code parse_html(el_ctx *ctx, arena *a, const char *raw, size_t raw_len,
                          const char *page_url, const char *read_url, pypi_page *out)
{
    size_t len;
    char *body = clean_utf8(raw, raw_len, &len);
    if (len > INT_MAX) {
        free(body);
        return bad_page(ctx, page_url, "the HTML document is too large");
    }
    htmlDocPtr doc = htmlReadMemory(body, (int)len, page_url, "UTF-8",
                                    HTML_PARSE_RECOVER | HTML_PARSE_NOERROR |
                                        HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
    free(body);
    filevec fv = { 0 };
    if (!doc) {
        files_finish(a, &fv, out);
        return EL_OK; /* nothing parseable: a page without files */
    }
    xmlNode *root = xmlDocGetRootElement(doc);
    char *base = xstrdup(page_url);
    char *read_base = read_url ? xstrdup(read_url) : NULL;
    el_code rc = html_head(ctx, a, root, page_url, read_url, &base, &read_base, out);
    for (xmlNode *n = root; n && rc == EL_OK; n = next_node(n))
        if (name_is(n, "a"))
            html_link(a, n, page_url, read_url, base, read_base, &fv);
    free(base);
    free(read_base);
    xmlFreeDoc(doc);
    files_finish(a, &fv, out);
    return rc;
}

int pypi_page_format_of(const char *content_type)
{
    if (!content_type)
        return -1;
    const char *s = content_type;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strcspn(s, ";");
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    /* application/vnd.pypi.simple.v1+json, .latest+json, plain JSON */
    if ((n > 5 && strncasecmp(s + n - 5, "+json", 5) == 0) ||
        (n == 16 && strncasecmp(s, "application/json", 16) == 0))
        return PYPI_PAGE_JSON;
    if ((n > 5 && strncasecmp(s + n - 5, "+html", 5) == 0) ||
        (n == 9 && strncasecmp(s, "text/html", 9) == 0) ||
        (n == 21 && strncasecmp(s, "application/xhtml+xml", 21) == 0))
        return PYPI_PAGE_HTML;
    return -1;
}

/* ---- the page's identity ---- */

static json_object *nullable(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

/* One file as the identity sees it: what PEP 503 HTML and PEP 691 JSON both
 * carry, so that either form of the same page gives the same identity. */
static char *identity_entry(const pypi_file *f)
{
    json_object *e = json_object_new_array();
    json_object_array_add(e, json_object_new_string(f->filename ? f->filename : ""));
    json_object_array_add(e, nullable(f->sha256));
    json_object_array_add(e, nullable(f->requires_python));
    json_object_array_add(e, f->yanked && f->yanked_reason && *f->yanked_reason
                                 ? json_object_new_string(f->yanked_reason)
                                 : json_object_new_boolean(f->yanked));
    json_object_array_add(e, f->core_metadata_sha256
                                 ? json_object_new_string(f->core_metadata_sha256)
                                 : json_object_new_boolean(f->core_metadata));
    char *text = xstrdup(json_object_to_json_string_ext(
        e, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(e);
    return text;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void pypi_page_identity(const pypi_page *pg, char out[PYPI_IDENTITY_LEN])
{
    char **v = xcalloc(pg->nfiles + 1, sizeof *v);
    for (size_t i = 0; i < pg->nfiles; i++)
        v[i] = identity_entry(&pg->files[i]);
    qsort(v, pg->nfiles, sizeof *v, str_cmp);
    sha256_stream *h = sha256_begin();
    sha256_update(h, "[", 1);
    for (size_t i = 0; i < pg->nfiles; i++) {
        if (i)
            sha256_update(h, ",", 1);
        sha256_update(h, v[i], strlen(v[i]));
        free(v[i]);
    }
    sha256_update(h, "]", 1);
    free(v);
    char hex[65];
    sha256_end(h, hex);
    snprintf(out, PYPI_IDENTITY_LEN, "sha256:%s", hex);
}

el_code pypi_page_parse(el_ctx *ctx, arena *a, const char *body, size_t len,
                        const char *page_url, pypi_page *out)
{
    return pypi_page_parse_typed(ctx, a, body, len, page_url, NULL, out);
}

el_code pypi_page_parse_typed(el_ctx *ctx, arena *a, const char *body, size_t len,
                              const char *page_url, const char *content_type, pypi_page *out)
{
    return pypi_page_parse_read(ctx, a, body, len, page_url, NULL, content_type, out);
}

el_code pypi_page_parse_read(el_ctx *ctx, arena *a, const char *body, size_t len,
                             const char *page_url, const char *read_url,
                             const char *content_type, pypi_page *out)
{
    memset(out, 0, sizeof *out);
    size_t i = 0;
    if (len >= 3 && memcmp(body, "\xef\xbb\xbf", 3) == 0)
        i = 3;
    while (i < len && isspace((unsigned char)body[i]))
        i++;
    int declared = pypi_page_format_of(content_type);
    if (declared == PYPI_PAGE_JSON || (declared < 0 && i < len && body[i] == '{')) {
        out->format = PYPI_PAGE_JSON;
        return parse_json(ctx, a, body + i, len - i, page_url, read_url, out);
    }
    out->format = PYPI_PAGE_HTML;
    return parse_html(ctx, a, body, len, page_url, read_url, out);
}
