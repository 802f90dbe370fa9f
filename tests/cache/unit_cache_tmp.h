/* unit_cache_tmp.h — the scratch directory the cache unit tests work in:
 * a fresh one under /tmp named after UNIT_TMP_PREFIX, removed whole.
 * Included by unit_cache.c and unit_cache_hostile.c (after cmocka.h and
 * util.h). */
#ifndef UNIT_CACHE_TMP_H
#define UNIT_CACHE_TMP_H

#ifndef UNIT_TMP_PREFIX
#define UNIT_TMP_PREFIX "el-unit"
#endif

static inline char *mkdir_tmp(void)
{
    char tmpl[] = "/tmp/" UNIT_TMP_PREFIX "-XXXXXX";
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    return xstrdup(d);
}

static inline void rm_rf(const char *path)
{
    char *cmd = xasprintf("rm -rf '%s'", path);
    assert_int_equal(system(cmd), 0);
    free(cmd);
}

#endif
