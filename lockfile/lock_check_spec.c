/* lock_check_spec.c — what changed in the spec, as far as a lock can tell.
 *
 * The lock records no copy of the spec, only its digest; but every package
 * a root requirement asked for carries `requestedBy: spec`, with its
 * version and extras. So when the digest changed, `check` can name the
 * packages the spec stopped asking for, the extras it dropped, and (in
 * lock_check.c) the roots it added or changed, each with the lock's pin as
 * `before` and the requirement now as `after`. What the lock does not
 * record (metadata, files, env, commands, a requirement whose new text the
 * locked version still meets) is said to be unknowable, not guessed.
 * Reads the lock and the root names lock_check() collected; nothing else. */
#include <stdlib.h>
#include <string.h>

#include "lock_internal.h"

bool lock_spec_asked(const lock_package *p)
{
    for (size_t i = 0; p->requested_by && p->requested_by[i]; i++)
        if (!strcmp(p->requested_by[i], "spec") || !strcmp(p->requested_by[i], "protected"))
            return true;
    return false;
}

/* Asked for by the spec and by nothing else in the lock. */
static bool only_spec(const lock_package *p)
{
    return p->requested_by && p->requested_by[0] && !strcmp(p->requested_by[0], "spec") &&
           !p->requested_by[1];
}

char *lock_pin_text(const lock_package *p)
{
    const char *eco = p->ecosystem ? p->ecosystem : "";
    const char *n = p->name ? p->name : "", *v = p->version ? p->version : "";
    if (!strcmp(eco, "npm"))
        return xasprintf("%s@%s", n, v);
    if (!strcmp(eco, "deb"))
        return xasprintf("%s=%s", n, v);
    if (!strcmp(eco, "conda"))
        return p->build ? xasprintf("%s %s %s", n, v, p->build) : xasprintf("%s %s", n, v);
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, n);
    for (size_t i = 0; p->extras && p->extras[i]; i++)
        sb_addf(&sb, "%s%s", i ? "," : "[", p->extras[i]);
    if (p->extras && p->extras[0])
        sb_addc(&sb, ']');
    sb_addf(&sb, "==%s", v);
    return sb_detach(&sb, NULL);
}

void lock_spec_names_add(ptrvec *names, const char *eco, const char *name)
{
    char *key = xasprintf("%s:%s", eco, name);
    if (ptrvec_has_str(names, key))
        free(key);
    else
        ptrvec_push(names, key);
}

size_t lock_spec_removed(const lock_doc *d, const ptrvec *names, lock_report *r)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        bool asked = false;
        for (size_t j = 0; p->requested_by && p->requested_by[j] && !asked; j++)
            asked = !strcmp(p->requested_by[j], "spec");
        if (!asked || !p->ecosystem || !p->name)
            continue;
        char *key = xasprintf("%s:%s", p->ecosystem, p->name);
        if (!ptrvec_has_str(names, key)) {
            char *pin = lock_pin_text(p);
            lock_report_add(r, "spec", key, pin, NULL,
                            "spec no longer asks for %s %s (the lock has %s for it)", p->ecosystem,
                            p->name, pin);
            free(pin);
            n++;
        }
        free(key);
    }
    return n;
}

size_t lock_spec_extras_dropped(const lock_package *p, const char *const *asked, size_t n_asked,
                                lock_report *r)
{
    if (!only_spec(p))
        return 0; /* a dependent may have asked for the extras */
    size_t n = 0;
    for (size_t i = 0; p->extras && p->extras[i]; i++) {
        bool kept = false;
        for (size_t j = 0; j < n_asked && !kept; j++)
            kept = !strcmp(asked[j], p->extras[i]);
        if (kept)
            continue;
        char *key = xasprintf("pypi:%s[%s]", p->name, p->extras[i]);
        char *pin = lock_pin_text(p);
        lock_report_add(r, "spec", key, pin, NULL,
                        "spec no longer asks for the extra %s of pypi %s (the lock installs %s)",
                        p->extras[i], p->name, pin);
        free(pin);
        free(key);
        n++;
    }
    return n;
}

void lock_spec_unexplained(lock_report *r, size_t digest_line)
{
    for (size_t i = digest_line + 1; i < r->n; i++) {
        const char *k = r->v[i].kind;
        if (!strcmp(k, "spec") || !strcmp(k, "target") || !strcmp(k, "requirement"))
            return;
    }
    lock_change *c = &r->v[digest_line];
    char *text = xasprintf("%s (the lock does not record what: a field other than the packages, "
                           "base, language and variants, such as env, files or "
                           "commands, or a requirement the locked version still meets)",
                           c->text);
    free(c->text);
    c->text = text;
}
