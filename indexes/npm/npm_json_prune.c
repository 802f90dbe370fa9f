/* npm_json_prune.c — the pruned json-c tree (see npm_json_prune.h): yajl
 * walks the document and json-c objects are made only for kept members.
 * The tree must equal what json-c's strict tokener builds, minus the pruned
 * members, and a document must fail where json-c failed, so: strings with
 * escapes and all numbers are handed back to json-c to decode (yajl's \u
 * handling differs for unpaired surrogates), whitespace json-c refuses
 * (\v, \f) and the NUL byte json-c stops at are found before yajl runs, and
 * yajl's error texts are mapped onto json-c's. This file knows no document
 * format; what to keep is the caller's list. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "npm_json_prune.h"
#include "util.h"

typedef struct frame {
    json_object *obj;             /* the container being built; NULL: skipped */
    const npm_json_keep *only;    /* an object's kept members; NULL: all */
} frame;

typedef struct prune {
    const char *body;
    size_t stop;                  /* parsed: body[0, stop) */
    size_t len;
    yajl_handle h;
    json_tokener *tok;            /* json-c's decoding of strings and numbers */
    const npm_json_keep *keep;
    frame stack[NPM_JSON_MAX_DEPTH];
    int depth;                    /* open containers */
    json_object *root;
    /* the member the next value is: its name (json-c's C string) and rule */
    strbuf key;
    bool next_kept;
    const npm_json_keep *next_only;
    bool completing;              /* inside yajl_complete_parse() */
    bool ends_early;              /* a top-level number or literal at the end */
    bool ended;                   /* the top-level value is complete ... */
    size_t value_end;             /* ... and ended here */
    const char *fail;             /* our own refusal (static) */
} prune;

static json_object *jc_parse(prune *p, const char *text, size_t n)
{
    json_tokener_reset(p->tok);
    json_object *o = json_tokener_parse_ex(p->tok, text, (int)n);
    if (json_tokener_get_error(p->tok) != json_tokener_success ||
        json_tokener_get_parse_end(p->tok) != n) {
        json_object_put(o);
        p->fail = "invalid string sequence";
        return NULL;
    }
    return o;
}

/* The raw text of the string token yajl just decoded with escapes: from the
 * opening quote (the nearest '"' not escaped by an odd run of backslashes)
 * to the closing quote yajl stopped after. */
static json_object *jc_string_token(prune *p)
{
    size_t end = yajl_get_bytes_consumed(p->h);
    if (end < 2 || end > p->stop || p->body[end - 1] != '"') {
        p->fail = "invalid string sequence";
        return NULL;
    }
    size_t i = end - 1;
    for (;;) {
        if (i == 0) {
            p->fail = "invalid string sequence";
            return NULL;
        }
        i--;
        if (p->body[i] != '"')
            continue;
        size_t bs = 0;
        while (bs < i && p->body[i - 1 - bs] == '\\')
            bs++;
        if (bs % 2 == 0)
            break;
    }
    return jc_parse(p, p->body + i, end - i);
}

static bool in_body(const prune *p, const unsigned char *s)
{
    uintptr_t a = (uintptr_t)s, b = (uintptr_t)p->body;
    return a >= b && a < b + p->stop;
}

/* Room for one more value; false (refused) past json-c's depth. */
static bool level_ok(prune *p)
{
    if (p->depth < NPM_JSON_MAX_DEPTH)
        return true;
    p->fail = "nesting too deep";
    return false;
}

/* Whether the value now starting is kept, and the members kept of it. */
static bool placed(prune *p, const npm_json_keep **only)
{
    *only = NULL;
    if (p->depth == 0) {
        *only = p->keep;
        return true;
    }
    const frame *f = &p->stack[p->depth - 1];
    if (!f->obj)
        return false;
    if (json_object_is_type(f->obj, json_type_array))
        return true;
    *only = p->next_only;
    return p->next_kept;
}

static void attach(prune *p, json_object *v)
{
    if (p->depth == 0) {
        p->ended = true; /* a container: not yet, see open_container() */
        p->value_end = p->completing ? p->stop : yajl_get_bytes_consumed(p->h);
        p->root = v;
        return;
    }
    json_object *parent = p->stack[p->depth - 1].obj;
    if (json_object_is_type(parent, json_type_array))
        json_object_array_add(parent, v);
    else
        json_object_object_add(parent, p->key.buf, v);
}

/* null, true or false (`b` < 0 for null): a literal ends a top-level
 * document where it ends. */
static int on_literal(prune *p, int b)
{
    const npm_json_keep *only;
    if (!level_ok(p))
        return 0;
    if (p->depth == 0 && yajl_get_bytes_consumed(p->h) == p->len)
        p->ends_early = true;
    if (placed(p, &only))
        attach(p, b < 0 ? NULL : json_object_new_boolean(b));
    return 1;
}

static int on_null(void *ctx) { return on_literal(ctx, -1); }

static int on_boolean(void *ctx, int b) { return on_literal(ctx, b != 0); }

static int on_number(void *ctx, const char *s, size_t n)
{
    prune *p = ctx;
    const npm_json_keep *only;
    if (!level_ok(p))
        return 0;
    if (p->depth == 0 && p->completing && p->stop == p->len)
        p->ends_early = true;
    if (!placed(p, &only))
        return 1;
    strbuf sb = STRBUF_INIT;
    sb_add(&sb, s, n);
    sb_addc(&sb, ' '); /* json-c ends a top-level number at a delimiter */
    json_object *o = jc_parse(p, sb.buf, sb.len);
    sb_release(&sb);
    if (p->fail)
        return 0;
    attach(p, o);
    return 1;
}

static int on_string(void *ctx, const unsigned char *s, size_t n)
{
    prune *p = ctx;
    const npm_json_keep *only;
    if (!level_ok(p))
        return 0;
    if (!placed(p, &only))
        return 1;
    json_object *o = in_body(p, s) ? json_object_new_string_len((const char *)s, (int)n)
                                   : jc_string_token(p);
    if (p->fail)
        return 0;
    attach(p, o);
    return 1;
}

static const npm_json_keep *keep_find(const npm_json_keep *list, const char *name)
{
    for (const npm_json_keep *e = list; e->name || e->any; e++)
        if (e->any || strcmp(e->name, name) == 0)
            return e;
    return NULL;
}

static int on_key(void *ctx, const unsigned char *s, size_t n)
{
    prune *p = ctx;
    const frame *f = &p->stack[p->depth - 1];
    p->next_kept = false;
    p->next_only = NULL;
    if (!f->obj)
        return 1;
    sb_reset(&p->key);
    if (in_body(p, s)) {
        sb_add(&p->key, s, n);
    } else {
        json_object *k = jc_string_token(p);
        if (p->fail)
            return 0;
        sb_adds(&p->key, json_object_get_string(k)); /* json-c's key stops at a NUL */
        json_object_put(k);
    }
    if (!f->only) {
        p->next_kept = true;
        return 1;
    }
    const npm_json_keep *e = keep_find(f->only, p->key.buf);
    p->next_kept = e != NULL;
    p->next_only = e ? e->only : NULL;
    return 1;
}

static int open_container(prune *p, bool object)
{
    const npm_json_keep *only;
    if (!level_ok(p))
        return 0;
    json_object *o = NULL;
    if (placed(p, &only)) {
        o = object ? json_object_new_object() : json_object_new_array();
        attach(p, o);
    }
    if (p->depth == 0)
        p->ended = false;
    p->stack[p->depth].obj = o;
    p->stack[p->depth].only = object ? only : NULL;
    p->depth++;
    return 1;
}

static int on_start_map(void *ctx) { return open_container(ctx, true); }
static int on_start_array(void *ctx) { return open_container(ctx, false); }

static int on_end(void *ctx)
{
    prune *p = ctx;
    if (--p->depth == 0) {
        p->ended = true;
        p->value_end = yajl_get_bytes_consumed(p->h);
    }
    return 1;
}

/* yajl takes an unterminated string (or number, literal) after the value
 * for more input at the end and then says nothing: json-c refuses it. */
static bool only_space_after(const prune *p)
{
    for (size_t i = p->value_end; i < p->stop; i++)
        if (!strchr(" \t\n\r", p->body[i]))
            return false;
    return true;
}

static const yajl_callbacks callbacks = {
    .yajl_null = on_null,
    .yajl_boolean = on_boolean,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_key,
    .yajl_end_map = on_end,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end,
};

/* json-c's description for what yajl refused (yajl_get_error()'s text);
 * yajl's own words where json-c has none. */
static char *describe(prune *p, const char *yerr)
{
    static const struct { const char *yajl, *jsonc; } words[] = {
        { "invalid bytes in UTF8", "invalid utf-8 string" },
        { "after array element", "array value separator ',' expected" },
        { "separated by a colon", "object property name separator ':' expected" },
        { "inside map, I expect", "object value separator ',' expected" },
        { "malformed number", "number expected" },
        { "after '\\u'", "invalid string sequence" },
        { "occurs before a character", "invalid string sequence" },
        { "invalid char in json", "unexpected character" },
        { "trailing garbage", "unexpected character" },
        { "unallowed token", "unexpected character" },
        { "comments are not enabled", "unexpected character" },
    };
    size_t at = yajl_get_bytes_consumed(p->h);
    if (strstr(yerr, "invalid string in json text")) { /* a misspelt literal */
        size_t i = at < p->stop ? at : p->stop;
        while (i > 0 && p->body[i - 1] >= 'a' && p->body[i - 1] <= 'z')
            i--;
        return xstrdup(p->body[i] == 'n' ? "null expected" : "boolean expected");
    }
    if (strstr(yerr, "invalid object key")) /* `{"a":1,}` or `{1:2}` */
        return xstrdup(at > 0 && p->body[at - 1] == '}' ? "unexpected character"
                                                        : "quoted object property name expected");
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strstr(yerr, words[i].yajl))
            return xstrdup(words[i].jsonc);
    size_t n = strcspn(yerr, "\n");
    return xstrndup(yerr, n);
}

/* The first byte json-c stops or fails at before any parse: NUL ends its
 * input; \v and \f are whitespace to yajl, not to json-c (and raw in a
 * string both refuse them). */
static size_t first_stop(const char *body, size_t len)
{
    size_t stop = len;
    const char stops[] = { '\0', '\v', '\f' };
    for (size_t i = 0; i < sizeof stops; i++) {
        const char *hit = memchr(body, stops[i], stop);
        if (hit)
            stop = (size_t)(hit - body);
    }
    return stop;
}

/* After body[0, stop) parsed: the outcome json-c gives for the whole. */
static char *judge(prune *p, yajl_status st)
{
    if (st == yajl_status_client_canceled)
        return xstrdup(p->fail ? p->fail : "unexpected character");
    if (st == yajl_status_error) {
        unsigned char *e = yajl_get_error(p->h, 0, NULL, 0);
        char *what = describe(p, (const char *)e);
        yajl_free_error(p->h, e);
        return what;
    }
    p->completing = true;
    st = yajl_complete_parse(p->h);
    if (st == yajl_status_client_canceled)
        return xstrdup(p->fail ? p->fail : "unexpected character");
    bool complete = st == yajl_status_ok;
    if (p->ended && !only_space_after(p))
        return xstrdup("unexpected character");
    char c = p->stop < p->len ? p->body[p->stop] : 0;
    if (p->stop == p->len)
        return complete && !p->ends_early ? NULL : xstrdup("it ends early (truncated JSON)");
    if (c == '\0')
        return xstrdup(complete ? "it has data after the JSON value" : "unexpected end of data");
    return xstrdup("unexpected character");
}

int npm_json_prune_parse(const char *body, size_t len, const npm_json_keep *keep,
                         json_object **doc, char **what)
{
    prune p = { .body = body, .len = len, .keep = keep, .key = STRBUF_INIT };
    p.stop = first_stop(body, len);
    p.tok = json_tokener_new_ex(NPM_JSON_MAX_DEPTH);
    json_tokener_set_flags(p.tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    p.h = yajl_alloc(&callbacks, NULL, &p);
    yajl_status st = yajl_parse(p.h, (const unsigned char *)body, p.stop);
    *what = judge(&p, st);
    yajl_free(p.h);
    json_tokener_free(p.tok);
    sb_release(&p.key);
    *doc = NULL;
    if (*what) {
        json_object_put(p.root);
        return -1;
    }
    *doc = p.root;
    return 0;
}

int npm_json_parse_full(const char *body, size_t len, json_object **doc, char **what)
{
    json_tokener *tok = json_tokener_new_ex(NPM_JSON_MAX_DEPTH);
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    json_object *d = json_tokener_parse_ex(tok, body, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    *doc = NULL;
    *what = NULL;
    if (jerr == json_tokener_success && end == len) {
        *doc = d;
        return 0;
    }
    json_object_put(d);
    *what = xstrdup(jerr == json_tokener_continue ? "it ends early (truncated JSON)"
                    : jerr == json_tokener_success ? "it has data after the JSON value"
                                                   : json_tokener_error_desc(jerr));
    return -1;
}
