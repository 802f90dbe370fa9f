/* fuzz_osv_blob.c — libFuzzer target for the reader of an advisory
 * snapshot's parsed form (osv_db_blob_read()). The first input byte
 * chooses the mode: even, the rest is a payload and gets a correct frame
 * (magic, format, key twice, length, CRC-32: binform's layout), so the
 * fuzzer explores the payload reader rather than the CRC; odd, the rest is
 * a whole form as the cache would hand it over (3 mod 4: one the cache
 * checked, so without the frame's CRC). Whatever is read must keep
 * the db's promises (strings set where osv.h says, enums in range, counts
 * walkable) and free cleanly. Seeds: corpus/osv_blob (the payload of the
 * recorded records of tests/advisories/records). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "osv.h"

#include "blob_seed.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static const char KEY[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

static void check(const osv_db *db)
{
    CHECK(strlen(db->digest) == 64);
    for (size_t i = 0; i < db->n_files; i++)
        CHECK(db->files[i] != NULL);
    for (size_t i = 0; i < db->n_names; i++) {
        CHECK(db->names[i].name && (unsigned)db->names[i].eco <= EL_ECO_CONDA);
        for (size_t k = 0; k < db->names[i].n; k++)
            CHECK(db->names[i].records[k] < db->n_records);
    }
    for (size_t i = 0; i < db->n_records; i++) {
        const osv_record *r = osv_db_record(db, i);
        CHECK(r != NULL); /* the reader walked every record before handing it out */
        CHECK(r->id && r->modified && r->source);
        for (size_t k = 0; k < r->n_aliases; k++)
            CHECK(r->aliases[k] != NULL);
        for (size_t k = 0; k < r->n_affected; k++) {
            const osv_affected *af = &r->affected[k];
            CHECK(af->name && (unsigned)af->eco <= EL_ECO_CONDA);
            for (size_t g = 0; g < af->n_ranges; g++)
                for (size_t e = 0; e < af->ranges[g].n_events; e++)
                    CHECK(af->ranges[g].events[e].version &&
                          (unsigned)af->ranges[g].events[e].kind <= OSV_LIMIT);
            bool hit;
            char *err = NULL;
            osv_affected_eval(af, "1.0.0", &hit, &err);
            free(err);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    strbuf blob = STRBUF_INIT;
    if (data[0] % 2 == 0) {
        sb_add(&blob, "ELOSVDB\n", 8);
        bin_put_u32(&blob, OSV_BLOB_FORMAT);
        sb_add(&blob, KEY, 64);
        sb_add(&blob, KEY, 64);
        blob_frame_tail(&blob, data + 1, size - 1);
    }
    sb_add(&blob, data + 1, size - 1);
    unsigned char *copy = malloc(blob.len ? blob.len : 1);
    memcpy(copy, blob.buf, blob.len);
    osv_db *db = osv_db_blob_read(copy, blob.len, KEY, data[0] % 4 == 3);
    if (db) {
        db->owned = copy;
        check(db);
        osv_db_free(db);
    } else {
        free(copy);
    }
    sb_release(&blob);
    return 0;
}
