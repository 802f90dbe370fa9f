/* conda_index_load.c — channels to canonical URLs and their repodata.json
 * documents through one cache run (conda_index.h). This file owns which
 * URLs are asked for and how a missing subdir reads; the wire format is
 * conda_repodata.c's, and fetching, revalidation, mirrors and offline
 * answers are cache/'s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <json-c/json.h>

#include "util.h"
#include "conda_index.h"

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '-';
}

/* A channel name: `/`-separated segments of name characters, none empty
 * and none `.` or `..` (a name becomes a URL path). */
static bool channel_name_ok(const char *s)
{
    size_t seg = 0;
    const char *start = s;
    for (const char *p = s;; p++) {
        if (*p == '/' || *p == '\0') {
            if (seg == 0 || (seg == 1 && start[0] == '.') ||
                (seg == 2 && start[0] == '.' && start[1] == '.'))
                return false;
            if (*p == '\0')
                return true;
            seg = 0;
            start = p + 1;
        } else if (!name_char(*p)) {
            return false;
        } else {
            seg++;
        }
    }
}

/* Credentials in a channel URL: a userinfo before the host, or an
 * anaconda.org token segment `/t/<token>/`. */
static bool has_credentials(const char *url)
{
    const char *host = strstr(url, "://");
    host = host ? host + 3 : url;
    size_t hl = strcspn(host, "/");
    return memchr(host, '@', hl) != NULL || strstr(host + hl, "/t/") != NULL;
}

char *conda_channel_url(const char *channel, const char **why)
{
    *why = NULL;
    if (!channel || !*channel) {
        *why = "is empty";
        return NULL;
    }
    size_t n = strlen(channel);
    while (n > 1 && channel[n - 1] == '/')
        n--;
    char *c = xstrndup(channel, n);
    if (strstr(c, "://")) {
        if (strncmp(c, "https://", 8) != 0 && strncmp(c, "http://", 7) != 0 &&
            strncmp(c, "file://", 7) != 0)
            *why = "is a URL whose scheme is not https, http or file";
        else if (has_credentials(c))
            *why = "carries a credential in its URL; reference the credential in `buildSecrets`";
        else if (strlen(c) > 2048)
            *why = "is a URL over 2048 bytes";
        if (*why) {
            free(c);
            return NULL;
        }
        return c;
    }
    if (strcmp(c, "defaults") == 0)
        *why = "stands for several Anaconda channels; name them (for example "
               "https://repo.anaconda.com/pkgs/main)";
    else if (n > 255 || !channel_name_ok(c))
        *why = "is not a channel name ([A-Za-z0-9._-] segments separated by `/`) or URL";
    char *url = *why ? NULL : xasprintf("%s/%s", CONDA_CHANNEL_ALIAS, c);
    free(c);
    return url;
}

const char *conda_target_subdir(const char *deb_arch)
{
    static const char *const map[][2] = {
        {"amd64", "linux-64"}, {"arm64", "linux-aarch64"}, {"ppc64el", "linux-ppc64le"},
        {"s390x", "linux-s390x"}};
    if (!deb_arch)
        return "linux-64";
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i][0], deb_arch) == 0)
            return map[i][1];
    return NULL;
}

/* One document's load, between submit and the end of the run. */
typedef struct pending {
    conda_subdir_load *slot;
    const conda_load_options *o;
    arena *a;
    cache_failure fail; /* the fetch's or the parse's failure; EL_OK: none */
} pending;

/* The parser's failure (on a scratch context: a run parses many
 * documents, the load reports the first in channel order) kept as a
 * cache_failure, so both kinds are reported the one way. */
static void parse_failed(pending *p, el_ctx *scratch)
{
    json_object *d = el_ctx_detail(scratch), *reason = NULL;
    if (d)
        json_object_object_get_ex(d, "reason", &reason);
    p->fail = (cache_failure){.code = el_ctx_code(scratch),
                              .reason = arena_strdup(p->a, reason ? json_object_get_string(reason)
                                                                  : "repodata_invalid"),
                              .message = arena_strdup(p->a, el_ctx_message(scratch)),
                              .url = p->slot->url};
}

/* The blob that remembers a platform subdir's 404 for --offline runs
 * (the cache keeps no failed responses). Only read on an offline miss, so
 * a subdir that appears later is fetched as soon as the network is back. */
static bool absent_marker(cache *c, const char *url, bool put)
{
    char key[65];
    sha256_hex(url, strlen(url), key);
    char *name = xasprintf("conda-absent-%s", key);
    unsigned char *data = NULL;
    size_t len = 0;
    bool ok = put ? cache_blob_put(c, name, "404", 3) : cache_blob_get(c, name, &data, &len);
    free(data);
    free(name);
    return ok;
}

/* The parsed form `name`, mapped, not copied: only the records of the
 * names a resolve reaches are decoded (the reader walks the rest once,
 * without allocating). cache_blob_open() has checked the bytes
 * (their CRC-32, or the seal of an entry unchanged since), so the form's
 * own CRC is not computed again. */
static bool read_blob(cache *c, const char *name, const char *sha256,
                      const conda_repodata_options *ro, conda_repodata **out)
{
    const unsigned char *data;
    size_t len = 0, map_len = 0;
    void *map;
    if (!cache_blob_map(c, name, &data, &len, &map, &map_len))
        return false;
    if (!conda_repodata_blob_read(data, len, sha256, ro, true, out)) {
        munmap(map, map_len);
        return false;
    }
    (*out)->map_ = map;
    (*out)->map_len_ = map_len;
    return true;
}

static void parse_body(cache *c, cache_response *r, pending *p, const conda_repodata_options *ro,
                       const char *blob);

static void done(cache *c, cache_response *r, void *user)
{
    pending *p = user;
    conda_subdir_load *s = p->slot;
    if (r->code != EL_OK) {
        /* conda reads a platform subdir a channel lacks as empty; a channel
         * without noarch does not exist. */
        bool platform = strcmp(s->subdir, "noarch") != 0;
        if (platform && r->status == 404) {
            s->absent = true;
            absent_marker(c, s->url, true);
        } else if (platform && r->reason && strcmp(r->reason, "offline_cache_miss") == 0 &&
                   absent_marker(c, s->url, false)) {
            s->absent = true;
            s->from_cache = true;
        } else {
            cache_failure f = cache_failure_of(r);
            p->fail = cache_failure_copy(&f, p->a);
        }
        return;
    }
    s->from_cache = r->from_cache;
    s->etag = r->etag ? arena_strdup(p->a, r->etag) : NULL;
    s->body_sha256 = r->sha256 ? arena_strdup(p->a, r->sha256) : NULL;
    conda_repodata_options ro = {.channel = s->channel, .subdir = s->subdir,
                                 .max_bytes = p->o->max_bytes, .cutoff_ms = p->o->cutoff_ms};
    char *blob = r->sha256 ? conda_repodata_blob_name(r->sha256, &ro) : NULL;
    if (blob && read_blob(c, blob, r->sha256, &ro, &s->repodata)) {
        s->from_parsed_form = true;
        free(blob);
        return;
    }
    parse_body(c, r, p, &ro, blob);
    free(blob);
}

/* The body parsed (read from the cache when it was deferred), and its
 * parsed form stored under `blob` for the next run (best effort, without
 * fsyncs: a blob lost in a crash costs one parse). */
static void parse_body(cache *c, cache_response *r, pending *p, const conda_repodata_options *ro,
                       const char *blob)
{
    conda_subdir_load *s = p->slot;
    const unsigned char *body = cache_response_body(c, r);
    if (!body) {
        p->fail = (cache_failure){.code = EL_PACKAGE_NOT_FOUND, .reason = "cache_entry_gone",
                                  .message = arena_sprintf(p->a, "`%s` could not be read back from the cache",
                                                           s->url),
                                  .url = s->url, .retryable = true};
        return;
    }
    el_ctx *scratch = el_ctx_new();
    if (conda_repodata_parse(scratch, (const char *)body, r->len, ro, &s->repodata) != EL_OK)
        parse_failed(p, scratch);
    el_ctx_free(scratch);
    if (s->repodata && blob) {
        strbuf sb = STRBUF_INIT;
        conda_repodata_blob_write(s->repodata, r->sha256, ro, &sb);
        cache_blob_put_lazy(c, blob, sb.buf, sb.len);
        sb_release(&sb);
    }
}

/* The channels as canonical URLs, or an error naming the first bad one. */
static el_code channel_urls(el_ctx *ctx, const conda_load_options *o, arena *a, const char ***urls,
                            size_t *n)
{
    static const char *const fallback[] = {CONDA_DEFAULT_CHANNEL};
    const char *const *ch = o->n_channels ? o->channels : fallback;
    *n = o->n_channels ? o->n_channels : 1;
    if (*n > CONDA_MAX_CHANNELS) {
        el_fail(ctx, EL_SPEC_INVALID, "%zu channels are more than %d", *n, CONDA_MAX_CHANNELS);
        el_detail_str(ctx, "reason", "bad_channel");
        return EL_SPEC_INVALID;
    }
    *urls = arena_alloc(a, *n * sizeof **urls);
    for (size_t i = 0; i < *n; i++) {
        const char *why;
        char *u = conda_channel_url(ch[i], &why);
        if (!u) {
            el_fail(ctx, EL_SPEC_INVALID, "channel `%s` %s", arena_shown(a, ch[i] ? ch[i] : "", 256), why);
            el_detail_str(ctx, "reason", "bad_channel");
            el_detail_str(ctx, "channel", arena_shown(a, ch[i] ? ch[i] : "", 256));
            return EL_SPEC_INVALID;
        }
        (*urls)[i] = arena_strdup(a, u);
        free(u);
    }
    return EL_OK;
}

/* The first failure in channel order becomes the load's error. */
static el_code first_failure(el_ctx *ctx, pending *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i].fail.code != EL_OK)
            return cache_failure_report(ctx, &p[i].fail);
    return EL_OK;
}

el_code conda_channels_load(el_ctx *ctx, cache *c, const conda_load_options *o,
                            conda_channel_set **out)
{
    *out = NULL;
    conda_load_options none = {0};
    o = o ? o : &none;
    const char *platform = conda_target_subdir(o->deb_arch);
    if (!platform) {
        el_fail(ctx, EL_SPEC_INVALID, "no conda subdir serves the architecture `%s`", o->deb_arch);
        el_detail_str(ctx, "reason", "unsupported_arch");
        return EL_SPEC_INVALID;
    }
    conda_channel_set *set = xcalloc(1, sizeof *set);
    arena *a = arena_new();
    set->arena_ = a;
    const char **urls;
    size_t nch;
    el_code rc = channel_urls(ctx, o, a, &urls, &nch);
    if (rc != EL_OK) {
        conda_channel_set_free(set);
        return rc;
    }
    set->n_subdirs = 2 * nch;
    set->subdirs = xcalloc(set->n_subdirs, sizeof *set->subdirs);
    pending *p = xcalloc(set->n_subdirs, sizeof *p);
    for (size_t i = 0; i < set->n_subdirs; i++) {
        conda_subdir_load *s = &set->subdirs[i];
        s->channel = urls[i / 2];
        s->subdir = i % 2 ? "noarch" : platform;
        s->url = arena_sprintf(a, "%s/%s/repodata.json", s->channel, s->subdir);
        p[i] = (pending){.slot = s, .o = o, .a = a};
        uint64_t cap = o->max_bytes ? o->max_bytes : CONDA_REPODATA_MAX_BYTES;
        cache_submit(c, &(cache_request){.url = s->url, .accept = "application/json",
                                         .policy = CACHE_REVALIDATE, .max_bytes = cap,
                                         .body_on_demand = true,
                                         .done = done, .user = &p[i]});
    }
    rc = cache_run(c, ctx);
    if (rc == EL_OK)
        rc = first_failure(ctx, p, set->n_subdirs);
    free(p);
    if (rc != EL_OK) {
        conda_channel_set_free(set);
        return rc;
    }
    *out = set;
    return EL_OK;
}

void conda_channel_set_free(conda_channel_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_subdirs; i++)
        conda_repodata_free(s->subdirs[i].repodata);
    free(s->subdirs);
    arena_free(s->arena_);
    free(s);
}
