/* osv_blob_unit.c — the advisory snapshot's parsed form (advisories/
 * osv_blob.c) on the recorded records of tests/advisories/records: what is
 * read back is what was loaded (every field, and the same matches), a
 * damaged, torn or foreign form is refused, and the snapshot key changes
 * when a file is touched or replaced and only then. `osv_blob_unit --seed
 * FILE` writes the fuzzer's seed instead (tests/fuzz/fuzz_osv_blob.c: a 0
 * byte, then the payload of those records' form). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "osv.h"

static osv_db *load_records(void)
{
    el_ctx *ctx = el_ctx_new();
    osv_db *db = NULL;
    assert_int_equal(osv_db_load(ctx, OSV_RECORDS, &db), EL_OK);
    el_ctx_free(ctx);
    return db;
}

static void same_str(const char *a, const char *b)
{
    if (a || b)
        assert_string_equal(a ? a : "(null)", b ? b : "(null)");
}

static void same_affected(const osv_affected *a, const osv_affected *b)
{
    assert_int_equal(a->eco, b->eco);
    assert_string_equal(a->name, b->name);
    assert_int_equal(a->n_ranges, b->n_ranges);
    for (size_t i = 0; i < a->n_ranges; i++) {
        assert_int_equal(a->ranges[i].type, b->ranges[i].type);
        assert_int_equal(a->ranges[i].n_events, b->ranges[i].n_events);
        for (size_t k = 0; k < a->ranges[i].n_events; k++) {
            assert_int_equal(a->ranges[i].events[k].kind, b->ranges[i].events[k].kind);
            assert_string_equal(a->ranges[i].events[k].version, b->ranges[i].events[k].version);
        }
    }
    assert_int_equal(a->n_versions, b->n_versions);
    for (size_t i = 0; i < a->n_versions; i++)
        assert_string_equal(a->versions[i], b->versions[i]);
}

static void same_db(const osv_db *a, const osv_db *b)
{
    assert_string_equal(a->digest, b->digest);
    same_str(a->newest, b->newest);
    assert_int_equal(a->n_withdrawn, b->n_withdrawn);
    assert_int_equal(a->n_files, b->n_files);
    for (size_t i = 0; i < a->n_files; i++)
        assert_string_equal(a->files[i], b->files[i]);
    assert_int_equal(a->n_records, b->n_records);
    for (size_t i = 0; i < a->n_records; i++) {
        const osv_record *x = osv_db_record(a, i), *y = osv_db_record(b, i);
        assert_non_null(x);
        assert_non_null(y);
        assert_string_equal(x->id, y->id);
        same_str(x->summary, y->summary);
        same_str(x->modified, y->modified);
        same_str(x->severity, y->severity);
        assert_string_equal(x->source, y->source);
        assert_int_equal(x->n_aliases, y->n_aliases);
        for (size_t k = 0; k < x->n_aliases; k++)
            assert_string_equal(x->aliases[k], y->aliases[k]);
        assert_int_equal(x->n_affected, y->n_affected);
        for (size_t k = 0; k < x->n_affected; k++)
            same_affected(&x->affected[k], &y->affected[k]);
    }
}

/* osv_db_blob_read() of a copy of sb's first n bytes; the db owns it. */
static osv_db *read_copy(const strbuf *sb, size_t n, const char *key, bool checked)
{
    unsigned char *p = malloc(n ? n : 1);
    memcpy(p, sb->buf, n);
    osv_db *db = osv_db_blob_read(p, n, key, checked);
    if (db)
        db->owned = p;
    else
        free(p);
    return db;
}

static void roundtrip(void **state)
{
    (void)state;
    osv_db *db = load_records();
    assert_true(db->n_records >= 3);
    const char key[65] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    strbuf sb = STRBUF_INIT;
    osv_db_blob_write(db, key, &sb);
    osv_db *back = read_copy(&sb, sb.len, key, false);
    assert_non_null(back);
    assert_int_equal(back->n_names, db->n_names);
    same_db(db, back);
    /* the same answers: requests below 2.32.2 is affected (GHSA-9wx4-h78v-vm56) */
    ptrvec hits = PTRVEC_INIT;
    assert_int_equal(osv_db_match(back, EL_ECO_PYPI, "Requests", "2.31.0", &hits, NULL), 1);
    assert_string_equal(((osv_record *)hits.items[0])->id, "GHSA-9wx4-h78v-vm56");
    assert_int_equal(osv_db_match(back, EL_ECO_PYPI, "requests", "2.32.3", &hits, NULL), 0);
    ptrvec_release(&hits);
    osv_db_free(back);
    /* another key, every truncation, and damaged bytes are refused */
    char other[65];
    memcpy(other, key, 65);
    other[0] = '1';
    assert_null(read_copy(&sb, sb.len, other, false));
    for (size_t n = 0; n < sb.len; n += 1 + n / 16) {
        assert_null(read_copy(&sb, n, key, false));
        assert_null(read_copy(&sb, n, key, true));
    }
    for (size_t at = 0; at < sb.len; at += 1 + sb.len / 97) {
        sb.buf[at] ^= 0x20;
        assert_null(read_copy(&sb, sb.len, key, false));
        sb.buf[at] ^= 0x20;
    }
    /* without the CRC (bytes the cache checked), a damaged count or offset
     * is still refused: every length byte of the names and records */
    size_t refused = 0, tried = 0;
    for (size_t at = 152; at < sb.len; at++) {
        unsigned char was = (unsigned char)sb.buf[at];
        sb.buf[at] = (char)0xff;
        osv_db *d = read_copy(&sb, sb.len, key, true);
        tried++;
        if (!d)
            refused++;
        else
            osv_db_free(d); /* a changed string byte reads back as another string */
        sb.buf[at] = (char)was;
    }
    assert_true(refused > tried / 10);
    sb_release(&sb);
    osv_db_free(db);
}

static void copy_file(const char *from, const char *to)
{
    size_t len = 0;
    char *text = read_file(from, 1 << 24, &len);
    assert_non_null(text);
    FILE *f = fopen(to, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
    free(text);
}

static void key_follows_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/envlock-osv-key-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *rec = xasprintf("%s/GHSA-9wx4-h78v-vm56.json", dir);
    copy_file(OSV_RECORDS "/PyPI/GHSA-9wx4-h78v-vm56.json", rec);
    el_ctx *ctx = el_ctx_new();
    char k1[65], k2[65], k3[65], k4[65];
    assert_int_equal(osv_snapshot_key(ctx, dir, k1), EL_OK);
    assert_int_equal(osv_snapshot_key(ctx, dir, k2), EL_OK);
    assert_string_equal(k1, k2);
    /* replaced by a copy of the same bytes: another inode, another key */
    char *tmp = xasprintf("%s/.new", dir);
    copy_file(rec, tmp);
    assert_int_equal(rename(tmp, rec), 0);
    assert_int_equal(osv_snapshot_key(ctx, dir, k3), EL_OK);
    assert_string_not_equal(k1, k3);
    /* a file added (not hidden) */
    char *more = xasprintf("%s/more.json", dir);
    copy_file(rec, more);
    assert_int_equal(osv_snapshot_key(ctx, dir, k4), EL_OK);
    assert_string_not_equal(k3, k4);
    unlink(more);
    unlink(rec);
    rmdir(dir);
    /* a directory that is not there fails as the load does */
    assert_int_not_equal(osv_snapshot_key(ctx, dir, k4), EL_OK);
    el_ctx_free(ctx);
    free(more);
    free(tmp);
    free(rec);
}

static int write_seed(const char *path)
{
    osv_db *db = load_records();
    const char key[65] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    strbuf sb = STRBUF_INIT;
    osv_db_blob_write(db, key, &sb);
    size_t head = 8 + 4 + 128 + 8 + 4; /* binform's frame */
    FILE *f = fopen(path, "wb");
    int ok = f && fputc(0, f) == 0 && fwrite(sb.buf + head, 1, sb.len - head, f) == sb.len - head;
    if (f)
        ok = fclose(f) == 0 && ok;
    sb_release(&sb);
    osv_db_free(db);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--seed") == 0)
        return write_seed(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(roundtrip),
        cmocka_unit_test(key_follows_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
