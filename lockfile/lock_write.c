/* lock_write.c — the canonical text of a lock and its atomic, digested
 * write.
 *
 * Owns the lock's byte form: libyaml's emitter (lock_emit.c) produces it
 * from a sorted lock_doc with fixed key order (docs/lock-format.md), block
 * style for the structure, flow style for short string lists and for
 * dependency edges (one edge per line), unlimited line width (nothing is
 * ever folded), LF line breaks, UTF-8 printed as is. Quoting is decided
 * here, not by libyaml: only strings lock_plain_safe() accepts are plain,
 * every other string is double-quoted, so no reader can turn `1.10`, `yes`,
 * `0o7` or `~` into something other than a string. No timestamps, no paths
 * of this machine, no envlock version: the same doc gives the same bytes
 * everywhere. The file write is atomic (unique temp file in the same
 * directory, fsync, rename, fsync of the directory) and must not touch
 * anything but `path`; a file that already holds the same bytes is only
 * touched (mtime). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lock_internal.h"

/* ---- the scalar rules (shared with the reader) ---- */

static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool word_eq(const char *s, size_t len, const char *w)
{
    return strlen(w) == len && memcmp(s, w, len) == 0;
}

/* YAML 1.1's boolean words (PyYAML's set plus the spec's y/n forms) and
 * YAML 1.1/1.2's null words. */
static const char *const bool_true[] = { "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE",
                                         "on", "On", "ON", NULL };
static const char *const bool_false[] = { "n", "N", "no", "No", "NO", "false", "False", "FALSE",
                                          "off", "Off", "OFF", NULL };
static const char *const null_words[] = { "~", "null", "Null", "NULL", NULL };

static bool in_list(const char *s, size_t len, const char *const *l)
{
    for (; *l; l++)
        if (word_eq(s, len, *l))
            return true;
    return false;
}

/* The punctuation a plain scalar may carry after its first letter. */
static const bool plain_punct[128] = { ['.'] = true, ['_'] = true, ['/'] = true, ['+'] = true,
                                       ['='] = true, ['~'] = true, ['^'] = true, ['<'] = true,
                                       ['>'] = true, ['!'] = true, ['*'] = true, ['@'] = true,
                                       ['-'] = true };

bool lock_plain_safe(const char *s, size_t len)
{
    if (len == 0 || !is_alpha(s[0]))
        return false;
    for (size_t i = 1; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!(is_alpha((char)c) || is_digit((char)c) || (c < 128 && plain_punct[c])))
            return false;
    }
    /* the boolean and null words are all five letters or fewer */
    return len > 5 || (!in_list(s, len, bool_true) && !in_list(s, len, bool_false) &&
                       !in_list(s, len, null_words));
}

lock_plain_kind lock_plain_classify(const char *s, size_t len, bool *bool_value)
{
    if (len == 0 || in_list(s, len, null_words))
        return LOCK_PLAIN_NULL;
    if (in_list(s, len, bool_true) || in_list(s, len, bool_false)) {
        if (bool_value)
            *bool_value = in_list(s, len, bool_true);
        return LOCK_PLAIN_BOOL;
    }
    /* Every YAML 1.1/1.2 int and float form (incl. .inf, .nan, 0x, 0o, sexagesimal)
     * starts with one of these; treating all such plain text as "not a string"
     * is stricter than YAML but exactly what the writer relies on. */
    if (is_digit(s[0]) || s[0] == '-' || s[0] == '+' || s[0] == '.')
        return LOCK_PLAIN_NUMBER;
    return LOCK_PLAIN_STRING;
}

/* ---- emitting (lock_emit.c) ---- */

typedef lock_emit emit;

enum { BLOCK = false, FLOW = true };

/* A string value: plain when lock_plain_safe(), else double-quoted. NULL
 * writes "" (callers omit optional keys before getting here). */
static void str(emit *e, const char *s)
{
    if (!s)
        s = "";
    lock_emit_scalar(e, s, !lock_plain_safe(s, strlen(s)));
}

static void key(emit *e, const char *k) { lock_emit_scalar(e, k, false); }

static void kv(emit *e, const char *k, const char *v)
{
    key(e, k);
    str(e, v);
}

static void kv_opt(emit *e, const char *k, const char *v)
{
    if (v)
        kv(e, k, v);
}

static void kv_u64(emit *e, const char *k, uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    key(e, k);
    lock_emit_scalar(e, buf, false);
}

static void kv_bool(emit *e, const char *k, bool v)
{
    key(e, k);
    lock_emit_scalar(e, v ? "true" : "false", false);
}

static void map_start(emit *e, bool flow) { lock_emit_open(e, true, flow); }
static void map_end(emit *e) { lock_emit_close(e, true); }
static void seq_start(emit *e, bool flow) { lock_emit_open(e, false, flow); }
static void seq_end(emit *e) { lock_emit_close(e, false); }

/* A string list in flow style: `[a, "b:c"]` (`[]` when empty or NULL). */
static void kv_strv(emit *e, const char *k, const char *const *v)
{
    key(e, k);
    seq_start(e, FLOW);
    for (size_t i = 0; v && v[i]; i++)
        str(e, v[i]);
    seq_end(e);
}

/* target.targets[]: one block mapping per target, variants first. */
static void write_targets(emit *e, const lock_doc *d)
{
    key(e, "targets");
    seq_start(e, BLOCK);
    for (size_t i = 0; i < d->n_targets; i++) {
        const lock_target *t = &d->targets[i];
        map_start(e, BLOCK);
        kv_strv(e, "variants", t->variants);
        kv_opt(e, "python", t->python_version);
        kv_opt(e, "platform", t->platform);
        kv_opt(e, "arch", t->arch);
        kv_opt(e, "image", t->image);
        map_end(e);
    }
    seq_end(e);
}

static void write_target(emit *e, const lock_doc *d)
{
    key(e, "target");
    map_start(e, BLOCK);
    kv_opt(e, "python", d->python_version);
    kv_opt(e, "platform", d->platform);
    kv_opt(e, "arch", d->arch);
    kv_opt(e, "image", d->image);
    if (d->base_ref || d->base_channel || (d->variants && d->variants[0])) {
        key(e, "base");
        map_start(e, BLOCK);
        kv_opt(e, "ref", d->base_ref);
        kv_opt(e, "channel", d->base_channel);
        if (d->variants && d->variants[0]) {
            key(e, "digests");
            map_start(e, BLOCK);
            for (size_t i = 0; d->variants[i]; i++) {
                str(e, d->variants[i]);
                const char *dg = d->base_digests ? d->base_digests[i] : NULL;
                if (dg)
                    str(e, dg);
                else
                    lock_emit_scalar(e, "null", false);
            }
            map_end(e);
        }
        map_end(e);
    }
    if (d->n_targets)
        write_targets(e, d);
    map_end(e);
}

static void write_options(emit *e, const lock_doc *d)
{
    key(e, "options");
    map_start(e, BLOCK);
    kv_opt(e, "excludeNewer", d->exclude_newer);
    if (d->no_binary && d->no_binary[0])
        kv_strv(e, "noBinary", d->no_binary);
    if (d->no_build)
        kv_bool(e, "noBuild", true);
    if (d->only_binary && d->only_binary[0])
        kv_strv(e, "onlyBinary", d->only_binary);
    if (d->prefer_binary)
        kv_bool(e, "preferBinary", true);
    kv_opt(e, "prereleases", d->prereleases);
    kv_bool(e, "upgradeAll", d->upgrade_all);
    if (d->upgrade && d->upgrade[0])
        kv_strv(e, "upgradePackages", d->upgrade);
    map_end(e);
}

/* Only a lock read from a uv.lock has it (docs/lock-format.md,
 * "dependencyFile"): every other lock keeps its bytes. */
static void write_dep_file(emit *e, const lock_doc *d)
{
    if (!d->dep_format)
        return;
    key(e, "dependencyFile");
    map_start(e, BLOCK);
    kv(e, "format", d->dep_format);
    kv(e, "content", d->dep_content);
    kv(e, "lockContent", d->dep_lock);
    map_end(e);
}

/* Only a lock resolved with --advisories has it (docs/lock-format.md,
 * "advisories"): every other lock keeps its bytes. */
static void write_advisories(emit *e, const lock_doc *d)
{
    if (!d->adv_snapshot)
        return;
    key(e, "advisories");
    map_start(e, BLOCK);
    kv(e, "snapshot", d->adv_snapshot);
    kv_opt(e, "newest", d->adv_newest);
    kv(e, "vulnerable", d->adv_mode);
    kv_strv(e, "touched", d->adv_touched);
    kv_strv(e, "ignored", d->adv_ignored);
    map_end(e);
}

static void write_inputs(emit *e, const lock_doc *d)
{
    key(e, "inputs");
    seq_start(e, BLOCK);
    for (size_t i = 0; i < d->n_inputs; i++) {
        const lock_input *in = &d->inputs[i];
        map_start(e, BLOCK);
        kv(e, "ecosystem", in->ecosystem);
        kv(e, "url", in->url);
        kv(e, "identity", in->identity);
        kv_opt(e, "modified", in->modified);
        map_end(e);
    }
    seq_end(e);
}

static void write_package(emit *e, const lock_package *p)
{
    map_start(e, BLOCK);
    kv(e, "ecosystem", p->ecosystem);
    kv(e, "name", p->name);
    kv(e, "version", p->version);
    kv_opt(e, "arch", p->arch);
    kv_opt(e, "sourcePackage", p->src_name);
    kv_opt(e, "sourceVersion", p->src_version);
    kv_opt(e, "build", p->build);
    if (p->ecosystem && strcmp(p->ecosystem, "conda") == 0)
        kv_u64(e, "buildNumber", p->build_number);
    kv_opt(e, "subdir", p->subdir);
    if (p->has_pypi_names)
        kv_strv(e, "pypiNames", p->pypi_names);
    kv_opt(e, "path", p->path);
    if (p->extras && p->extras[0])
        kv_strv(e, "extras", p->extras);
    kv_opt(e, "source", p->source);
    kv_opt(e, "license", p->license);
    if (p->installed_in_base)
        kv_bool(e, "installedInBase", true);
    if (p->in_bundle)
        kv_bool(e, "inBundle", true);
    kv_strv(e, "requestedBy", p->requested_by);
    key(e, "dependencies");
    seq_start(e, BLOCK);
    for (size_t i = 0; i < p->n_deps; i++) {
        const lock_edge *ed = &p->deps[i];
        map_start(e, FLOW);
        if (ed->ecosystem && lock_strcmp(ed->ecosystem, p->ecosystem) != 0)
            kv(e, "ecosystem", ed->ecosystem);
        kv(e, "name", ed->name);
        kv(e, "version", ed->version);
        kv_opt(e, "kind", ed->kind);
        kv_opt(e, "spec", ed->spec);
        kv_opt(e, "alias", ed->alias);
        map_end(e);
    }
    seq_end(e);
    key(e, "artifacts");
    seq_start(e, BLOCK);
    for (size_t i = 0; i < p->n_artifacts; i++) {
        const lock_artifact *a = &p->artifacts[i];
        map_start(e, BLOCK);
        kv(e, "file", a->file);
        kv_opt(e, "url", a->url);
        kv(e, "hash", a->hash);
        kv_opt(e, "md5", a->md5);
        if (a->size)
            kv_u64(e, "size", a->size);
        map_end(e);
    }
    seq_end(e);
    map_end(e);
}

char *lock_write_text(lock_doc *d, size_t *len)
{
    lock_doc_sort(d);
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, LOCK_HEADER, d->format_version);
    emit *e = lock_emit_begin(&sb);
    map_start(e, BLOCK);
    kv_u64(e, "lockVersion", (uint64_t)(d->format_version > 0 ? d->format_version : 0));
    kv(e, "specDigest", d->spec_digest);
    write_target(e, d);
    write_options(e, d);
    write_dep_file(e, d);
    write_advisories(e, d);
    write_inputs(e, d);
    key(e, "packages");
    seq_start(e, BLOCK);
    for (size_t i = 0; i < d->n_packages; i++)
        write_package(e, &d->packages[i]);
    seq_end(e);
    map_end(e);
    if (!lock_emit_end(e)) {
        sb_release(&sb);
        if (len)
            *len = 0;
        return NULL;
    }
    return sb_detach(&sb, len);
}

/* ---- the file ---- */

static el_code io_fail(el_ctx *ctx, const char *what, const char *path, int err)
{
    el_code c = el_fail_io(ctx, err, "cannot write the lock `%s`: %s: %s", path, what,
                           strerror(err));
    el_detail_str(ctx, "reason", "lock_write_failed");
    el_detail_str(ctx, "path", path);
    return c;
}

static void digest_of(const char *text, size_t len, char digest_out[72])
{
    char hex[65];
    sha256_hex(text, len, hex);
    if (digest_out)
        snprintf(digest_out, 72, "sha256:%s", hex);
}

el_code lock_write_file(el_ctx *ctx, lock_doc *d, const char *path, char digest_out[72])
{
    size_t len = 0;
    char *text = lock_write_text(d, &len);
    if (!text) {
        el_code c = el_fail(ctx, EL_INTERNAL,
                            "cannot write the lock `%s`: a string in it is not valid UTF-8", path);
        el_detail_str(ctx, "reason", "lock_write_failed");
        return c;
    }
    /* A warm re-resolve mostly writes the lock it read: comparing costs a
     * read; rewriting costs a temp file, two fsyncs and a rename. The mtime
     * still moves, so `make`-style rules see the lock as rebuilt. */
    if (file_holds(path, text, len) && utimensat(AT_FDCWD, path, NULL, 0) == 0) {
        digest_of(text, len, digest_out);
        free(text);
        return EL_OK;
    }
    const char *step = NULL;
    int err = file_write_atomic(path, text, len, &step);
    el_code rc = err ? io_fail(ctx, step, path, err) : EL_OK;
    if (!err)
        digest_of(text, len, digest_out);
    free(text);
    return rc;
}
