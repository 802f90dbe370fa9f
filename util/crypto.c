/* crypto.c — Ed25519 keys, signing and verification (crypto.h) on
 * OpenSSL's EVP_PKEY interface. Owns nothing but the key objects; what is
 * signed, and what a failed check means, is the caller's business. Keys are
 * read whole through read_file() (which never blocks on a FIFO) and parsed
 * from memory, with a passphrase callback that refuses, so an encrypted
 * key is an error instead of a prompt. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "crypto.h"
#include "util.h"

/* A PEM key is a few hundred bytes; anything much larger is not one. */
#define KEY_FILE_MAX (64u << 10)

struct ed25519_key {
    EVP_PKEY *pkey;
    bool is_private;
};

static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
    (void)buf;
    (void)size;
    (void)rwflag;
    *(bool *)u = true;
    return -1;
}

ed25519_key *ed25519_key_load(const char *path, bool need_private, const char **why, int *err)
{
    *err = 0;
    size_t n;
    char *pem = read_file(path, KEY_FILE_MAX, &n);
    if (!pem) {
        *err = errno;
        *why = "cannot read the file";
        return NULL;
    }
    bool wanted_passphrase = false;
    bool is_private = true;
    BIO *bio = BIO_new_mem_buf(pem, (int)n);
    if (!bio)
        abort();
    EVP_PKEY *pk = PEM_read_bio_PrivateKey(bio, NULL, no_passphrase, &wanted_passphrase);
    if (!pk && !wanted_passphrase) {
        is_private = false;
        BIO_free(bio);
        bio = BIO_new_mem_buf(pem, (int)n);
        if (!bio)
            abort();
        pk = PEM_read_bio_PUBKEY(bio, NULL, no_passphrase, NULL);
    }
    BIO_free(bio);
    OPENSSL_cleanse(pem, n);
    free(pem);
    ERR_clear_error();
    if (!pk) {
        *why = wanted_passphrase ? "an encrypted private key" : "not a PEM key";
        return NULL;
    }
    if (!EVP_PKEY_is_a(pk, "ED25519")) {
        EVP_PKEY_free(pk);
        *why = "not an Ed25519 key";
        return NULL;
    }
    if (need_private && !is_private) {
        EVP_PKEY_free(pk);
        *why = "a public key, not a private key";
        return NULL;
    }
    ed25519_key *k = xcalloc(1, sizeof *k);
    k->pkey = pk;
    k->is_private = is_private;
    return k;
}

void ed25519_key_free(ed25519_key *k)
{
    if (!k)
        return;
    EVP_PKEY_free(k->pkey);
    free(k);
}

void ed25519_key_public(const ed25519_key *k, unsigned char pub[ED25519_PUBLIC_LEN])
{
    size_t len = ED25519_PUBLIC_LEN;
    if (EVP_PKEY_get_raw_public_key(k->pkey, pub, &len) != 1 || len != ED25519_PUBLIC_LEN)
        abort(); /* every Ed25519 key has its 32-byte public half */
}

bool ed25519_sign(const ed25519_key *k, const void *msg, size_t n,
                  unsigned char sig[ED25519_SIG_LEN])
{
    if (!k->is_private)
        return false;
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (!c)
        abort();
    size_t len = ED25519_SIG_LEN;
    /* Ed25519 hashes internally: no digest is named, and it signs in one shot. */
    bool ok = EVP_DigestSignInit(c, NULL, NULL, NULL, k->pkey) == 1 &&
              EVP_DigestSign(c, sig, &len, msg, n) == 1 && len == ED25519_SIG_LEN;
    EVP_MD_CTX_free(c);
    ERR_clear_error();
    return ok;
}

bool ed25519_verify(const ed25519_key *k, const void *msg, size_t n,
                    const unsigned char sig[ED25519_SIG_LEN])
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (!c)
        abort();
    bool ok = EVP_DigestVerifyInit(c, NULL, NULL, NULL, k->pkey) == 1 &&
              EVP_DigestVerify(c, sig, ED25519_SIG_LEN, msg, n) == 1;
    EVP_MD_CTX_free(c);
    ERR_clear_error();
    return ok;
}
