/* verb_bundle.c — the public el_bundle(): a lock and the cache in, a
 * static on-prem mirror out. Reads the lock, opens the cache with the
 * caller's options and hands both to bundle/ (bundle.h), which owns the
 * tree; this file only checks the request and turns the counts into the
 * public result. With --advisories it also owns the snapshot's check: the
 * lock's advisories.snapshot must be the directory's digest before anything
 * is written, and the copy in DIR must read back to it (advisories/ reads
 * both; bundle/ only copies files). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "envlock/bundle.h"
#include "osv.h"
#include "verbs_internal.h"

/* The snapshot `dir` against the one `lock` records (lock-format.md,
 * "advisories"): EL_OK, or EL_SPEC_INVALID naming the lock key. */
static el_code snapshot_matches(el_ctx *ctx, const lock_doc *lock, const char *dir,
                                const osv_db *db)
{
    char actual[EL_DIGEST_SIZE];
    snprintf(actual, sizeof actual, "sha256:%s", db->digest);
    if (lock->adv_snapshot && strcmp(lock->adv_snapshot, actual) == 0)
        return EL_OK;
    if (!lock->adv_snapshot) {
        el_fail(ctx, EL_SPEC_INVALID,
                "the lock records no advisory snapshot (`advisories.snapshot`): it was resolved "
                "without --advisories, so %s is not what it was made with; resolve with the "
                "snapshot, or bundle without --advisories", dir);
        el_detail_str(ctx, "reason", "advisories_not_locked");
    } else {
        el_fail(ctx, EL_SPEC_INVALID,
                "the advisory snapshot %s is %s, the lock was resolved with %s "
                "(`advisories.snapshot`, lock line %u): a site auditing with it would not see "
                "what the lock was made with; give the snapshot the lock records", dir, actual,
                lock->adv_snapshot, lock->line_adv);
        el_detail_str(ctx, "reason", "advisories_mismatch");
        el_detail_str(ctx, "expected", lock->adv_snapshot);
        el_detail_int(ctx, "line", lock->line_adv);
    }
    el_detail_str(ctx, "field", "advisories.snapshot");
    el_detail_str(ctx, "actual", actual);
    el_detail_str(ctx, "path", dir);
    return EL_SPEC_INVALID;
}

/* bundle_snapshot.verify: DIR/advisories reads back as the locked snapshot
 * (a file changed while copied, or one left there from another snapshot,
 * would give another digest). */
static bool copy_matches(el_ctx *ctx, const char *copy, void *user)
{
    const lock_doc *lock = user;
    osv_db *db = NULL;
    if (osv_db_load(ctx, copy, &db) != EL_OK)
        return false;
    char got[EL_DIGEST_SIZE];
    snprintf(got, sizeof got, "sha256:%s", db->digest);
    osv_db_free(db);
    if (strcmp(got, lock->adv_snapshot) == 0)
        return true;
    el_fail(ctx, EL_SPEC_INVALID,
            "the bundle's copy %s reads as advisory snapshot %s, not the lock's %s "
            "(`advisories.snapshot`): it holds files of another snapshot, or one changed while "
            "it was copied; remove %s and run again", copy, got, lock->adv_snapshot, copy);
    el_detail_str(ctx, "reason", "advisories_copy_differs");
    el_detail_str(ctx, "field", "advisories.snapshot");
    el_detail_str(ctx, "expected", lock->adv_snapshot);
    el_detail_str(ctx, "actual", got);
    el_detail_str(ctx, "path", copy);
    return false;
}

/* The snapshot to carry, checked against the lock; *db owns its strings. */
static el_code snapshot_load(el_ctx *ctx, const lock_doc *lock, const char *dir, osv_db **db,
                             bundle_snapshot *s)
{
    if (verbs_advisories_load(ctx, dir, db) != EL_OK)
        return el_ctx_code(ctx);
    if (snapshot_matches(ctx, lock, dir, *db) != EL_OK)
        return EL_SPEC_INVALID;
    *s = (bundle_snapshot){ .src = dir, .files = (*db)->files, .n_files = (*db)->n_files,
                            .max_bytes = osv_file_max, .verify = copy_matches,
                            .user = (void *)lock };
    return EL_OK;
}

static void fill_result(const bundle_stats *st, const char *base_url, el_bundle_result *res)
{
    res->written = st->written;
    res->written_bytes = st->written_bytes;
    res->reused = st->reused;
    res->reused_bytes = st->reused_bytes;
    res->artifacts = st->artifacts;
    res->documents = st->documents;
    res->metadata = st->metadata;
    res->requests = st->requests;
    res->network = st->network;
    res->network_bytes = st->network_bytes;
    size_t bl = strlen(base_url);
    while (bl && base_url[bl - 1] == '/')
        bl--;
    res->mirrors = xcalloc(st->n_mirrors + 1, sizeof *res->mirrors);
    for (size_t i = 0; i < st->n_mirrors; i++) {
        el_bundle_mirror *m = &res->mirrors[i];
        m->ecosystem = xstrdup(st->mirrors[i].ecosystem);
        m->canonical = xstrdup(st->mirrors[i].canonical);
        m->url = xasprintf("%.*s/%s", (int)bl, base_url, st->mirrors[i].path);
    }
    res->n_mirrors = st->n_mirrors;
    res->signed_files = st->signed_files;
    res->advisory_files = st->advisories;
}

el_code el_bundle(el_ctx *ctx, const el_cache_options *co, const char *lock_path,
                  const el_bundle_options *o, el_bundle_result *res)
{
    memset(res, 0, sizeof *res);
    if (!o || !o->out_dir || !*o->out_dir) {
        el_code rc = el_fail(ctx, EL_USAGE, "a bundle needs an output directory (-o DIR)");
        el_detail_str(ctx, "option", "-o");
        return rc;
    }
    lock_doc *lock = verbs_lock_read(ctx, lock_path, res->lock_digest);
    if (!lock)
        return el_ctx_code(ctx);
    res->out_dir = xstrdup(o->out_dir);
    osv_db *db = NULL;
    bundle_snapshot snap;
    cache *c = NULL;
    if (o->advisories && snapshot_load(ctx, lock, o->advisories, &db, &snap) != EL_OK) {
        osv_db_free(db);
        lock_doc_free(lock);
        return el_ctx_code(ctx);
    }
    if (db)
        snprintf(res->advisories_snapshot, sizeof res->advisories_snapshot, "%s",
                 lock->adv_snapshot);
    el_code rc = (c = cache_open(ctx, co)) ? EL_OK : el_ctx_code(ctx);
    if (rc == EL_OK) {
        const char *base_url = o->base_url ? o->base_url : "http://localhost:8080";
        bundle_options bo = { .out_dir = o->out_dir, .base_url = base_url,
                              .sign_key = o->sign_key, .advisories = db ? &snap : NULL };
        bundle_stats st;
        rc = bundle_write(ctx, c, lock, &bo, &st);
        fill_result(&st, base_url, res);
        bundle_stats_clear(&st);
        cache_close(c);
    }
    osv_db_free(db);
    lock_doc_free(lock);
    return rc;
}

el_code el_bundle_verify(el_ctx *ctx, const char *dir, const char *key_path, size_t *n_files)
{
    size_t n = 0;
    if (!dir || !*dir || !key_path || !*key_path) {
        el_code rc = el_fail(ctx, EL_USAGE, "verifying a bundle needs its directory and a key");
        el_detail_str(ctx, "option", "--verify");
        return rc;
    }
    el_code rc = bundle_verify(ctx, dir, key_path, &n);
    if (n_files)
        *n_files = n;
    return rc;
}

void el_bundle_result_clear(el_bundle_result *res)
{
    if (!res)
        return;
    for (size_t i = 0; i < res->n_mirrors; i++) {
        free(res->mirrors[i].ecosystem);
        free(res->mirrors[i].canonical);
        free(res->mirrors[i].url);
    }
    free(res->mirrors);
    free(res->out_dir);
    memset(res, 0, sizeof *res);
}
