/* fuzz_policy.c — libFuzzer target for the policy file reader
 * (policy/policy.h). The input is the file; a loaded policy is asked about
 * a few fixed URLs, versions, release times and licenses of each
 * ecosystem. The input is also read as an SPDX license expression. Nothing
 * may crash or leak; a refusal always names the file and carries a DL_ENV
 * code. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *expr = malloc(size + 1);
    memcpy(expr, data, size);
    expr[size] = '\0';
    static const char *const allow[] = { "MIT", "Apache-2.0", "GPL-2.0+" };
    bool admitted;
    spdx_expr_admits(expr, allow, 3, &admitted);
    free(expr);
    el_ctx *ctx = el_ctx_new();
    policy *p = policy_parse(ctx, "fuzz.yaml", (const char *)data, size);
    if (!p) {
        el_code c = el_ctx_code(ctx);
        CHECK(c == EL_SPEC_INVALID || c == EL_CAPABILITY_UNSUPPORTED);
        CHECK(strncmp(el_ctx_message(ctx), "policy fuzz.yaml:", 17) == 0);
        el_ctx_free(ctx);
        return 0;
    }
    static const char *const urls[] = { "https://pypi.org/simple", "http://h", "", "file:///x" };
    for (size_t i = 0; i < sizeof urls / sizeof *urls; i++) {
        policy_url_allowed(&p->indexes, urls[i]);
        policy_url_allowed(&p->registries, urls[i]);
        policy_url_allowed(&p->apt_sources, urls[i]);
    }
    static const char *const versions[] = { "1.0", "1.0.0-rc.1", "2:1.0-1", "", "x" };
    for (size_t i = 0; i < sizeof versions / sizeof *versions; i++)
        for (size_t k = 0; k < p->n_deny; k++) {
            const policy_rule *r = &p->deny[k];
            policy_denies(p, r->eco, r->name, versions[i], r->name, versions[i]);
        }
    static const char *const licenses[] = { "MIT", "MIT OR (GPL-3.0-only WITH x AND ISC)",
                                            "SEE LICENSE IN x", NULL };
    static const char *const times[] = { "2026-11-30T00:00:00Z", "2026-11-30", NULL };
    for (el_ecosystem e = EL_ECO_PYPI; e <= EL_ECO_CONDA; e++) {
        for (size_t i = 0; i < sizeof licenses / sizeof *licenses; i++)
            policy_license_denies(p, e, "@acme/x", licenses[i]);
        for (size_t i = 0; i < sizeof times / sizeof *times; i++)
            policy_too_young(p, e, "acme-x", times[i], 1796083200);
    }
    policy_free(p);
    el_ctx_free(ctx);
    return 0;
}
