/* spec_path.c — finding nodes in the positioned tree: a key in a mapping, and
 * a whole field path ("spec.packages.python.dependencies[2]") so that rules
 * working on the normalized document can point at the line and column the
 * user wrote. Paths use the document's camelCase; the tree may hold the
 * snake_case spelling, and keys may themselves contain dots (env names are
 * reported verbatim), so each step takes the longest key that fits. */
#include <stdlib.h>
#include <string.h>

#include "spec_internal.h"

spec_node *spec_node_get(const spec_node *map, const char *key)
{
    if (!map || map->kind != SN_MAP)
        return NULL;
    size_t n = strlen(key);
    for (size_t k = 0; k < map->n; k++) {
        const spec_node *kn = map->keys[k];
        if (kn->text && kn->text_len == n && memcmp(kn->text, key, n) == 0)
            return map->items[k];
    }
    return NULL;
}

/* Compares a path segment written in camelCase against a key that may be
 * spelled in snake_case: "sizeClass" fits "sizeClass" and "size_class".
 * Returns the number of path bytes consumed, or 0. */
static size_t fits(const char *path, const char *key, size_t keylen)
{
    /* verbatim */
    if (strncmp(path, key, keylen) == 0 && keylen > 0)
        return keylen;
    /* snake key against camel path */
    size_t p = 0, k = 0;
    while (k < keylen) {
        char c = key[k];
        if (c == '_' && k + 1 < keylen && key[k + 1] >= 'a' && key[k + 1] <= 'z') {
            if (path[p] != key[k + 1] - 'a' + 'A')
                return 0;
            p++;
            k += 2;
            continue;
        }
        if (path[p] != c)
            return 0;
        p++;
        k++;
    }
    return p;
}

const spec_node *spec_node_at_path(const spec_node *root, const char *path)
{
    const spec_node *cur = root;
    const char *r = path;
    if (!root)
        return NULL;
    while (*r) {
        if (*r == '.') {
            r++;
            continue;
        }
        if (*r == '[') {
            char *end;
            unsigned long idx = strtoul(r + 1, &end, 10);
            if (*end != ']' || cur->kind != SN_SEQ || idx >= cur->n)
                return cur;
            cur = cur->items[idx];
            r = end + 1;
            continue;
        }
        if (cur->kind != SN_MAP)
            return cur;
        size_t best = 0;
        const spec_node *next = NULL;
        for (size_t k = 0; k < cur->n; k++) {
            const spec_node *kn = cur->keys[k];
            if (!kn->text)
                continue;
            size_t used = fits(r, kn->text, kn->text_len);
            if (!used || (r[used] != '\0' && r[used] != '.' && r[used] != '['))
                continue;
            if (used > best) {
                best = used;
                next = cur->items[k];
            }
        }
        if (!next)
            return cur;
        cur = next;
        r += best;
    }
    return cur;
}
