/* npm_rc.c — reading .npmrc (the ini-like config npm keeps per user) for
 * what envlock needs from it: the credentials npm would send to a registry
 * URL and its TLS settings (cafile, scoped certfile/keyfile). Also npm's
 * own variable that carries a token (npm_config__authToken); envlock's
 * ENVLOCK_NPM_TOKEN comes in as an option (el_cache_options.npm_token).
 *
 * The format, as npm's `ini` reader takes it: `key = value` lines, whitespace
 * around both trimmed; whole-line comments starting with `#` or `;`; on an
 * unquoted value a `;` or `#` starts a comment unless escaped with `\`;
 * "double" or 'single' quoted values are taken as they are; `[section]`
 * headers open sections npm never reads (their keys are skipped); `key[]`
 * appends to a list (kept as repeated keys). npm then expands `${VAR}` in
 * values (and keys) from the environment and refuses an unset one; `${VAR?}`
 * is empty when unset; `\${VAR}` stays literal.
 *
 * Credential values are never copied into notes or messages. */
#include <stdlib.h>
#include <string.h>

#include "npm_index.h"

typedef struct rc_entry {
    char *key;
    char *value;
} rc_entry;

struct npm_rc {
    rc_entry *e;
    size_t n, alloc;
    ptrvec notes;
};

static void note(npm_rc *rc, const char *origin, size_t line, const char *msg)
{
    ptrvec_push(&rc->notes, xasprintf("%s:%zu: %s", origin ? origin : ".npmrc", line, msg));
}

static const char *trim(const char *s, size_t *n)
{
    while (*n && (*s == ' ' || *s == '\t')) {
        s++;
        (*n)--;
    }
    while (*n && (s[*n - 1] == ' ' || s[*n - 1] == '\t' || s[*n - 1] == '\r'))
        (*n)--;
    return s;
}

/* Expands ${VAR} / ${VAR?} in s[0..n). false when a plain ${VAR} is unset
 * (*missing then names it, malloc'd). */
static bool expand(const char *s, size_t n, const char *(*env)(const char *), strbuf *out,
                   char **missing)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n && s[i + 1] == '$' && i + 2 < n && s[i + 2] == '{') {
            sb_addc(out, '$');
            i++;
            continue;
        }
        if (s[i] == '$' && i + 1 < n && s[i + 1] == '{') {
            const char *close = memchr(s + i + 2, '}', n - i - 2);
            if (close) {
                size_t vl = (size_t)(close - (s + i + 2));
                bool optional = vl > 0 && s[i + 2 + vl - 1] == '?';
                char *var = xstrndup(s + i + 2, optional ? vl - 1 : vl);
                const char *val = var[0] ? env(var) : NULL;
                if (val) {
                    sb_adds(out, val);
                } else if (!optional) {
                    *missing = var;
                    return false;
                }
                free(var);
                i = (size_t)(close - s);
                continue;
            }
        }
        sb_addc(out, s[i]);
    }
    return true;
}

/* The value after `=` (v[0..vl)): a quoted one as is, else up to an
 * unescaped ; or #, trimmed. */
static void raw_value(const char *v, size_t vl, strbuf *raw)
{
    v = trim(v, &vl);
    if (vl >= 2 && (v[0] == '"' || v[0] == '\'') && v[vl - 1] == v[0]) {
        sb_add(raw, v + 1, vl - 2);
        return;
    }
    for (size_t i = 0; i < vl; i++) {
        if (v[i] == '\\' && i + 1 < vl && (v[i + 1] == ';' || v[i + 1] == '#' ||
                                           v[i + 1] == '\\')) {
            sb_addc(raw, v[++i]);
            continue;
        }
        if (v[i] == ';' || v[i] == '#')
            break;
        sb_addc(raw, v[i]);
    }
    size_t tl = raw->len;
    trim(raw->buf, &tl);
    sb_setlen(raw, tl);
}

/* key[0..kl) = raw, both ${VAR}-expanded, appended to rc; a variable that
 * is not set makes it a note instead. */
static void add_entry(npm_rc *rc, const char *origin, size_t lineno, const char *key, size_t kl,
                      const strbuf *raw, const char *(*getenv_fn)(const char *name))
{
    strbuf k = STRBUF_INIT, v = STRBUF_INIT;
    char *missing = NULL;
    bool ok = expand(key, kl, getenv_fn, &k, &missing) &&
              expand(raw->buf, raw->len, getenv_fn, &v, &missing);
    if (!ok) {
        char *m = xasprintf("${%s} is not set; the line is ignored", missing);
        note(rc, origin, lineno, m);
        free(m);
        free(missing);
        sb_release(&k);
        sb_release(&v);
        return;
    }
    if (rc->n == rc->alloc) {
        rc->alloc = rc->alloc ? rc->alloc * 2 : 16;
        rc->e = xrealloc(rc->e, rc->alloc * sizeof *rc->e);
    }
    rc->e[rc->n].key = sb_detach(&k, NULL);
    rc->e[rc->n].value = sb_detach(&v, NULL);
    rc->n++;
}

static const char *plain_getenv(const char *name) { return getenv(name); }

npm_rc *npm_rc_parse(const char *text, size_t len, const char *origin,
                     const char *(*getenv_fn)(const char *name))
{
    npm_rc *rc = xcalloc(1, sizeof *rc);
    if (!getenv_fn)
        getenv_fn = plain_getenv;
    bool in_section = false;
    size_t lineno = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        const char *line = p;
        p = nl ? nl + 1 : end;
        lineno++;
        line = trim(line, &n);
        if (n == 0 || line[0] == '#' || line[0] == ';')
            continue;
        if (line[0] == '[') {
            in_section = true; /* npm reads top-level keys only */
            continue;
        }
        if (in_section)
            continue;
        const char *eq = memchr(line, '=', n);
        size_t kl = eq ? (size_t)(eq - line) : n;
        const char *key = trim(line, &kl);
        if (kl == 0) {
            note(rc, origin, lineno, "a line with no key is ignored");
            continue;
        }
        /* the value: quoted as is, else up to an unescaped ; or # */
        strbuf raw = STRBUF_INIT;
        if (eq)
            raw_value(eq + 1, (size_t)(line + n - (eq + 1)), &raw);
        else
            sb_adds(&raw, "true"); /* a bare key is a flag */
        if (kl > 2 && key[kl - 2] == '[' && key[kl - 1] == ']')
            kl -= 2;
        add_entry(rc, origin, lineno, key, kl, &raw, getenv_fn);
        sb_release(&raw);
    }
    return rc;
}

npm_rc *npm_rc_load_user(void)
{
    const char *path = getenv("NPM_CONFIG_USERCONFIG");
    if (!path || !*path)
        path = getenv("npm_config_userconfig");
    char *owned = NULL;
    if (!path || !*path) {
        const char *home = getenv("HOME");
        if (!home || !*home)
            return npm_rc_parse("", 0, NULL, NULL);
        path = owned = xasprintf("%s/.npmrc", home);
    }
    size_t len = 0;
    char *text = read_file(path, 4u << 20, &len);
    npm_rc *rc = npm_rc_parse(text ? text : "", text ? len : 0, path, NULL);
    free(text);
    free(owned);
    return rc;
}

void npm_rc_free(npm_rc *rc)
{
    if (!rc)
        return;
    for (size_t i = 0; i < rc->n; i++) {
        free(rc->e[i].key);
        free(rc->e[i].value);
    }
    free(rc->e);
    for (size_t i = 0; i < rc->notes.len; i++)
        free(rc->notes.items[i]);
    ptrvec_release(&rc->notes);
    free(rc);
}

const char *npm_rc_get(const npm_rc *rc, const char *key)
{
    if (!rc)
        return NULL;
    for (size_t i = rc->n; i-- > 0;)
        if (strcmp(rc->e[i].key, key) == 0)
            return rc->e[i].value;
    return NULL;
}

const char *npm_rc_scope_registry(const npm_rc *rc, const char *name)
{
    if (!rc || !name || name[0] != '@')
        return NULL;
    const char *slash = strchr(name, '/');
    if (!slash)
        return NULL;
    char *key = xasprintf("%.*s:registry", (int)(slash - name), name);
    const char *v = npm_rc_get(rc, key);
    free(key);
    return v;
}

size_t npm_rc_nnotes(const npm_rc *rc) { return rc ? rc->notes.len : 0; }
const char *npm_rc_note(const npm_rc *rc, size_t i)
{
    return rc && i < rc->notes.len ? rc->notes.items[i] : NULL;
}

/* "//host[:port]/path" of an http(s) URL, with the port dropped when it is
 * the scheme's default (as WHATWG URL's `host` does) and no query or
 * fragment; NULL for anything else. */
static char *nerf(const char *url)
{
    size_t skip;
    const char *defport;
    if (strncmp(url, "https://", 8) == 0) {
        skip = 8;
        defport = ":443";
    } else if (strncmp(url, "http://", 7) == 0) {
        skip = 7;
        defport = ":80";
    } else {
        return NULL;
    }
    const char *h = url + skip;
    size_t hl = strcspn(h, "/?#");
    const char *at = memchr(h, '@', hl);
    if (at) { /* drop userinfo */
        hl -= (size_t)(at + 1 - h);
        h = at + 1;
    }
    if (hl == 0)
        return NULL;
    const char *path = h + hl;
    size_t dl = strlen(defport);
    if (hl > dl && memcmp(h + hl - dl, defport, dl) == 0)
        hl -= dl;
    size_t pl = strcspn(path, "?#");
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "//");
    for (size_t i = 0; i < hl; i++)
        sb_addc(&sb, (h[i] >= 'A' && h[i] <= 'Z') ? (char)(h[i] - 'A' + 'a') : h[i]);
    sb_add(&sb, path, pl);
    if (pl == 0)
        sb_addc(&sb, '/');
    return sb_detach(&sb, NULL);
}

static char *b64_encode(const char *in, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    strbuf sb = STRBUF_INIT;
    const unsigned char *u = (const unsigned char *)in;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)u[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)u[i + 1] << 8;
        if (i + 2 < n)
            v |= u[i + 2];
        sb_addc(&sb, tab[(v >> 18) & 63]);
        sb_addc(&sb, tab[(v >> 12) & 63]);
        sb_addc(&sb, i + 1 < n ? tab[(v >> 6) & 63] : '=');
        sb_addc(&sb, i + 2 < n ? tab[v & 63] : '=');
    }
    return sb_detach(&sb, NULL);
}

static int b64_val(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

/* Base64 decode (npm stores `_password` encoded); NULL if malformed. */
static char *b64_decode(const char *s)
{
    strbuf sb = STRBUF_INIT;
    unsigned acc = 0;
    int bits = 0;
    for (; *s && *s != '='; s++) {
        int v = b64_val(*s);
        if (v < 0) {
            sb_release(&sb);
            return NULL;
        }
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            sb_addc(&sb, (char)((acc >> bits) & 0xff));
        }
    }
    return sb_detach(&sb, NULL);
}

/* The credentials under one nerfed key prefix, or NULL. */
static char *auth_at(const npm_rc *rc, const char *k)
{
    char *key = xasprintf("%s:_authToken", k);
    const char *tok = npm_rc_get(rc, key);
    free(key);
    if (tok && *tok)
        return xasprintf("Bearer %s", tok);
    key = xasprintf("%s:_auth", k);
    const char *basic = npm_rc_get(rc, key);
    free(key);
    if (basic && *basic)
        return xasprintf("Basic %s", basic);
    key = xasprintf("%s:username", k);
    const char *user = npm_rc_get(rc, key);
    free(key);
    key = xasprintf("%s:_password", k);
    const char *pw64 = npm_rc_get(rc, key);
    free(key);
    if (user && *user && pw64 && *pw64) {
        char *pw = b64_decode(pw64);
        if (!pw)
            return NULL;
        char *pair = xasprintf("%s:%s", user, pw);
        char *enc = b64_encode(pair, strlen(pair));
        char *out = xasprintf("Basic %s", enc);
        free(pw);
        free(pair);
        free(enc);
        return out;
    }
    return NULL;
}

/* Calls `try` with each key npm derives from `url`, most specific first,
 * until it answers true: //h/a/b/ -> //h/a/b -> //h/a/ -> //h/a -> //h/ -> //h */
static void walk_up(const char *url, bool (*try)(const npm_rc *rc, const char *key, void *out),
                    const npm_rc *rc, void *out)
{
    char *k = nerf(url);
    if (!k)
        return;
    size_t n = strlen(k);
    while (n > 2) {
        k[n] = '\0';
        if (try(rc, k, out))
            break;
        if (k[n - 1] == '/')
            n--;
        else
            while (n > 2 && k[n - 1] != '/')
                n--;
    }
    free(k);
}

static bool try_auth(const npm_rc *rc, const char *key, void *out)
{
    char **auth = out;
    *auth = auth_at(rc, key);
    return *auth != NULL;
}

char *npm_rc_auth(const npm_rc *rc, const char *url)
{
    char *out = NULL;
    if (rc && url)
        walk_up(url, try_auth, rc, &out);
    return out;
}

typedef struct scoped_try {
    const char *field;
    const char *value;
} scoped_try;

static bool try_scoped(const npm_rc *rc, const char *key, void *out)
{
    scoped_try *t = out;
    char *k = xasprintf("%s:%s", key, t->field);
    t->value = npm_rc_get(rc, k);
    free(k);
    return t->value != NULL;
}

const char *npm_rc_scoped(const npm_rc *rc, const char *url, const char *field)
{
    scoped_try t = { field, NULL };
    if (rc && url)
        walk_up(url, try_scoped, rc, &t);
    return t.value;
}

char *npm_auth_for_registry(const npm_rc *rc, const char *registry, const char *token,
                            const char *(*getenv_fn)(const char *name))
{
    if (!getenv_fn)
        getenv_fn = plain_getenv;
    if (token && *token)
        return xasprintf("Bearer %s", token);
    const char *env;
    char *reg = npm_registry_normalize(registry);
    char *a = npm_rc_auth(rc, reg);
    free(reg);
    if (a)
        return a;
    env = getenv_fn("npm_config__authToken");
    if (!env || !*env)
        env = getenv_fn("NPM_CONFIG__AUTHTOKEN");
    if (env && *env)
        return xasprintf("Bearer %s", env);
    return NULL;
}
