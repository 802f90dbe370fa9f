/* lock_tool.c — the lockfile module from the shell, for tests that need
 * another program to look at the bytes (sha256sum, PyYAML):
 *   lock_tool gen SEED [MAXPKG]   print a generated doc's canonical text
 *   lock_tool write SEED FILE     write it with lock_write_file, print the digest
 *   lock_tool reread FILE         read FILE strictly and print its canonical text
 *   lock_tool read FILE           read FILE strictly and print its package count
 *                                 (bench/plan: the floor of every plan and export)
 *   lock_tool sample              print a small realistic lock (the docs' example) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lock_gen.h"
#include "lock_sample.h"

static int put_text(lock_doc *d)
{
    size_t len = 0;
    char *t = lock_write_text(d, &len);
    if (!t) {
        fprintf(stderr, "lock_write_text failed\n");
        return 1;
    }
    fwrite(t, 1, len, stdout);
    free(t);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "gen") == 0) {
        lock_doc *d = gen_doc(strtoull(argv[2], NULL, 10), argc > 3 ? strtoul(argv[3], NULL, 10) : 8);
        int rc = put_text(d);
        lock_doc_free(d);
        return rc;
    }
    if (argc == 2 && strcmp(argv[1], "sample") == 0) {
        lock_doc *d = sample_doc();
        int rc = put_text(d);
        lock_doc_free(d);
        return rc;
    }
    el_ctx *ctx = el_ctx_new();
    int rc = 2;
    if (argc == 4 && strcmp(argv[1], "write") == 0) {
        lock_doc *d = gen_doc(strtoull(argv[2], NULL, 10), 8);
        char digest[72];
        if (lock_write_file(ctx, d, argv[3], digest) == EL_OK) {
            printf("%s\n", digest);
            rc = 0;
        } else {
            fprintf(stderr, "%s\n", el_ctx_message(ctx));
            rc = 1;
        }
        lock_doc_free(d);
    } else if (argc == 3 && strcmp(argv[1], "reread") == 0) {
        lock_doc *d = lock_read_file(ctx, argv[2]);
        if (d) {
            rc = put_text(d);
            lock_doc_free(d);
        } else {
            fprintf(stderr, "%s\n", el_ctx_message(ctx));
            rc = 1;
        }
    } else if (argc == 3 && strcmp(argv[1], "read") == 0) {
        lock_doc *d = lock_read_file(ctx, argv[2]);
        if (d) {
            printf("%zu\n", d->n_packages);
            rc = 0;
            lock_doc_free(d);
        } else {
            fprintf(stderr, "%s\n", el_ctx_message(ctx));
            rc = 1;
        }
    } else if (argc == 3 && strcmp(argv[1], "validate") == 0) {
        lock_doc *d = lock_read_file(ctx, argv[2]);
        rc = d && lock_validate(ctx, d) == EL_OK ? 0 : 1;
        if (rc)
            fprintf(stderr, "%s\n", el_ctx_message(ctx));
        lock_doc_free(d);
    } else {
        fprintf(stderr, "usage: lock_tool gen SEED [MAXPKG] | write SEED FILE | reread FILE | read FILE | "
                        "validate FILE | sample\n");
    }
    el_ctx_free(ctx);
    return rc;
}
