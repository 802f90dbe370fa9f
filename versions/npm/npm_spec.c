/* npm_spec.c — npm package names (the rules of npm's package-name
 * validator) and registry dependency specs `name[@version|range|tag]`.
 * Deciding between version, range and tag is npm-package-arg's order:
 * loose version first, then loose range, then tag. Everything that is not a
 * registry spec (git, tarball, path, alias) is refused here; this file does
 * not know how to fetch anything. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"
#include "semver.h"
#include "npm_spec.h"

#define NPM_NAME_MAX 214

static int fail(char **err, char *msg)
{
    if (err)
        *err = msg;
    else
        free(msg);
    return -1;
}

/* Characters encodeURIComponent leaves alone. */
static bool url_safe_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           strchr("-_.!~*'()", c) != NULL;
}

static bool url_safe(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!url_safe_char(s[i]))
            return false;
    return true;
}

int npm_name_check(const char *name, unsigned flags, char **err)
{
    size_t n = strlen(name);
    if (n == 0)
        return fail(err, xstrdup("package name is empty"));
    if (name[0] == '.')
        return fail(err, xasprintf("package name `%s` cannot start with a period", name));
    if (name[0] == '_')
        return fail(err, xasprintf("package name `%s` cannot start with an underscore", name));
    if (strcasecmp(name, "node_modules") == 0 || strcasecmp(name, "favicon.ico") == 0)
        return fail(err, xasprintf("`%s` is a blacklisted package name", name));
    const char *last = name;
    if (!url_safe(name, n)) {
        /* maybe @scope/name, each half URL-safe on its own */
        const char *slash = strchr(name, '/');
        bool ok = name[0] == '@' && slash && slash > name + 1 && slash[1] != '\0' &&
                  !strchr(slash + 1, '/') && url_safe(name + 1, (size_t)(slash - name - 1)) &&
                  url_safe(slash + 1, strlen(slash + 1));
        if (ok && slash[1] == '.')
            return fail(err, xasprintf("package name `%s` cannot start with a period", slash + 1));
        if (!ok)
            return fail(err, xasprintf("package name `%s` can only contain URL-friendly characters",
                                       name));
        last = slash + 1;
    }
    if (flags & NPM_NAME_LEGACY)
        return 0;
    if (n > NPM_NAME_MAX)
        return fail(err, xasprintf("package name is longer than %d characters", NPM_NAME_MAX));
    for (size_t i = 0; i < n; i++)
        if (name[i] >= 'A' && name[i] <= 'Z')
            return fail(err, xasprintf("package name `%s` contains capital letters", name));
    if (strpbrk(last, "~'!()*"))
        return fail(err, xasprintf("package name `%s` contains one of ~'!()*", name));
    return 0;
}

void npm_pkgspec_release(npm_pkgspec *s)
{
    if (!s)
        return;
    free(s->name);
    free(s->scope);
    free(s->spec);
    free(s->normalized);
    memset(s, 0, sizeof *s);
}

/* A short reason if `text` is some other kind of npm spec, else NULL. */
static const char *non_registry(const char *text, const char *spec)
{
    static const char *const schemes[] = { "git+", "git:", "git@", "github:", "gitlab:",
                                           "bitbucket:", "gist:", "http:", "https:", "file:" };
    for (size_t i = 0; i < sizeof schemes / sizeof *schemes; i++)
        if (strncmp(text, schemes[i], strlen(schemes[i])) == 0)
            return "git, URL and file specs are not registry specs";
    if (text[0] == '.' || text[0] == '/' || text[0] == '~')
        return "paths are not registry specs";
    if (spec && strncmp(spec, "npm:", 4) == 0)
        return "`npm:` aliases are not supported";
    if (text[0] != '@' && strchr(text, '/'))
        return "`user/repo` GitHub shorthands are not registry specs";
    return NULL;
}

int npm_pkgspec_parse(const char *text, npm_pkgspec *out, char **err)
{
    memset(out, 0, sizeof *out);
    const char *at = strchr(text[0] == '@' ? text + 1 : text, '@');
    const char *spec = at ? at + 1 : NULL;
    const char *why = non_registry(text, spec);
    if (why)
        return fail(err, xasprintf("`%s`: %s", text, why));
    char *name = at ? xstrndup(text, (size_t)(at - text)) : xstrdup(text);
    char *msg = NULL;
    if (npm_name_check(name, 0, &msg) != 0) {
        free(name);
        return fail(err, msg);
    }
    if (name[0] == '@' && !strchr(name, '/')) {
        int rc = fail(err, xasprintf("`%s`: a scoped name is @scope/name", name));
        free(name);
        return rc;
    }
    out->name = name;
    if (name[0] == '@')
        out->scope = xstrndup(name + 1, (size_t)(strchr(name, '/') - name - 1));
    if (!spec) {
        out->kind = NPM_SPEC_TAG;
        out->spec = xstrdup("latest");
        out->normalized = xstrdup("latest");
        out->implicit = true;
        return 0;
    }
    if (*spec == '\0') {
        npm_pkgspec_release(out);
        return fail(err, xasprintf("`%s`: nothing after `@` (write a version, range or tag)", text));
    }
    out->spec = xstrdup(spec);
    char *v = npm_valid(spec, NPM_LOOSE);
    if (v) {
        out->kind = NPM_SPEC_VERSION;
        out->normalized = v;
        return 0;
    }
    char *r = npm_valid_range(spec, NPM_LOOSE);
    if (r) {
        out->kind = NPM_SPEC_RANGE;
        out->normalized = r;
        return 0;
    }
    if (!url_safe(spec, strlen(spec))) {
        npm_pkgspec_release(out);
        return fail(err, xasprintf("`%s`: `%s` is neither a version, a range nor a valid tag name",
                                   text, spec));
    }
    out->kind = NPM_SPEC_TAG;
    out->normalized = xstrdup(spec);
    return 0;
}

bool npm_alias_split(const char *spec, const char **name, size_t *name_len, const char **range)
{
    if (strncmp(spec, "npm:", 4) != 0)
        return false;
    const char *n = spec + 4;
    const char *at = strchr(n[0] == '@' ? n + 1 : n, '@');
    *name = n;
    *name_len = at ? (size_t)(at - n) : strlen(n);
    *range = at ? at + 1 : NULL;
    return true;
}

int npm_pkgspec_check(const char *text, char **err)
{
    npm_pkgspec s;
    if (npm_pkgspec_parse(text, &s, err) != 0)
        return -1;
    npm_pkgspec_release(&s);
    return 0;
}
