/* resolver_driver.c — runs resolver_resolve() for one scenario mirror and
 * prints the lock (canonical YAML from lockfile/) or the failure (code,
 * message, detail JSON), for run_scenarios.py to compare with the expected
 * text. The request comes from a tiny line format:
 *
 *   pypi-index URL            (repeatable, in order)
 *   npm-registry URL
 *   apt-source LINE           (@KEYRING@ is replaced by --keyring)
 *   exclude-newer TIME
 *   explain-full
 *   preinstalled NAME==VERSION
 *   root ECO LINE TEXT        (a requirement; LINE 0: no position)
 *   constraint ECO LINE TEXT
 *   protected ECO TEXT        (a protected pin, as a requirement)
 *   locked ECO NAME VERSION   (a previous lock holding these packages)
 *   previous FILE             (a previous lock file, relative to the request)
 *   upgrade NAME              (--upgrade-package, repeatable)
 *   upgrade-all               (--upgrade)
 *   dpkg-status FILE          (the base's dpkg status, relative to the request)
 *   summary                   (print one line per package instead of the lock:
 *                              ECO NAME VERSION [path=P] [extras=a,b] [base])
 *   inputs                    (after the packages, one line per input:
 *                              input ECO URL IDENTITY [MODIFIED])
 *   relock                    (then resolve again with the lock just made as the
 *                              previous one, and say whether the bytes match)
 *
 * Options: --request FILE --cache DIR [--mirror CANON=URL]... [--keyring P]
 * [--debug-solver DIR]. The target is fixed: CPython 3.13.0 on
 * manylinux_2_36_x86_64 (amd64), datalayer/python-cpu 2026.09. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "lock.h"
#include "resolver.h"
#include "util.h"

#define MAXN 64

/* One line per package, the scenario suite's expect-lock form. */
static void print_summary(const lock_doc *d)
{
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        printf("%s %s %s", p->ecosystem, p->name, p->version);
        if (p->path)
            printf(" path=%s", p->path);
        for (size_t k = 0; p->extras && p->extras[k]; k++)
            printf("%s%s", k ? "," : " extras=", p->extras[k]);
        printf("%s\n", p->installed_in_base ? " base" : "");
    }
}

/* The directory part of path ("" for none), malloc'd with a trailing '/'. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? xstrndup(path, (size_t)(slash - path) + 1) : xstrdup("");
}

int main(int argc, char **argv)
{
    const char *reqfile = NULL, *cachedir = NULL, *keyring = NULL, *debug = NULL;
    const char *mirrors[MAXN];
    size_t nm = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--request") == 0 && i + 1 < argc)
            reqfile = argv[++i];
        else if (strcmp(argv[i], "--cache") == 0 && i + 1 < argc)
            cachedir = argv[++i];
        else if (strcmp(argv[i], "--mirror") == 0 && i + 1 < argc && nm < MAXN)
            mirrors[nm++] = argv[++i];
        else if (strcmp(argv[i], "--keyring") == 0 && i + 1 < argc)
            keyring = argv[++i];
        else if (strcmp(argv[i], "--debug-solver") == 0 && i + 1 < argc)
            debug = argv[++i];
        else {
            fprintf(stderr, "usage: resolver_driver --request FILE --cache DIR [--mirror C=U]...\n");
            return 2;
        }
    }
    if (!reqfile || !cachedir) {
        fprintf(stderr, "resolver_driver: --request and --cache are required\n");
        return 2;
    }
    size_t len = 0;
    char *text = read_file(reqfile, 1 << 20, &len);
    if (!text) {
        perror(reqfile);
        return 2;
    }
    const char *pypi[MAXN], *apt[MAXN], *pre[MAXN + 1], *up[MAXN];
    size_t npypi = 0, napt = 0, npre = 0, nup = 0;
    lock_doc *locked = NULL;
    const char *status_file = NULL;
    bool summary = false, relock = false, inputs = false;
    char *reqdir = dir_of(reqfile);
    resolve_root roots[MAXN];
    size_t nroots = 0;
    resolve_request rq;
    memset(&rq, 0, sizeof rq);
    ptrvec owned = PTRVEC_INIT;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#' || line[0] == 0)
            continue;
        char *sp = strchr(line, ' ');
        char *arg = sp ? sp + 1 : (char *)"";
        if (sp)
            *sp = 0;
        if (strcmp(line, "pypi-index") == 0 && npypi < MAXN)
            pypi[npypi++] = arg;
        else if (strcmp(line, "npm-registry") == 0)
            rq.npm_registry = arg;
        else if (strcmp(line, "apt-source") == 0 && napt < MAXN) {
            char *at = strstr(arg, "@KEYRING@");
            if (at) {
                *at = 0;
                char *s = xasprintf("%s%s%s", arg, keyring ? keyring : "", at + 9);
                ptrvec_push(&owned, s);
                arg = s;
            }
            apt[napt++] = arg;
        } else if (strcmp(line, "exclude-newer") == 0)
            rq.exclude_newer = arg;
        else if (strcmp(line, "explain-full") == 0)
            rq.explain_full = true;
        else if (strcmp(line, "locked") == 0) {
            char *name = strchr(arg, ' ');
            char *ver = name ? strchr(name + 1, ' ') : NULL;
            if (!ver)
                return 2;
            *name++ = 0;
            *ver++ = 0;
            if (!locked)
                locked = lock_doc_new();
            lock_package *lp = lock_doc_add_package(locked);
            lp->ecosystem = lock_strdup(locked, arg);
            lp->name = lock_strdup(locked, name);
            lp->version = lock_strdup(locked, ver);
        } else if (strcmp(line, "previous") == 0) {
            char *path = xasprintf("%s%s", reqdir, arg);
            el_ctx *lctx = el_ctx_new();
            lock_doc_free(locked);
            locked = lock_read_file(lctx, path);
            if (!locked)
                fprintf(stderr, "%s: %s\n", path, el_ctx_message(lctx));
            el_ctx_free(lctx);
            free(path);
            if (!locked)
                return 2;
        } else if (strcmp(line, "upgrade") == 0 && nup < MAXN)
            up[nup++] = arg;
        else if (strcmp(line, "upgrade-all") == 0)
            rq.upgrade_all = true;
        else if (strcmp(line, "dpkg-status") == 0) {
            char *path = xasprintf("%s%s", reqdir, arg);
            ptrvec_push(&owned, path);
            status_file = path;
        } else if (strcmp(line, "summary") == 0)
            summary = true;
        else if (strcmp(line, "relock") == 0)
            relock = true;
        else if (strcmp(line, "inputs") == 0)
            inputs = true;
        else if (strcmp(line, "preinstalled") == 0 && npre < MAXN)
            pre[npre++] = arg;
        else if ((strcmp(line, "root") == 0 || strcmp(line, "constraint") == 0 ||
                  strcmp(line, "protected") == 0) && nroots < MAXN) {
            resolve_root *r = &roots[nroots++];
            memset(r, 0, sizeof *r);
            bool prot = strcmp(line, "protected") == 0;
            r->kind = strcmp(line, "constraint") == 0 ? ROOT_CONSTRAINT : ROOT_REQUIREMENT;
            r->protected_pin = prot;
            char *eco = arg, *rest = strchr(arg, ' ');
            if (!rest)
                return 2;
            *rest++ = 0;
            r->ecosystem = eco;
            if (!prot) {
                r->line = (unsigned)strtoul(rest, &rest, 10);
                rest++;
                r->field = strcmp(line, "constraint") == 0 ? "spec.packages.python.constraints"
                           : strcmp(eco, "pypi") == 0     ? "spec.packages.python.dependencies"
                           : strcmp(eco, "npm") == 0      ? "spec.packages.node.dependencies"
                                                          : "spec.packages.system.apt";
            } else {
                r->field = "protected";
            }
            r->text = rest;
        }
    }
    pre[npre] = NULL;
    static const char *const variants[] = { "datalayer", "daytona", "e2b", "modal", NULL };
    static const char *const digests[] = {
        "sha256:334adf6c2714c8919ef60beeca1db12e3531a391c9dde41932c782f81c432b36",
        "sha256:334adf6c2714c8919ef60beeca1db12e3531a391c9dde41932c782f81c432b36",
        "sha256:334adf6c2714c8919ef60beeca1db12e3531a391c9dde41932c782f81c432b36",
        "sha256:334adf6c2714c8919ef60beeca1db12e3531a391c9dde41932c782f81c432b36", NULL };
    target_base base;
    memset(&base, 0, sizeof base);
    base.ref = "datalayer/python-cpu";
    base.channel = "2026.09";
    base.python_version = "3.13.0";
    base.arch = "amd64";
    base.platform = "manylinux_2_36_x86_64";
    base.variants = variants;
    base.digests = digests;
    base.preinstalled = pre;
    rq.base = &base;
    rq.spec_digest = "sha256:0000000000000000000000000000000000000000000000000000000000000000";
    rq.pypi_indexes = pypi;
    rq.n_pypi_indexes = npypi;
    rq.apt_sources = apt;
    rq.n_apt_sources = napt;
    rq.apt_keyring = keyring;
    rq.variants = variants;
    rq.roots = roots;
    rq.n_roots = nroots;
    rq.debug_solver_dir = debug;
    base.dpkg_status = status_file;
    rq.previous = rq.upgrade_all ? NULL : locked;
    rq.upgrade = up;
    rq.n_upgrade = nup;

    el_ctx *ctx = el_ctx_new();
    el_cache_options co;
    memset(&co, 0, sizeof co);
    co.dir = cachedir;
    co.quiet = true;
    co.no_mirror_config = true;
    co.mirrors = mirrors;
    co.n_mirrors = nm;
    cache *c = cache_open(ctx, &co);
    int status = 0;
    if (!c) {
        fprintf(stderr, "cache: %s\n", el_ctx_message(ctx));
        status = 2;
    } else {
        lock_doc *d = NULL;
        el_code rc = resolver_resolve(ctx, c, &rq, &d);
        if (rc == EL_OK) {
            size_t n = 0;
            char *y = lock_write_text(d, &n);
            if (summary)
                print_summary(d);
            else
                fwrite(y, 1, n, stdout);
            for (size_t i = 0; summary && inputs && i < d->n_inputs; i++)
                printf("input %s %s %s%s%s\n", d->inputs[i].ecosystem, d->inputs[i].url,
                       /* a Release's hash changes with a shuffled Packages */
                       strcmp(d->inputs[i].ecosystem, "deb") == 0 ? "(Release sha256)"
                       : d->inputs[i].identity[0]                ? d->inputs[i].identity
                                                                 : "\"\"",
                       d->inputs[i].modified ? " " : "",
                       d->inputs[i].modified ? d->inputs[i].modified : "");
            if (relock) {
                /* the lock just made, read back as a file would be */
                lock_doc *again = lock_read_text(ctx, y, n);
                lock_doc *d2 = NULL;
                rq.previous = again;
                el_code rc2 = again ? resolver_resolve(ctx, c, &rq, &d2) : el_ctx_code(ctx);
                size_t n2 = 0;
                char *y2 = rc2 == EL_OK ? lock_write_text(d2, &n2) : NULL;
                if (y2 && n2 == n && memcmp(y, y2, n) == 0) {
                    printf("relock: identical\n");
                } else {
                    printf("relock: DIFFERENT (%s)\n", el_code_name(rc2));
                    if (y2)
                        fwrite(y2, 1, n2, stdout);
                    status = 1;
                }
                free(y2);
                lock_doc_free(d2);
                lock_doc_free(again);
            }
            free(y);
            lock_doc_free(d);
        } else {
            char *j = el_ctx_error_json(ctx, true);
            printf("%s\n%s\n", el_code_name(rc), j);
            el_free(j);
            status = 1;
        }
        cache_close(c);
    }
    el_ctx_free(ctx);
    lock_doc_free(locked);
    free(reqdir);
    for (size_t i = 0; i < owned.len; i++)
        free(owned.items[i]);
    ptrvec_release(&owned);
    free(text);
    return status;
}
