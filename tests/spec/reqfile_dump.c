/* reqfile_dump.c — prints how spec_reqfile_parse() reads a requirements
 * file (stdin), one fact per line, for reqfile_pip.py to compare with
 * pip's own reader:
 *   req LINE COLUMN INDEX TEXT        (then "hash HASH" lines for it)
 *   index LINE URL / pre / require-hashes / only NAME / no NAME
 *   problem LINE COLUMN INDEX CODE MESSAGE */
#include <stdio.h>
#include <stdlib.h>

#include "envlock/error.h"
#include "spec_requirements.h"

int main(void)
{
    strbuf in;
    sb_init(&in);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)
        sb_add(&in, buf, n);
    arena *mem = arena_new();
    spec_reqfile *f = spec_reqfile_parse(mem, in.buf);
    for (size_t i = 0; i < f->n_reqs; i++) {
        printf("req %u %u %u %s\n", f->reqs[i].line, f->reqs[i].column, f->reqs[i].index,
               f->reqs[i].text);
        for (size_t k = 0; k < f->reqs[i].n_hashes; k++)
            printf("hash %s\n", f->reqs[i].hashes[k]);
    }
    for (size_t i = 0; i < f->n_indexes; i++)
        printf("index %u %s\n", f->indexes[i].line, f->indexes[i].url);
    if (f->pre)
        printf("pre\n");
    if (f->require_hashes)
        printf("require-hashes\n");
    for (size_t i = 0; i < f->n_only_binary; i++)
        printf("only %s\n", f->only_binary[i]);
    for (size_t i = 0; i < f->n_no_binary; i++)
        printf("no %s\n", f->no_binary[i]);
    for (size_t i = 0; i < f->n_problems; i++)
        printf("problem %u %u %ld %s %s\n", f->problems[i].line, f->problems[i].column,
               f->problems[i].index, el_code_name(f->problems[i].code), f->problems[i].message);
    arena_free(mem);
    sb_release(&in);
    return 0;
}
