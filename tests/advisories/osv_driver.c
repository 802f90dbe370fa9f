/* osv_driver — drives advisories/ for the tests, one mode per argument:
 *   osv_driver load DIR    the snapshot: digest, newest, withdrawn count,
 *                          one line per record and per finding
 *   osv_driver match DIR   stdin lines "ECO NAME VERSION" (eco pypi|npm|deb)
 *                          -> the ids affecting it, or "-", or "error ..."
 *   osv_driver eval        stdin lines "VERSION<TAB>RECORD-JSON" -> 1 when
 *                          the record's first affected entry covers VERSION,
 *                          0 when not, "error ..." when it cannot tell */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osv.h"

static int load(const char *dir, osv_db **db)
{
    el_ctx *ctx = el_ctx_new();
    if (osv_db_load(ctx, dir, db) != EL_OK) {
        printf("failed %s: %s\n", el_code_name(el_ctx_code(ctx)), el_ctx_message(ctx));
        el_ctx_free(ctx);
        return 1;
    }
    el_ctx_free(ctx);
    return 0;
}

static int cmd_load(const char *dir)
{
    osv_db *db = NULL;
    if (load(dir, &db))
        return 1;
    printf("digest %s\nnewest %s\nwithdrawn %zu\n", db->digest, db->newest ? db->newest : "-",
           db->n_withdrawn);
    for (size_t i = 0; i < db->n_records; i++) {
        const osv_record *r = db->records[i];
        printf("record %s %s severity=%s aliases=%zu affected=%zu\n", r->id, r->source,
               r->severity ? r->severity : "-", r->n_aliases, r->n_affected);
    }
    for (size_t i = 0; i < db->n_findings; i++)
        printf("finding %s: %s\n", db->findings[i].source, db->findings[i].message);
    osv_db_free(db);
    return 0;
}

static int cmd_match(const char *dir)
{
    osv_db *db = NULL;
    char line[4096], eco_s[32], name[1024], version[1024];
    if (load(dir, &db))
        return 1;
    while (fgets(line, sizeof line, stdin)) {
        el_ecosystem eco;
        ptrvec out = PTRVEC_INIT, bad = PTRVEC_INIT;
        if (sscanf(line, "%31s %1023s %1023s", eco_s, name, version) != 3 ||
            el_ecosystem_parse(eco_s, &eco) != 0) {
            printf("error bad line\n");
            continue;
        }
        osv_db_match(db, eco, name, version, &out, &bad);
        for (size_t i = 0; i < bad.len; i++) {
            printf("error %s ", (char *)bad.items[i]);
            free(bad.items[i]);
        }
        for (size_t i = 0; i < out.len; i++)
            printf("%s%s", i ? "," : "", ((osv_record *)out.items[i])->id);
        printf("%s\n", out.len ? "" : "-");
        ptrvec_release(&out);
        ptrvec_release(&bad);
    }
    osv_db_free(db);
    return 0;
}

static void eval_line(char *line)
{
    char *tab = strchr(line, '\t');
    arena *a = arena_new();
    osv_record *r = NULL;
    const char *why = NULL;
    bool hit = false;
    char *err = NULL;
    if (!tab) {
        printf("error no tab\n");
    } else {
        *tab = '\0';
        if (osv_parse_record(a, tab + 1, strlen(tab + 1), "stdin", &r, &why) != 1)
            printf("error record: %s\n", why ? why : "not kept");
        else if (osv_affected_eval(&r->affected[0], line, &hit, &err) != 0)
            printf("error %s\n", err);
        else
            printf("%d\n", hit ? 1 : 0);
    }
    free(err);
    arena_free(a);
}

static int cmd_eval(void)
{
    strbuf sb = STRBUF_INIT;
    int c;
    while ((c = getchar()) != EOF) {
        if (c != '\n') {
            sb_addc(&sb, (char)c);
            continue;
        }
        eval_line(sb.buf);
        sb_reset(&sb);
    }
    sb_release(&sb);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    if (argc == 3 && strcmp(argv[1], "load") == 0)
        return cmd_load(argv[2]);
    if (argc == 3 && strcmp(argv[1], "match") == 0)
        return cmd_match(argv[2]);
    if (argc == 2 && strcmp(argv[1], "eval") == 0)
        return cmd_eval();
    fprintf(stderr, "usage: osv_driver load DIR | match DIR | eval\n");
    return 2;
}
