/* cache_curl.c — loads libcurl on demand: the function table of
 * cache_curl.h, filled by dlopen + dlsym when a cache object first has
 * something to transfer, released when that object closes. Nothing here is
 * process-global: each loaded table is one reference on the library. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cache_curl.h"

/* dlsym returns void *; ISO C has no conversion from it to a function
 * pointer, POSIX guarantees the representation, so copy the bits. */
static bool sym(void *dl, const char *name, void *fnptr, size_t size)
{
    void *p = dlsym(dl, name);
    if (!p)
        return false;
    memcpy(fnptr, &p, size);
    return true;
}

#define SYM(field, name) \
    { name, offsetof(cache_curl, field), sizeof(((cache_curl *)0)->field) }

static const struct {
    const char *name;
    size_t off;
    size_t size;
} syms[] = {
    SYM(global_init, "curl_global_init"),
    SYM(global_cleanup, "curl_global_cleanup"),
    SYM(easy_init, "curl_easy_init"),
    SYM(easy_reset, "curl_easy_reset"),
    SYM(easy_cleanup, "curl_easy_cleanup"),
    SYM(easy_setopt, "curl_easy_setopt"),
    SYM(easy_getinfo, "curl_easy_getinfo"),
    SYM(easy_strerror, "curl_easy_strerror"),
    SYM(easy_header, "curl_easy_header"),
    SYM(slist_append, "curl_slist_append"),
    SYM(slist_free_all, "curl_slist_free_all"),
    SYM(multi_init, "curl_multi_init"),
    SYM(multi_setopt, "curl_multi_setopt"),
    SYM(multi_add_handle, "curl_multi_add_handle"),
    SYM(multi_remove_handle, "curl_multi_remove_handle"),
    SYM(multi_perform, "curl_multi_perform"),
    SYM(multi_poll, "curl_multi_poll"),
    SYM(multi_info_read, "curl_multi_info_read"),
    SYM(multi_cleanup, "curl_multi_cleanup"),
    SYM(share_init, "curl_share_init"),
    SYM(share_setopt, "curl_share_setopt"),
    SYM(share_cleanup, "curl_share_cleanup"),
};

cache_curl *cache_curl_load(el_ctx *ctx)
{
    /* RTLD_NODELETE: libcurl, and the TLS and resolver libraries it brings,
     * stay mapped after dlclose(). They register thread-local destructors
     * and exit handlers (OpenSSL does); unmapping their code before exit
     * left those pointing nowhere (LeakSanitizer's exit scan crashed). */
    void *dl = dlopen(CACHE_CURL_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!dl) {
        const char *why = dlerror();
        /* a machine without (a loadable) libcurl is set up wrong, not a bug:
         * IO_ERROR, not retryable until someone installs it */
        el_fail(ctx, EL_IO, "cannot load %s (libcurl, needed to fetch; install libcurl4): %s",
                CACHE_CURL_SONAME, why ? why : "unknown error");
        el_detail_str(ctx, "reason", "libcurl_unavailable");
        el_detail_str(ctx, "library", CACHE_CURL_SONAME);
        el_set_retryable(ctx, false);
        return NULL;
    }
    cache_curl *cu = xcalloc(1, sizeof *cu);
    cu->dl = dl;
    for (size_t i = 0; i < sizeof syms / sizeof *syms; i++) {
        if (!sym(dl, syms[i].name, (char *)cu + syms[i].off, syms[i].size)) {
            el_fail(ctx, EL_IO, "%s has no %s: libcurl 7.84 or later is needed",
                    CACHE_CURL_SONAME, syms[i].name);
            el_detail_str(ctx, "reason", "libcurl_too_old");
            el_detail_str(ctx, "library", CACHE_CURL_SONAME);
            el_set_retryable(ctx, false);
            dlclose(dl);
            free(cu);
            return NULL;
        }
    }
    if (cu->global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        el_fail(ctx, EL_IO, "%s failed to initialize", CACHE_CURL_SONAME);
        el_detail_str(ctx, "reason", "libcurl_init_failed");
        el_detail_str(ctx, "library", CACHE_CURL_SONAME);
        el_set_retryable(ctx, false);
        dlclose(dl);
        free(cu);
        return NULL;
    }
    return cu;
}

void cache_curl_unload(cache_curl *cu)
{
    if (!cu)
        return;
    cu->global_cleanup();
    dlclose(cu->dl);
    free(cu);
}
