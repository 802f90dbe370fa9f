/* fuzz_plan.c — libFuzzer target for lock bytes -> plan and lock -> export
 * (plan/). A lock that lock_read_text() and lock_validate() accept is
 * planned for every variant that does not refuse it and exported in every
 * format; each generated file must keep the promise its reader relies on:
 *  - a Dockerfile, read as Docker reads it (comment lines dropped, a line
 *    ending in a backslash and optional blanks joined to the next), holds
 *    only the instructions a plan writes, one FROM, and the doctor last;
 *  - requirements.txt and lock.txt hold, per logical line, one requirement
 *    `name==version` followed only by `--hash=sha256:<64 hex>` options;
 *  - every JSON file parses with json-c, to its end;
 *  - apt-sources.list lines are comments or `deb [check-valid-until=no]
 *    URI SUITE COMPONENT...` with no other option; apt pins one word each;
 *  - every file is UTF-8 with no control byte but newline.
 * A refused export fails with a code, never a crash. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lock.h"
#include "plan.h"
#include "plan_internal.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static const char *const KEYWORDS[] = { "FROM", "ARG", "LABEL", "ENV", "USER", "COPY", "RUN",
                                        "WORKDIR", NULL };

static bool blank_to_eol(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p == end;
}

/* The next logical line of a Dockerfile at *p (comment lines and blank
 * lines between instructions skipped), into sb; false at the end. */
static bool df_next(const char **p, const char *end, strbuf *sb)
{
    sb_reset(sb);
    bool cont = false;
    while (*p < end) {
        const char *nl = memchr(*p, '\n', (size_t)(end - *p));
        const char *e = nl ? nl : end, *s = *p;
        *p = nl ? nl + 1 : end;
        const char *t = s;
        while (t < e && (*t == ' ' || *t == '\t'))
            t++;
        if (t == e || *t == '#')
            continue; /* Docker drops comment lines, within a continuation too */
        const char *b = e;
        while (b > s && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        cont = b > s && b[-1] == '\\' && blank_to_eol(b, e);
        sb_add(sb, s, (size_t)((cont ? b - 1 : e) - s));
        if (!cont)
            return true;
    }
    return sb->len > 0;
}

static void check_dockerfile(const char *t, size_t len)
{
    strbuf sb = STRBUF_INIT;
    const char *p = t, *end = t + len;
    size_t froms = 0;
    bool doctor_last = false;
    while (df_next(&p, end, &sb)) {
        size_t k = strcspn(sb.buf, " ");
        bool known = false;
        for (size_t i = 0; KEYWORDS[i] && !known; i++)
            known = strlen(KEYWORDS[i]) == k && strncmp(sb.buf, KEYWORDS[i], k) == 0;
        CHECK(known);
        froms += k == 4 && strncmp(sb.buf, "FROM", 4) == 0;
        doctor_last = strcmp(sb.buf, "RUN " PLAN_DOCTOR) == 0;
    }
    CHECK(froms == 1 && doctor_last);
    sb_release(&sb);
}

static bool all_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return true;
}

/* One requirement per logical line: name==version, then --hash options. */
static void check_requirements(const char *t, size_t len)
{
    strbuf line = STRBUF_INIT;
    const char *p = t, *end = t + len;
    while (p < end) {
        sb_reset(&line);
        for (;;) { /* pip joins a line ending in a backslash to the next */
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            const char *e = nl ? nl : end;
            bool cont = e > p && e[-1] == '\\';
            sb_add(&line, p, (size_t)((cont ? e - 1 : e) - p));
            p = nl ? nl + 1 : end;
            if (!cont || p >= end)
                break;
        }
        char *s = line.buf;
        s += strspn(s, " ");
        if (!*s || *s == '#')
            continue;
        char *save = NULL, *w = strtok_r(s, " ", &save);
        char *eq = strstr(w, "==");
        CHECK(eq && eq > w && eq[2] && !strchr(eq + 2, '=') && w[0] != '-');
        for (w = strtok_r(NULL, " ", &save); w; w = strtok_r(NULL, " ", &save))
            CHECK(strncmp(w, "--hash=sha256:", 14) == 0 && strlen(w) == 78 && all_hex(w + 14, 64));
    }
    sb_release(&line);
}

static void check_json(const char *t, size_t len)
{
    json_tokener *tok = json_tokener_new();
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    json_object *o = json_tokener_parse_ex(tok, t, (int)len);
    CHECK(o && json_tokener_get_error(tok) == json_tokener_success);
    CHECK(strspn(t + json_tokener_get_parse_end(tok), " \n") == len - json_tokener_get_parse_end(tok));
    json_object_put(o);
    json_tokener_free(tok);
}

static void check_sources(const char *t, size_t len)
{
    const char *p = t, *end = t + len;
    static const char DEB[] = "deb [check-valid-until=no] ";
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        if (*p != '#') {
            size_t n = (size_t)(e - p), words = 0;
            CHECK(n > sizeof DEB - 1 && memcmp(p, DEB, sizeof DEB - 1) == 0);
            for (const char *c = p + sizeof DEB - 1; c < e; c++) {
                CHECK(*c != '[' && *c != ']');
                words += *c != ' ' && (c == p + sizeof DEB - 1 || c[-1] == ' ');
            }
            CHECK(words >= 3);
        }
        p = nl ? nl + 1 : end;
    }
}

static void check_pins(const char *t, size_t len)
{
    for (size_t i = 0; i < len; i++)
        CHECK(t[i] != ' ' && t[i] != '\t');
}

static void check_bytes(const char *t, size_t len)
{
    CHECK(utf8_valid(t, len));
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)t[i];
        CHECK(c == '\n' || (c >= 0x20 && c != 0x7f));
    }
}

static void check_file(const char *name, const char *t, size_t len)
{
    check_bytes(t, len);
    size_t n = strlen(name);
    if (n >= 10 && strcmp(name + n - 10, "Dockerfile") == 0)
        check_dockerfile(t, len);
    else if (!strcmp(name, "requirements.txt") || !strcmp(name, "lock.txt"))
        check_requirements(t, len);
    else if (n > 5 && strcmp(name + n - 5, ".json") == 0)
        check_json(t, len);
    else if (!strcmp(name, "apt-sources.list"))
        check_sources(t, len);
    else if (!strcmp(name, "apt-packages.txt"))
        check_pins(t, len - (len && t[len - 1] == '\n'));
}

static void exports(const plan_input *in)
{
    static const struct { plan_format fmt; const char *as; } F[] = {
        { PLAN_UV_PIP_COMPILE, "lock.txt" }, { PLAN_REQUIREMENTS, "requirements.txt" },
        { PLAN_PYLOCK, "pylock.toml" }, { PLAN_PACKAGE_LOCK, "package-lock.json" },
        { PLAN_APT, "apt.txt" },
    };
    for (size_t i = 0; i < sizeof F / sizeof F[0]; i++) {
        el_ctx *ctx = el_ctx_new();
        size_t len = 0;
        char *t = plan_export(ctx, in, F[i].fmt, &len);
        if (t)
            check_file(F[i].as, t, len);
        else
            CHECK(el_ctx_code(ctx) != EL_OK);
        free(t);
        el_ctx_free(ctx);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 18))
        return 0;
    el_ctx *ctx = el_ctx_new();
    lock_doc *d = lock_read_text(ctx, (const char *)data, size);
    if (!d || lock_validate(ctx, d) != EL_OK) {
        CHECK(el_ctx_code(ctx) == EL_SPEC_INVALID);
        lock_doc_free(d);
        el_ctx_free(ctx);
        return 0;
    }
    plan_input in = { .lock = d, .lock_digest = "sha256:0123" };
    exports(&in);
    static const char *const VARIANTS[] = { "datalayer", "e2b", "daytona", "modal" };
    for (size_t v = 0; v < 4; v++) {
        plan_refusal r;
        bool refused = plan_refuse(&in, VARIANTS[v], &r);
        plan_refusal_clear(&r);
        if (refused)
            continue;
        plan_files f = { 0 };
        plan_variant(&in, VARIANTS[v], &f);
        for (size_t i = 0; i < f.n; i++)
            check_file(f.v[i].name, f.v[i].data, f.v[i].len);
        plan_files_release(&f);
    }
    lock_doc_free(d);
    el_ctx_free(ctx);
    return 0;
}
