/* fuzz_conda_repodata.c — libFuzzer target for indexes/conda's
 * repodata.json reader. Checks that nothing crashes, that a refusal is a
 * DL_ENV_PACKAGE_NOT_FOUND value, and that a load keeps its promises:
 * records sorted by file name, every record's file name built from its
 * name, version and build, every depends/constrains entry a match spec,
 * and the parsed form (conda_repodata_blob_*) giving the same load back. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "condaspec.h"
#include "conda_repodata.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    el_ctx *ctx = el_ctx_new();
    /* a cutoff so that the after_cutoff exclusion runs too */
    conda_repodata_options o = {.channel = "fuzz", .max_bytes = 1u << 20, .max_records = 10000,
                                .cutoff_ms = 1700000000000};
    conda_repodata *r = NULL;
    el_code rc = conda_repodata_parse(ctx, (const char *)data, size, &o, &r);
    if (rc != EL_OK) {
        CHECK(rc == EL_PACKAGE_NOT_FOUND && r == NULL);
        el_ctx_free(ctx);
        return 0;
    }
    for (size_t i = 0; i < r->n_records; i++) {
        const conda_record *c = &r->records[i];
        if (i)
            CHECK(strcmp(r->records[i - 1].fn, c->fn) <= 0);
        CHECK(strncmp(c->fn, c->name, strlen(c->name)) == 0);
        CHECK(strstr(c->fn, c->build) != NULL && strchr(c->fn, '/') == NULL);
        for (size_t k = 0; k < c->n_depends; k++) {
            conda_matchspec *ms = conda_matchspec_parse(c->depends[k], strlen(c->depends[k]), NULL);
            CHECK(ms != NULL);
            conda_matchspec_free(ms);
        }
        CHECK(!c->sha256 || strlen(c->sha256) == 64);
    }
    /* The parsed form gives the same load back, name by name... */
    static const char sha[] = "0000000000000000000000000000000000000000000000000000000000000000";
    strbuf sb = STRBUF_INIT;
    conda_repodata_blob_write(r, sha, &o, &sb);
    conda_repodata *back = NULL;
    CHECK(conda_repodata_blob_read((const unsigned char *)sb.buf, sb.len, sha, &o, false, &back));
    CHECK(back->n_records == r->n_records && back->n_excluded == r->n_excluded);
    CHECK(conda_repodata_n_names(back) == conda_repodata_n_names(r));
    size_t total = 0;
    for (size_t i = 0; i < conda_repodata_n_names(r); i++) {
        size_t na = 0, nb = 0;
        const conda_record *const *ra = conda_repodata_records_at(r, i, &na);
        const conda_record *const *rb = conda_repodata_records_at(back, i, &nb);
        CHECK(na == nb && na > 0 && !strcmp(conda_repodata_name_at(r, i), conda_repodata_name_at(back, i)));
        for (size_t k = 0; k < na; k++) {
            const conda_record *a = ra[k], *b = rb[k];
            CHECK(!strcmp(a->fn, b->fn) && !strcmp(a->name, b->name) && !strcmp(a->version, b->version) &&
                  a->n_depends == b->n_depends && a->timestamp_ms == b->timestamp_ms &&
                  a->build_number == b->build_number);
            for (size_t d = 0; d < a->n_depends; d++)
                CHECK(!strcmp(a->depends[d], b->depends[d]));
        }
        total += na;
    }
    CHECK(total == r->n_records);
    /* ...a form damaged anywhere is refused or reads (never crashes)... */
    for (size_t i = 0; i < sb.len; i += 1 + sb.len / 64) {
        sb.buf[i] ^= 0x5a;
        conda_repodata *dam = NULL;
        if (conda_repodata_blob_read((const unsigned char *)sb.buf, sb.len, sha, &o, true, &dam))
            for (size_t k = 0; k < conda_repodata_n_names(dam); k++) {
                size_t m = 0;
                conda_repodata_records_at(dam, k, &m);
            }
        conda_repodata_free(dam);
        sb.buf[i] ^= 0x5a;
    }
    /* ...and a torn one none. */
    conda_repodata *torn = NULL;
    CHECK(!conda_repodata_blob_read((const unsigned char *)sb.buf, sb.len - 1, sha, &o, false, &torn));
    sb_release(&sb);
    conda_repodata_free(back);
    conda_repodata_free(r);
    el_ctx_free(ctx);
    return 0;
}

