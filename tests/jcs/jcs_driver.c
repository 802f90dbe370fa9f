/* jcs_driver.c — batch driver for the differential tests against node.
 *   jcs_driver numbers    reads IEEE-754 bit patterns (hex) one a line and
 *                         prints spec_jcs_number() of each ("ERROR" if refused);
 *   jcs_driver documents  reads one JSON document a line and prints its
 *                         canonical form ("ERROR" if refused or unparseable). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "spec_internal.h"

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "numbers") && strcmp(argv[1], "documents"))) {
        fprintf(stderr, "usage: jcs_driver numbers|documents < input\n");
        return 2;
    }
    bool numbers = !strcmp(argv[1], "numbers");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (numbers) {
            uint64_t bits = strtoull(line, NULL, 16);
            double d;
            memcpy(&d, &bits, sizeof d);
            char out[32];
            puts(spec_jcs_number(d, out) ? out : "ERROR");
        } else {
            enum json_tokener_error jerr;
            struct json_object *v = json_tokener_parse_verbose(line, &jerr);
            char *s = jerr == json_tokener_success ? spec_jcs_serialize(v, NULL) : NULL;
            puts(s ? s : "ERROR");
            free(s);
            json_object_put(v);
        }
    }
    free(line);
    return 0;
}
