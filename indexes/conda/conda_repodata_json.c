/* conda_repodata_json.c — repodata.json read as a stream (yajl): the
 * document is never held as one tree. Each record of `packages` and
 * `packages.conda` is built as a small json-c tree of its own, handed to
 * the record reader and freed, so a conda-forge sized document (hundreds
 * of MB, about a million records) costs the memory of its records, not
 * several times the document. What a record means is conda_repodata.c's;
 * this file owns only the document's shape (conda_repodata_internal.h). */
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "util.h"
#include "conda_repodata_internal.h"

/* Where the parser is in the document's shape. */
typedef enum where {
    AT_START,   /* before the top-level value */
    AT_TOP,     /* in the top-level object, between members */
    AT_SECTION, /* in `packages` / `packages.conda`, between records */
    IN_BUILD,   /* inside a value being built (a record or `info`) */
    IN_SKIP,    /* inside a top-level member nobody reads */
    AT_END
} where;

typedef struct stream {
    const crj_handler *h;
    where at;
    size_t depth;            /* containers open, the top-level one included */
    size_t skip_depth;       /* IN_SKIP: depth at which the skipped value ends */
    char *key;               /* the member name waiting for its value */
    bool is_conda;           /* AT_SECTION: which section */
    bool seen[3];            /* info, packages, packages.conda */
    int building;            /* 0 record, 1 info */
    json_object *stack[CRJ_MAX_DEPTH + 1];
    size_t sp;               /* builder stack size */
    char *bkey[CRJ_MAX_DEPTH + 1]; /* a pending member name per open object */
    json_object *info;
    const char *what;        /* why the document was refused */
} stream;

static int fail(stream *s, const char *what)
{
    if (!s->what)
        s->what = what;
    return 0;
}

/* A finished value at the builder's root: a record or `info`. */
static int deliver(stream *s, json_object *v)
{
    if (s->building == 1) {
        json_object_put(s->info);
        s->info = v;
        s->at = AT_TOP;
    } else {
        bool go_on = s->h->record(s->h->user, s->key, v, s->is_conda);
        json_object_put(v);
        s->at = AT_SECTION;
        if (!go_on) {
            free(s->key);
            s->key = NULL;
            return fail(s, "the record reader stopped");
        }
    }
    free(s->key);
    s->key = NULL;
    return 1;
}

/* Attaches v to the open container on the builder's stack, or delivers it
 * when the stack is empty. Takes v. */
static int attach(stream *s, json_object *v)
{
    if (s->sp == 0)
        return deliver(s, v);
    json_object *top = s->stack[s->sp - 1];
    if (json_object_is_type(top, json_type_array)) {
        json_object_array_add(top, v);
        return 1;
    }
    char *k = s->bkey[s->sp - 1];
    json_object_object_add(top, k ? k : "", v); /* duplicates: the last wins, as json-c */
    free(k);
    s->bkey[s->sp - 1] = NULL;
    return 1;
}

/* A top-level member's value begins (`container`: with `{` or `[`). */
static int top_value(stream *s, bool is_map, bool container, bool is_null)
{
    const char *k = s->key ? s->key : "";
    int slot = strcmp(k, "info") == 0 ? 0 : strcmp(k, "packages") == 0 ? 1
             : strcmp(k, "packages.conda") == 0 ? 2 : -1;
    if (slot >= 0 && s->seen[slot])
        return fail(s, "a top-level member is given twice");
    if (slot >= 0)
        s->seen[slot] = true;
    if (slot >= 1) {
        if (!is_map && !is_null)
            return fail(s, "`packages` and `packages.conda` must be objects");
        if (is_map) {
            s->is_conda = slot == 2;
            s->at = AT_SECTION;
        }
        free(s->key);
        s->key = NULL;
        return 1;
    }
    if (slot == 0) {
        s->building = 1;
        s->at = IN_BUILD;
        return 1;
    }
    free(s->key);
    s->key = NULL;
    if (container)
        s->at = IN_SKIP; /* open_container() sets skip_depth */
    return 1;
}

/* Any value begins: route it by where the parser is. `v` is the scalar
 * (NULL for a container); taken. */
static int begin(stream *s, json_object *v, bool is_map, bool container, bool is_null)
{
    switch (s->at) {
    case AT_START:
        if (!is_map) {
            json_object_put(v);
            return fail(s, "the document is not a JSON object");
        }
        s->at = AT_TOP;
        return 1;
    case AT_TOP: {
        int ok = top_value(s, is_map, container, is_null);
        if (ok && s->at == IN_BUILD && !container)
            return attach(s, v);
        json_object_put(v);
        return ok;
    }
    case AT_SECTION:
        s->building = 0;
        s->at = IN_BUILD;
        return container ? 1 : attach(s, v);
    case IN_BUILD:
        return container ? 1 : attach(s, v);
    default:
        json_object_put(v);
        return 1;
    }
}

static int open_container(stream *s, bool is_map)
{
    if (s->depth >= CRJ_MAX_DEPTH)
        return fail(s, "nesting too deep");
    where before = s->at;
    if (!begin(s, NULL, is_map, true, false))
        return 0;
    s->depth++;
    if (s->at == IN_SKIP && before == AT_TOP)
        s->skip_depth = s->depth;
    if (s->at != IN_BUILD)
        return 1;
    s->stack[s->sp] = is_map ? json_object_new_object() : json_object_new_array();
    s->bkey[s->sp++] = NULL;
    return 1;
}

static int close_container(stream *s)
{
    s->depth--;
    if (s->at == IN_SKIP) {
        if (s->depth < s->skip_depth)
            s->at = AT_TOP;
        return 1;
    }
    if (s->at == IN_BUILD) {
        json_object *v = s->stack[--s->sp];
        free(s->bkey[s->sp]);
        s->bkey[s->sp] = NULL;
        return attach(s, v);
    }
    if (s->at == AT_SECTION) {
        s->at = AT_TOP;
        return 1;
    }
    s->at = AT_END; /* the top-level object closed */
    return 1;
}

static int cb_null(void *u) { return begin(u, NULL, false, false, true); }
static int cb_bool(void *u, int b) { return begin(u, json_object_new_boolean(b), false, false, false); }

/* Numbers are decoded by json-c itself, so a record reads exactly as it did
 * from json-c's tree (big integers, exponents, its int/double split). */
static int cb_number(void *u, const char *t, size_t n)
{
    stream *s = u;
    char buf[64];
    json_object *v = NULL;
    if (s->at == IN_BUILD || s->at == AT_SECTION || (s->at == AT_TOP && s->key && !strcmp(s->key, "info"))) {
        if (n >= sizeof buf)
            v = json_object_new_double(0.0); /* no field reads such a number as an integer */
        else {
            memcpy(buf, t, n);
            buf[n] = '\0';
            v = json_tokener_parse(buf);
            if (!v)
                return fail(s, "a number json-c cannot read");
        }
    }
    return begin(s, v, false, false, false);
}

static int cb_string(void *u, const unsigned char *t, size_t n)
{
    stream *s = u;
    json_object *v = s->at == IN_BUILD || s->at == AT_SECTION || s->at == AT_TOP
                         ? json_object_new_string_len((const char *)t, (int)n) : NULL;
    return begin(s, v, false, false, false);
}

static int cb_start_map(void *u) { return open_container(u, true); }
static int cb_start_array(void *u) { return open_container(u, false); }
static int cb_end(void *u) { return close_container(u); }

static int cb_key(void *u, const unsigned char *t, size_t n)
{
    stream *s = u;
    if (s->at == IN_BUILD) {
        free(s->bkey[s->sp - 1]);
        s->bkey[s->sp - 1] = xstrndup((const char *)t, n);
    } else if (s->at == AT_TOP || s->at == AT_SECTION) {
        free(s->key);
        s->key = xstrndup((const char *)t, n);
    }
    return 1;
}

static const yajl_callbacks callbacks = {
    cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
    cb_start_map, cb_key, cb_end, cb_start_array, cb_end,
};

int crj_parse(const char *body, size_t len, const crj_handler *h, json_object **info,
              const char **what)
{
    stream s = {.h = h, .at = AT_START};
    yajl_handle y = yajl_alloc(&callbacks, NULL, &s);
    if (!y)
        abort();
    yajl_status st = yajl_parse(y, (const unsigned char *)body, len);
    if (st == yajl_status_ok)
        st = yajl_complete_parse(y);
    yajl_free(y);
    while (s.sp > 0) {
        json_object_put(s.stack[--s.sp]);
        free(s.bkey[s.sp]);
    }
    free(s.key);
    if (st != yajl_status_ok || s.at != AT_END) {
        json_object_put(s.info);
        *what = s.what ? s.what : "the document is not valid JSON";
        *info = NULL;
        return -1;
    }
    *info = s.info;
    return 0;
}
