/* fuzz_lock_read.c — libFuzzer target for the lock reader (lockfile/). Any
 * input either fails with DL_ENV_SPEC_INVALID and a detail naming reason
 * invalid_lock with a positive line and column, or reads into a doc whose
 * canonical text reads back and writes again byte for byte (the writer's
 * output is a fixed point). Accepted docs also go through lock_check() with
 * roots naming their packages, which must answer without failing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lock.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return 0;
    el_ctx *ctx = el_ctx_new();
    lock_doc *d = lock_read_text(ctx, (const char *)data, size);
    if (!d) {
        CHECK(el_ctx_code(ctx) == EL_SPEC_INVALID);
        struct json_object *det = el_ctx_detail(ctx), *v;
        CHECK(json_object_object_get_ex(det, "reason", &v));
        CHECK(strcmp(json_object_get_string(v), "invalid_lock") == 0);
        CHECK(json_object_object_get_ex(det, "line", &v) && json_object_get_int64(v) >= 1);
        CHECK(json_object_object_get_ex(det, "column", &v) && json_object_get_int64(v) >= 1);
        CHECK(json_object_object_get_ex(det, "field", &v));
        el_ctx_free(ctx);
        return 0;
    }
    size_t len1 = 0, len2 = 0;
    char *t1 = lock_write_text(d, &len1);
    CHECK(t1 != NULL);
    lock_doc *r = lock_read_text(ctx, t1, len1);
    CHECK(r != NULL);
    char *t2 = lock_write_text(r, &len2);
    CHECK(t2 != NULL && len1 == len2 && memcmp(t1, t2, len1) == 0);

    /* check the lock against itself: roots are its own packages */
    lock_check_root roots[8];
    size_t n = 0;
    for (size_t i = 0; i < r->n_packages && n < 8; i++)
        roots[n++] = (lock_check_root){ r->packages[i].ecosystem, r->packages[i].name };
    lock_check_input in = {
        .spec_digest = r->spec_digest, .python_version = r->python_version,
        .platform = r->platform, .arch = r->arch, .base_ref = r->base_ref,
        .base_channel = r->base_channel, .variants = (const char *const *)r->variants,
        .base_digests = (const char *const *)r->base_digests,
        .exclude_newer = r->exclude_newer, .prereleases = r->prereleases,
        .roots = roots, .n_roots = n, .fresh = r->inputs, .n_fresh = r->n_inputs,
    };
    lock_report rep = { 0 };
    bool stale = false;
    el_code rc = lock_check(ctx, r, &in, &stale, &rep);
    CHECK(rc == EL_OK || rc == EL_SPEC_INVALID);
    CHECK(rc != EL_OK || stale == (rep.n > 0));
    for (size_t i = 0; i < rep.n; i++) /* a line never carries a raw control byte */
        for (const char *q = rep.v[i].text; *q; q++)
            CHECK((unsigned char)*q >= 0x20 && *q != 0x7f);
    lock_report_release(&rep);
    free(t1);
    free(t2);
    lock_doc_free(r);
    lock_doc_free(d);
    el_ctx_free(ctx);
    return 0;
}
