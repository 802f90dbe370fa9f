/* test_bases.h — the spec options a test loads specs with: the approved
 * bases come from the built-in catalog (corpus/bases/bases.yaml, path given
 * by CMake as TEST_BASES_YAML), as the CLI takes them, since the catalog is
 * their only owner. Loaded once per process and kept to the end. */
#ifndef ENVLOCK_TEST_BASES_H
#define ENVLOCK_TEST_BASES_H

#include <stdio.h>
#include <stdlib.h>

#include "envlock.h"
#include "envlock/bases.h"

static inline const el_bases *test_bases(void)
{
    static el_bases *bases;
    if (!bases) {
        el_ctx *ctx = el_ctx_new();
        bases = el_bases_load(ctx, TEST_BASES_YAML);
        if (!bases) {
            fprintf(stderr, "test_bases: %s\n", el_ctx_message(ctx));
            abort();
        }
        el_ctx_free(ctx);
    }
    return bases;
}

/* test_spec_options() : options with `format` and `template_name` and the
 * built-in catalog's bases; the pointer stays valid until the next call. */
static inline const el_spec_options *test_spec_options(el_spec_format format,
                                                       const char *template_name)
{
    static el_spec_options so;
    so = (el_spec_options){ .format = format, .template_name = template_name };
    so.bases = el_bases_spec_view(test_bases(), &so.n_bases);
    return &so;
}

/* test_spec_opts() : auto-detected format, no template, the built-in bases. */
static inline const el_spec_options *test_spec_opts(void)
{
    return test_spec_options(EL_SPEC_FORMAT_AUTO, NULL);
}

/* test_first_base() : the base a DataGen recipe is placed on. */
static inline const el_spec_base *test_first_base(void)
{
    size_t n = 0;
    return el_bases_spec_view(test_bases(), &n);
}

#endif
