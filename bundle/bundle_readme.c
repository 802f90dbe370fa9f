/* bundle_readme.c — DIR/README: what the bundle is, an nginx
 * configuration that serves it as it is (PEP 691 JSON by content
 * negotiation, npm names through try_files), and the --mirror lines and
 * installer settings that point envlock, pip, npm and apt at it. The nginx
 * part sits between two marker lines so tools (and the tests) can take it
 * out. docs/bundle.md explains the same in prose. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bundle_internal.h"

static void nginx_conf(bundle *b, const char *root, strbuf *sb)
{
    sb_adds(sb, "# --- nginx: begin (inside http { }) ---\n"
                "map $http_accept $envlock_pypi_page {\n"
                "    default index.html;\n"
                "    \"~*application/vnd\\.pypi\\.simple\\.v1\\+json\" index.json;\n"
                "}\n"
                "server {\n"
                "    listen 8080;\n");
    sb_addf(sb, "    root %s;\n", root);
    sb_adds(sb, "    types {\n"
                "        application/json json;\n"
                "        text/html html;\n"
                "        application/octet-stream whl tgz deb metadata gpg gz xz conda bz2;\n"
                "    }\n"
                "    default_type application/octet-stream;\n"
                "    # PyPI: PEP 691 JSON for clients that ask for it, PEP 503 HTML otherwise\n"
                "    location ~ /simple/(.*/)?index\\.json$ {\n"
                "        types { }\n"
                "        default_type application/vnd.pypi.simple.v1+json;\n"
                "        add_header Vary Accept;\n"
                "    }\n"
                "    location ~ /simple/(.*/)?index\\.html$ {\n"
                "        types { }\n"
                "        default_type text/html;\n"
                "        add_header Vary Accept;\n"
                "    }\n"
                "    location ~ /simple/(.*/)?$ {\n"
                "        index $envlock_pypi_page index.html;\n"
                "    }\n");
    for (size_t i = 0; i < b->trees.len; i++) {
        const bundle_tree *t = b->trees.items[i];
        if (strcmp(t->ecosystem, "npm") != 0)
            continue;
        /* npm asks for /NAME and /@scope%2fname (which nginx decodes). */
        sb_addf(sb, "    # npm registry %s\n"
                    "    location /%s/ {\n"
                    "        try_files $uri $uri/index.json =404;\n"
                    "    }\n", t->canonical, t->dir);
    }
    sb_adds(sb, "}\n# --- nginx: end ---\n");
}

static void usage_lines(bundle *b, const char *base, strbuf *sb)
{
    sb_adds(sb, "\nPoint envlock at it (global options, or one pair per line in the\n"
                "mirrors file; see envlock --help):\n\n");
    for (size_t i = 0; i < b->st->n_mirrors; i++) {
        const bundle_mirror *m = &b->st->mirrors[i];
        sb_addf(sb, "  --mirror %s=%s/%s\n", m->canonical, base, m->path);
    }
    if (b->has_advisories)
        sb_adds(sb, "\nAudit the lock here with the advisory snapshot it was resolved with\n"
                    "(" BUNDLE_ADVISORIES "/, copied byte for byte; check and resolve take it too):\n\n"
                    "  envlock audit LOCK --advisories THIS-DIRECTORY/" BUNDLE_ADVISORIES "\n");
    sb_adds(sb, "\nAnd the installers:\n\n");
    for (size_t i = 0; i < b->st->n_mirrors; i++) {
        const bundle_mirror *m = &b->st->mirrors[i];
        if (strcmp(m->ecosystem, "pypi") == 0)
            sb_addf(sb, "  pip:  --index-url %s/%s/   (for %s)\n", base, m->path, m->canonical);
        else if (strcmp(m->ecosystem, "npm") == 0)
            sb_addf(sb, "  npm:  registry=%s/%s/   (for %s; a package-lock.json's `resolved`\n"
                        "        URLs must name this registry too: envlock plan --mirror)\n",
                    base, m->path, m->canonical);
        else if (strcmp(m->ecosystem, "conda") == 0)
            sb_addf(sb, "  conda, micromamba:  --override-channels -c %s/%s   (for %s; or the\n"
                        "        explicit file of envlock plan --mirror, whose URLs name it)\n",
                    base, m->path, m->canonical);
        else
            sb_addf(sb, "  apt:  deb [signed-by=KEYRING] %s/%s/ SUITE COMPONENT...   (for %s;\n"
                        "        the Release files are the archive's own, signed by its key)\n",
                    base, m->path, m->canonical);
    }
}

bool bundle_readme(bundle *b, const char *base_url)
{
    char root[PATH_MAX];
    if (!realpath(b->dir, root))
        snprintf(root, sizeof root, "%s", b->dir);
    size_t bl = strlen(base_url);
    while (bl && base_url[bl - 1] == '/')
        bl--;
    char *base = xstrndup(base_url, bl);
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "This directory is a static mirror written by `envlock bundle`: every\n"
                 "artifact a lock installs, verified against the lock's hashes, and the\n"
                 "index documents the lock was resolved from, so that `envlock resolve`\n"
                 "of the same spec here gives the same lock. Layout and limits:\n"
                 "docs/bundle.md in envlock's sources. Running `envlock bundle` again\n"
                 "into this directory fetches only what is missing or wrong.\n\n"
                 "Serve it as it is, e.g. with nginx (this block goes inside http { };\n"
                 "change `listen` and, if the tree moves, `root`):\n\n");
    nginx_conf(b, root, &sb);
    usage_lines(b, base, &sb);
    bool ok = bundle_put(b, "README", sb.buf, sb.len);
    sb_release(&sb);
    free(base);
    return ok;
}
