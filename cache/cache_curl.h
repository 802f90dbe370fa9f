/* cache_curl.h — libcurl, loaded at the first transfer (cache_curl.c).
 * cache/ includes <curl/curl.h> for its types and constants only; every
 * call goes through this table, which cache_curl_load() fills from
 * libcurl.so.4 with dlopen, so that a run that never transfers (cache
 * hits, --offline, --version) never maps libcurl and its ~30 libraries. */
#ifndef EL_CACHE_CURL_H
#define EL_CACHE_CURL_H

#include <curl/curl.h>

#include "util.h"

/* The soname loaded: the ABI <curl/curl.h> describes. */
#define CACHE_CURL_SONAME "libcurl.so.4"

/* Exactly the libcurl functions cache/ calls, with their real types (the
 * setopt/getinfo ones are variadic, as declared by curl.h). */
typedef struct cache_curl {
    void *dl;
    CURLcode (*global_init)(long flags);
    void (*global_cleanup)(void);
    CURL *(*easy_init)(void);
    void (*easy_reset)(CURL *e);
    void (*easy_cleanup)(CURL *e);
    CURLcode (*easy_setopt)(CURL *e, CURLoption opt, ...);
    CURLcode (*easy_getinfo)(CURL *e, CURLINFO info, ...);
    const char *(*easy_strerror)(CURLcode rc);
    CURLHcode (*easy_header)(CURL *e, const char *name, size_t index, unsigned int origin,
                             int request, struct curl_header **hout);
    struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
    void (*slist_free_all)(struct curl_slist *l);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_setopt)(CURLM *m, CURLMoption opt, ...);
    CURLMcode (*multi_add_handle)(CURLM *m, CURL *e);
    CURLMcode (*multi_remove_handle)(CURLM *m, CURL *e);
    CURLMcode (*multi_perform)(CURLM *m, int *running);
    CURLMcode (*multi_poll)(CURLM *m, struct curl_waitfd extra_fds[], unsigned int n_extra,
                            int timeout_ms, int *ret);
    CURLMsg *(*multi_info_read)(CURLM *m, int *left);
    CURLMcode (*multi_cleanup)(CURLM *m);
    CURLSH *(*share_init)(void);
    CURLSHcode (*share_setopt)(CURLSH *s, CURLSHoption opt, ...);
    CURLSHcode (*share_cleanup)(CURLSH *s);
} cache_curl;

/* cache_curl_load() :
 *  dlopen()s libcurl.so.4 (RTLD_NOW | RTLD_LOCAL; the loader refcounts it,
 *  so each cache object holds its own reference), resolves every entry of
 *  the table and runs curl_global_init(CURL_GLOBAL_DEFAULT). NULL after
 *  recording EL_INTERNAL (naming the library and what failed) on ctx. */
cache_curl *cache_curl_load(el_ctx *ctx);

/* cache_curl_unload() : curl_global_cleanup() and dlclose(); NULL is a no-op.
 *  Every handle made through the table must be cleaned up before. */
void cache_curl_unload(cache_curl *cu);

#endif
