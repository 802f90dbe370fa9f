/* npm_semver_driver.c — batch driver for the differential test against
 * node's semver package. Reads one JSON case per line on stdin, writes one
 * JSON answer per line on stdout, in the format npm_semver_ref.js uses:
 *   ["valid", text, opts]          -> normalized version or null
 *   ["clean", text, opts]          -> normalized version or null
 *   ["compare", a, b, opts]        -> -1/0/1, or "THROW" if either is invalid
 *   ["compare_build", a, b, opts]  -> same, with build metadata
 *   ["satisfies", v, range, opts]  -> true/false
 *   ["valid_range", range, opts]   -> normalized range or null
 *   ["max"|"min", [versions], range, opts] -> a version or null
 * opts: 1 = loose, 2 = includePrerelease. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "semver.h"

static json_object *str_or_null(char *s)
{
    json_object *o = s ? json_object_new_string(s) : json_object_new_null();
    free(s);
    return o;
}

static const char *arg_str(json_object *a, size_t i)
{
    return json_object_get_string(json_object_array_get_idx(a, i));
}

static unsigned arg_opts(json_object *a, size_t i)
{
    return (unsigned)json_object_get_int(json_object_array_get_idx(a, i));
}

static json_object *do_compare(json_object *a, bool build)
{
    npm_semver x, y;
    unsigned o = arg_opts(a, 3);
    if (npm_semver_parse(&x, arg_str(a, 1), o, NULL) != 0)
        return json_object_new_string("THROW");
    if (npm_semver_parse(&y, arg_str(a, 2), o, NULL) != 0) {
        npm_semver_release(&x);
        return json_object_new_string("THROW");
    }
    int r = build ? npm_semver_compare_build(&x, &y) : npm_semver_compare(&x, &y);
    npm_semver_release(&x);
    npm_semver_release(&y);
    return json_object_new_int(r);
}

static json_object *do_pick(json_object *a, bool max)
{
    json_object *list = json_object_array_get_idx(a, 1);
    size_t n = json_object_array_length(list);
    const char **v = calloc(n ? n : 1, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = json_object_get_string(json_object_array_get_idx(list, i));
    long k = max ? npm_max_satisfying(v, n, arg_str(a, 2), arg_opts(a, 3))
                 : npm_min_satisfying(v, n, arg_str(a, 2), arg_opts(a, 3));
    json_object *r = k < 0 ? json_object_new_null() : json_object_new_string(v[k]);
    free(v);
    return r;
}

static json_object *run(json_object *a)
{
    const char *op = arg_str(a, 0);
    if (strcmp(op, "valid") == 0)
        return str_or_null(npm_valid(arg_str(a, 1), arg_opts(a, 2)));
    if (strcmp(op, "clean") == 0)
        return str_or_null(npm_clean(arg_str(a, 1), arg_opts(a, 2)));
    if (strcmp(op, "compare") == 0)
        return do_compare(a, false);
    if (strcmp(op, "compare_build") == 0)
        return do_compare(a, true);
    if (strcmp(op, "satisfies") == 0)
        return json_object_new_boolean(npm_satisfies(arg_str(a, 1), arg_str(a, 2), arg_opts(a, 3)));
    if (strcmp(op, "valid_range") == 0)
        return str_or_null(npm_valid_range(arg_str(a, 1), arg_opts(a, 2)));
    if (strcmp(op, "max") == 0)
        return do_pick(a, true);
    if (strcmp(op, "min") == 0)
        return do_pick(a, false);
    return json_object_new_string("UNKNOWN-OP");
}

int main(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, stdin)) > 0) {
        json_object *a = json_tokener_parse(line);
        if (!a || !json_object_is_type(a, json_type_array)) {
            fprintf(stderr, "bad case line: %s", line);
            return 2;
        }
        json_object *r = run(a);
        puts(json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(r);
        json_object_put(a);
    }
    free(line);
    return 0;
}
