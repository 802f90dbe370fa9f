/* text.c — small text helpers: whole-file reads, UTF-8 validation, edit
 * distance for did-you-mean suggestions, and the SHA-256 helper (the one
 * place OpenSSL is called). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "util.h"

char *read_file(const char *path, size_t max, size_t *len)
{
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
     * writer. It changes nothing for a regular file. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return NULL;
    struct stat st;
    int bad = 0;
    if (fstat(fd, &st) != 0)
        bad = errno;
    else if (S_ISDIR(st.st_mode))
        bad = EISDIR;
    else if (!S_ISREG(st.st_mode))
        bad = EINVAL;
    else if ((uint64_t)st.st_size > max)
        bad = EFBIG;
    if (bad) {
        close(fd);
        errno = bad;
        return NULL;
    }
    strbuf sb = STRBUF_INIT;
    if (st.st_size > 0)
        sb_grow(&sb, (size_t)st.st_size);
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int err = errno;
            sb_release(&sb);
            close(fd);
            errno = err;
            return NULL;
        }
        if (n == 0)
            break;
        if (sb.len + (size_t)n > max) { /* grew since the fstat */
            sb_release(&sb);
            close(fd);
            errno = EFBIG;
            return NULL;
        }
        sb_add(&sb, chunk, (size_t)n);
    }
    close(fd);
    return sb_detach(&sb, len);
}

const char *file_strerror(int err)
{
    return err == EINVAL ? "not a regular file" : strerror(err);
}

void hex_encode(const void *data, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool is_lower_hex(const char *s, size_t n)
{
    if (!s || strlen(s) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return true;
}

bool hex_decode(const char *s, unsigned char *out, size_t n)
{
    if (!s || strlen(s) != 2 * n)
        return false;
    for (size_t i = 0; i < 2 * n; i++) {
        char c = s[i];
        int v = c >= 'A' && c <= 'F' ? -1 : hex_digit(c); /* lowercase only */
        if (v < 0)
            return false;
        out[i / 2] = (unsigned char)(i % 2 == 0 ? v << 4 : out[i / 2] | v);
    }
    return true;
}

void sha256_hex(const void *data, size_t n, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (!EVP_Digest(data, n, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
        abort();
    hex_encode(md, 32, out);
}

bool base64_decode(const char *s, unsigned char *out, size_t cap, size_t *n)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t len = strlen(s);
    if (len == 0 || len % 4 || len > INT32_MAX || len / 4 * 3 > cap)
        return false;
    size_t pad = (s[len - 1] == '=') + (s[len - 2] == '=');
    if (strspn(s, alphabet) != len - pad)
        return false;
    /* EVP_DecodeBlock() counts the padding's bytes as zeros of the output. */
    int got = EVP_DecodeBlock(out, (const unsigned char *)s, (int)len);
    if (got < 0 || (size_t)got < pad)
        return false;
    *n = (size_t)got - pad;
    return true;
}

bool uuid_v5(const char *ns, const char *name, char out[37])
{
    unsigned char b[16], md[EVP_MAX_MD_SIZE];
    char hex[33];
    size_t k = 0;
    for (size_t i = 0; ns[i] && k < 32; i++)
        if (ns[i] != '-')
            hex[k++] = (char)(ns[i] >= 'A' && ns[i] <= 'F' ? ns[i] - 'A' + 'a' : ns[i]);
    hex[k] = '\0';
    if (strlen(ns) != 36 || k != 32 || !hex_decode(hex, b, 16))
        return false;
    unsigned int mdlen = 0;
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (!c || !EVP_DigestInit_ex(c, EVP_sha1(), NULL) || !EVP_DigestUpdate(c, b, 16) ||
        !EVP_DigestUpdate(c, name, strlen(name)) || !EVP_DigestFinal_ex(c, md, &mdlen) ||
        mdlen != 20)
        abort();
    EVP_MD_CTX_free(c);
    md[6] = (unsigned char)((md[6] & 0x0f) | 0x50);
    md[8] = (unsigned char)((md[8] & 0x3f) | 0x80);
    hex_encode(md, 16, hex);
    snprintf(out, 37, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12, hex + 16, hex + 20);
    return true;
}

sha256_stream *sha256_begin(void)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (!c || !EVP_DigestInit_ex(c, EVP_sha256(), NULL))
        abort();
    return (sha256_stream *)c;
}

void sha256_update(sha256_stream *s, const void *data, size_t n)
{
    if (n && !EVP_DigestUpdate((EVP_MD_CTX *)s, data, n))
        abort();
}

void sha256_end(sha256_stream *s, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (!EVP_DigestFinal_ex((EVP_MD_CTX *)s, md, &mdlen) || mdlen != 32)
        abort();
    EVP_MD_CTX_free((EVP_MD_CTX *)s);
    hex_encode(md, 32, out);
}

/* One "ALGO-BASE64[?opts]" token of an SRI value against the data. */
static bool sri_token(const char *tok, size_t len, const void *data, size_t n)
{
    const char *dash = memchr(tok, '-', len);
    if (!dash)
        return false;
    char algo[16];
    size_t al = (size_t)(dash - tok);
    if (al >= sizeof algo)
        return false;
    memcpy(algo, tok, al);
    algo[al] = '\0';
    if (strcmp(algo, "sha512") != 0 && strcmp(algo, "sha384") != 0 &&
        strcmp(algo, "sha256") != 0 && strcmp(algo, "sha1") != 0)
        return false;
    const EVP_MD *md = EVP_get_digestbyname(algo);
    unsigned char dg[EVP_MAX_MD_SIZE];
    unsigned int dl = 0;
    if (!md || !EVP_Digest(data, n, dg, &dl, md, NULL))
        return false;
    unsigned char b64[4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1];
    int bl = EVP_EncodeBlock(b64, dg, (int)dl);
    const char *val = dash + 1;
    size_t vl = len - al - 1;
    const char *q = memchr(val, '?', vl);
    if (q)
        vl = (size_t)(q - val);
    return bl > 0 && (size_t)bl == vl && memcmp(b64, val, vl) == 0;
}

bool sri_matches(const char *integrity, const void *data, size_t n)
{
    for (const char *p = integrity; p && *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        size_t len = strcspn(p, " \t");
        if (len && sri_token(p, len, data, n))
            return true;
        p += len;
    }
    return false;
}

bool utf8_next(const unsigned char *s, size_t n, size_t *i, unsigned *cp)
{
    unsigned c = s[*i];
    if (c < 0x80) {
        *cp = c;
        (*i)++;
        return true;
    }
    size_t need;
    unsigned min, v;
    if ((c & 0xE0) == 0xC0) {
        need = 1; min = 0x80; v = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        need = 2; min = 0x800; v = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        need = 3; min = 0x10000; v = c & 0x07;
    } else {
        return false;
    }
    if (n - *i <= need)
        return false;
    for (size_t j = 1; j <= need; j++) {
        unsigned b = s[*i + j];
        if ((b & 0xC0) != 0x80)
            return false;
        v = (v << 6) | (b & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return false;
    *cp = v;
    *i += need + 1;
    return true;
}

bool utf8_valid(const char *s, size_t n)
{
    size_t i = 0;
    unsigned cp;
    while (i < n)
        if (!utf8_next((const unsigned char *)s, n, &i, &cp))
            return false;
    return true;
}

size_t edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    size_t *d = xcalloc((n + 1) * (m + 1), sizeof(size_t));
#define D(i, j) d[(i) * (m + 1) + (j)]
    for (size_t i = 0; i <= n; i++)
        D(i, 0) = i;
    for (size_t j = 0; j <= m; j++)
        D(0, j) = j;
    for (size_t i = 1; i <= n; i++) {
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = D(i - 1, j) + 1;
            if (D(i, j - 1) + 1 < best)
                best = D(i, j - 1) + 1;
            if (D(i - 1, j - 1) + cost < best)
                best = D(i - 1, j - 1) + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                D(i - 2, j - 2) + 1 < best)
                best = D(i - 2, j - 2) + 1;
            D(i, j) = best;
        }
    }
    size_t r = D(n, m);
#undef D
    free(d);
    return r;
}

/* Whether `a`'s characters appear in `b` in order (an abbreviation such as
 * `--upgrade-pkg` of `--upgrade-package`). */
static bool subsequence(const char *a, const char *b)
{
    for (; *a && *b; b++)
        if (*a == *b)
            a++;
    return *a == '\0';
}

const char *el_closest_name(const char *word, const char *const *names, size_t n)
{
    size_t len = strlen(word), limit = len / 3;
    limit = limit < 1 ? 1 : limit > 3 ? 3 : limit;
    const char *best = NULL, *abbrev = NULL;
    size_t best_d = limit + 1, n_abbrev = 0;
    for (size_t i = 0; i < n; i++) {
        size_t d = edit_distance(word, names[i]);
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
        if (len >= 4 && word[0] == names[i][0] && subsequence(word, names[i]) &&
            (!abbrev || strcmp(abbrev, names[i]) != 0)) {
            abbrev = names[i];
            n_abbrev++;
        }
    }
    return best ? best : n_abbrev == 1 ? abbrev : NULL;
}
