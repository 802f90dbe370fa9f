/* fuzz_spec.c — the spec loader end to end: YAML, DataGen detection, model,
 * rules, findings, and (when valid) the digest and normalized output. */
#include <stdint.h>
#include <stdlib.h>

#include "envlock.h"
#include "test_bases.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    el_ctx *ctx = el_ctx_new();
    el_spec *spec = el_spec_load_text(ctx, (const char *)data, size, "fuzz",
                                      test_spec_opts());
    if (spec) {
        if (el_spec_validate(ctx, spec) == EL_OK) {
            char digest[EL_DIGEST_SIZE];
            if (el_spec_digest(ctx, spec, digest) != EL_OK)
                abort(); /* a valid spec always has a digest */
            el_free(el_spec_normalized_json(ctx, spec, true));
        } else {
            char *body = el_ctx_error_json(ctx, false);
            el_free(body);
        }
        el_spec_free(spec);
    }
    el_ctx_free(ctx);
    return 0;
}
