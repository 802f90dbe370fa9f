/* pypi_page_write.c — the other direction of pypi_page.c: project pages and
 * the project list of a simple index written as PEP 691 JSON (json-c) and
 * PEP 503 HTML (libxml2's HTML serializer), from the file records a page
 * was parsed into, so a static mirror (`envlock bundle`) lists exactly what
 * the page it copies listed (read with pypi_page_read(), as the loader
 * reads it). Knows nothing of where the files are kept: the caller gives
 * every file's link. */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <libxml/HTMLtree.h>
#include <libxml/tree.h>

#include "pypi_page_write.h"

/* The version a file name carries, for PEP 700's `versions` list: a
 * wheel's second part, an sdist's text after the last '-' before its
 * extension. NULL when neither reads. Caller frees. */
static char *file_version(const char *filename)
{
    size_t n = strlen(filename);
    if (n > 4 && strcmp(filename + n - 4, ".whl") == 0) {
        arena *a = arena_new();
        pypi_wheel_name w;
        char *err = NULL, *v = NULL;
        if (pypi_wheel_name_parse(a, filename, &w, &err))
            v = xstrdup(w.version);
        free(err);
        arena_free(a);
        return v;
    }
    static const char *const exts[] = { ".tar.gz", ".tar.bz2", ".zip", ".tgz" };
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t e = strlen(exts[i]);
        if (n > e && strcmp(filename + n - e, exts[i]) == 0) {
            char *stem = xstrndup(filename, n - e);
            char *dash = strrchr(stem, '-');
            char *v = dash && dash[1] ? xstrdup(dash + 1) : NULL;
            free(stem);
            return v;
        }
    }
    return NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* PEP 700's versions: every version a file names, sorted, once each. */
static json_object *versions_of(const pypi_file *files, size_t n)
{
    char **v = xcalloc(n + 1, sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if ((v[k] = file_version(files[i].filename)))
            k++;
    qsort(v, k, sizeof *v, cmp_str);
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < k; i++) {
        if (i == 0 || strcmp(v[i], v[i - 1]) != 0)
            json_object_array_add(arr, json_object_new_string(v[i]));
    }
    for (size_t i = 0; i < k; i++)
        free(v[i]);
    free(v);
    return arr;
}

static json_object *file_json(const pypi_file *f, const char *href)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "filename", json_object_new_string(f->filename));
    json_object_object_add(o, "url", json_object_new_string(href));
    json_object *h = json_object_new_object();
    if (f->sha256)
        json_object_object_add(h, "sha256", json_object_new_string(f->sha256));
    json_object_object_add(o, "hashes", h);
    if (f->requires_python)
        json_object_object_add(o, "requires-python", json_object_new_string(f->requires_python));
    if (f->yanked && f->yanked_reason)
        json_object_object_add(o, "yanked", json_object_new_string(f->yanked_reason));
    else
        json_object_object_add(o, "yanked", json_object_new_boolean(f->yanked));
    if (f->size >= 0)
        json_object_object_add(o, "size", json_object_new_int64(f->size));
    if (f->upload_time)
        json_object_object_add(o, "upload-time", json_object_new_string(f->upload_time));
    if (f->core_metadata) {
        /* PEP 714's key, and PEP 658's older one for older clients. */
        for (int k = 0; k < 2; k++) {
            json_object *m;
            if (f->core_metadata_sha256) {
                m = json_object_new_object();
                json_object_object_add(m, "sha256", json_object_new_string(f->core_metadata_sha256));
            } else {
                m = json_object_new_boolean(true);
            }
            json_object_object_add(o, k ? "dist-info-metadata" : "core-metadata", m);
        }
    }
    return o;
}

void pypi_page_write_json(const char *name, const pypi_file *files, size_t n,
                          const char *const *hrefs, strbuf *out)
{
    /* PEP 700 (1.1) promises a size for every file; a page read without
     * them (PEP 503 HTML) is written as 1.0. */
    bool sized = true;
    for (size_t i = 0; i < n; i++)
        sized = sized && files[i].size >= 0;
    json_object *root = json_object_new_object(), *meta = json_object_new_object();
    json_object_object_add(meta, "api-version", json_object_new_string(sized ? "1.1" : "1.0"));
    json_object_object_add(root, "meta", meta);
    json_object_object_add(root, "name", json_object_new_string(name));
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < n; i++)
        json_object_array_add(arr, file_json(&files[i], hrefs[i]));
    json_object_object_add(root, "files", arr);
    if (sized)
        json_object_object_add(root, "versions", versions_of(files, n));
    sb_adds(out, json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN |
                                                          JSON_C_TO_STRING_NOSLASHESCAPE));
    sb_addc(out, '\n');
    json_object_put(root);
}

/* An HTML document with <title> and an <h1> of `title`; *body is <body>. */
static htmlDocPtr html_doc(const char *title, xmlNodePtr *body)
{
    htmlDocPtr doc = htmlNewDoc(NULL, NULL);
    xmlNodePtr html = xmlNewNode(NULL, BAD_CAST "html");
    xmlDocSetRootElement(doc, html);
    xmlNodePtr head = xmlNewChild(html, NULL, BAD_CAST "head", NULL);
    xmlNodePtr m = xmlNewChild(head, NULL, BAD_CAST "meta", NULL);
    xmlNewProp(m, BAD_CAST "name", BAD_CAST "pypi:repository-version");
    xmlNewProp(m, BAD_CAST "content", BAD_CAST "1.0");
    xmlNewTextChild(head, NULL, BAD_CAST "title", BAD_CAST title);
    *body = xmlNewChild(html, NULL, BAD_CAST "body", NULL);
    xmlNewTextChild(*body, NULL, BAD_CAST "h1", BAD_CAST title);
    return doc;
}

static void html_out(htmlDocPtr doc, strbuf *out)
{
    xmlChar *mem = NULL;
    int len = 0;
    htmlDocDumpMemoryFormat(doc, &mem, &len, 1);
    sb_add(out, mem, (size_t)(len > 0 ? len : 0));
    xmlFree(mem);
    xmlFreeDoc(doc);
}

void pypi_page_write_html(const char *name, const pypi_file *files, size_t n,
                          const char *const *hrefs, strbuf *out)
{
    char *title = xasprintf("Links for %s", name);
    xmlNodePtr body;
    htmlDocPtr doc = html_doc(title, &body);
    free(title);
    for (size_t i = 0; i < n; i++) {
        const pypi_file *f = &files[i];
        char *href = f->sha256 ? xasprintf("%s#sha256=%s", hrefs[i], f->sha256) : xstrdup(hrefs[i]);
        xmlNodePtr a = xmlNewTextChild(body, NULL, BAD_CAST "a", BAD_CAST f->filename);
        xmlNewProp(a, BAD_CAST "href", BAD_CAST href);
        free(href);
        if (f->requires_python)
            xmlNewProp(a, BAD_CAST "data-requires-python", BAD_CAST f->requires_python);
        if (f->yanked)
            xmlNewProp(a, BAD_CAST "data-yanked", BAD_CAST(f->yanked_reason ? f->yanked_reason : ""));
        if (f->core_metadata) {
            char *v = f->core_metadata_sha256 ? xasprintf("sha256=%s", f->core_metadata_sha256)
                                              : xstrdup("true");
            xmlNewProp(a, BAD_CAST "data-core-metadata", BAD_CAST v);
            xmlNewProp(a, BAD_CAST "data-dist-info-metadata", BAD_CAST v);
            free(v);
        }
        xmlNewChild(body, NULL, BAD_CAST "br", NULL);
    }
    html_out(doc, out);
}

void pypi_index_write_json(const char *const *names, size_t n, strbuf *out)
{
    json_object *root = json_object_new_object(), *meta = json_object_new_object();
    json_object_object_add(meta, "api-version", json_object_new_string("1.0"));
    json_object_object_add(root, "meta", meta);
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        json_object *p = json_object_new_object();
        json_object_object_add(p, "name", json_object_new_string(names[i]));
        json_object_array_add(arr, p);
    }
    json_object_object_add(root, "projects", arr);
    sb_adds(out, json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN |
                                                          JSON_C_TO_STRING_NOSLASHESCAPE));
    sb_addc(out, '\n');
    json_object_put(root);
}

void pypi_index_write_html(const char *const *names, size_t n, strbuf *out)
{
    xmlNodePtr body;
    htmlDocPtr doc = html_doc("Simple index", &body);
    for (size_t i = 0; i < n; i++) {
        char *href = xasprintf("%s/", names[i]);
        xmlNodePtr a = xmlNewTextChild(body, NULL, BAD_CAST "a", BAD_CAST names[i]);
        xmlNewProp(a, BAD_CAST "href", BAD_CAST href);
        free(href);
        xmlNewChild(body, NULL, BAD_CAST "br", NULL);
    }
    html_out(doc, out);
}
