/* crypto.h — Ed25519 signatures for envlock's archives (util/crypto.c).
 * With sha256_* (util.h) the only calls into OpenSSL's libcrypto: nothing
 * else in envlock includes an OpenSSL header. Keys are PEM files as the
 * openssl tool writes them:
 *   openssl genpkey -algorithm ed25519 -out key.pem      (private, PKCS#8)
 *   openssl pkey -in key.pem -pubout -out key.pub.pem    (public, SPKI)
 * An encrypted private key is refused (envlock never prompts). */
#ifndef EL_CRYPTO_H
#define EL_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>

#define ED25519_PUBLIC_LEN 32
#define ED25519_SIG_LEN 64

typedef struct ed25519_key ed25519_key;

/* ed25519_key_load() :
 *  The Ed25519 key in PEM file `path`: a private key, or, unless
 *  `need_private`, a public key (a private key file also serves to
 *  verify). NULL on failure, with *err the errno when the file could not
 *  be read (0 when it was read but holds no usable key) and *why a static
 *  phrase ("cannot read the file", "not a PEM key", "not an Ed25519 key",
 *  "a public key, not a private key", "an encrypted private key"). Free
 *  with ed25519_key_free() (NULL is a no-op). */
ed25519_key *ed25519_key_load(const char *path, bool need_private, const char **why, int *err);
void ed25519_key_free(ed25519_key *k);

/* ed25519_key_public() : the key's raw 32-byte public key into pub. */
void ed25519_key_public(const ed25519_key *k, unsigned char pub[ED25519_PUBLIC_LEN]);

/* ed25519_sign() : the signature of msg[0..n) into sig (Ed25519 is
 *  deterministic: the same key and message give the same bytes). `k` must
 *  hold a private key. false only if libcrypto fails. */
bool ed25519_sign(const ed25519_key *k, const void *msg, size_t n,
                  unsigned char sig[ED25519_SIG_LEN]);

/* ed25519_verify() : whether sig is k's signature of msg[0..n). */
bool ed25519_verify(const ed25519_key *k, const void *msg, size_t n,
                    const unsigned char sig[ED25519_SIG_LEN]);

#endif
