/* apt_verify.c — OpenPGP signatures of Release files. Detached signatures
 * (Release.gpg) are checked in-process with libsolvext (repo_add_keyring +
 * solvsig_verify); clearsigned InRelease files by gpgv, run with posix_spawn
 * (no shell) in a private temporary GnuPG home, because libsolv 0.7.23 has no
 * clearsign framing. Also owns the verdict cache: a good verdict is
 * recorded in the cache under the hash of the exact bytes, keyring and gpgv
 * it was made with, so a warm run starts no gpgv (see "the verdict cache"
 * below). Owns nothing else: which keyring applies and what a failure means
 * for a repository is the loader's. */
#define _GNU_SOURCE 1 /* environ */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <solv/pool.h>
#include <solv/repo.h>
#include <solv/repo_pubkey.h>
#include <solv/solv_xfopen.h>
#include <solv/chksum.h>
#include <solv/solvversion.h>

#include "apt_index.h"
#include "apt_internal.h"
#include "cache.h"

extern char **environ;

#define APT_GPGV_OUTPUT_MAX (64u << 20)

static void set_why(char **why, char *msg)
{
    if (why)
        *why = msg;
    else
        free(msg);
}

static bool keyring_readable(const char *keyring)
{
    return keyring && access(keyring, R_OK) == 0;
}

/* write_all() : the whole buffer to a new file at `path` (mode 0600). */
static bool write_all(const char *path, const void *data, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return false;
    if (file_write_all(fd, data, n) != 0) {
        close(fd);
        return false;
    }
    return close(fd) == 0;
}

/* remove_tree() : the flat temporary directory and its files. */
static void remove_tmpdir(const char *dir)
{
    static const char *const names[] = { "in", "sig", "out", "pubring.kbx", "trustdb.gpg",
                                         "trustedkeys.kbx", "trustedkeys.gpg" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char *p = xasprintf("%s/%s", dir, names[i]);
        unlink(p);
        free(p);
    }
    rmdir(dir);
}

/* find_gpgv() : the file posix_spawnp() would run for "gpgv": the first
 *  executable regular file named gpgv in a PATH directory (an empty entry is
 *  the current directory; no PATH: glibc's default, /bin:/usr/bin). The
 *  verdict cache names gpgv by this path and its inode, and run_gpgv() runs
 *  exactly this file. malloc'd, or NULL when there is none. */
static char *find_gpgv(void)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/bin:/usr/bin";
    for (const char *p = path;;) {
        const char *colon = strchr(p, ':');
        size_t dl = colon ? (size_t)(colon - p) : strlen(p);
        char *cand = dl ? xasprintf("%.*s/gpgv", (int)dl, p) : xstrdup("./gpgv");
        struct stat st;
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
            return cand;
        free(cand);
        if (!colon)
            return NULL;
        p = colon + 1;
    }
}

/* run_gpgv() : the gpgv at `gpgv` (NULL: none found) with `args`
 *  (NULL-terminated); its status output (fd 1) is read into *status.
 *  Returns the exit status, 127 if gpgv could not be started, or -1 on an
 *  internal failure. */
static int run_gpgv(const char *gpgv, char *const *args, strbuf *status)
{
    if (!gpgv)
        return 127;
    int pipefd[2];
    if (pipe(pipefd) < 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclose(&fa, pipefd[0]);
    posix_spawn_file_actions_addclose(&fa, pipefd[1]);
    pid_t pid;
    int rc = posix_spawn(&pid, gpgv, &fa, NULL, args, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pipefd[1]);
    if (rc != 0) {
        close(pipefd[0]);
        return rc == ENOENT || rc == EACCES ? 127 : -1;
    }
    char buf[4096];
    for (;;) {
        ssize_t r = read(pipefd[0], buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        if (status->len < (1u << 20))
            sb_add(status, buf, (size_t)r);
    }
    close(pipefd[0]);
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

/* validsig_expires() : the signature's expiration from a VALIDSIG status
 *  line's arguments ("FPR CREATION_DATE SIG_TIMESTAMP EXPIRE_TIMESTAMP ..."):
 *  0 for none, the Unix time, or -1 when the field is missing or not plain
 *  seconds (gpg may print ISO 8601 there). */
static int64_t validsig_expires(const char *args, size_t n)
{
    const char *p = args, *end = args + n;
    for (int field = 0; field < 4; field++) {
        while (p < end && *p == ' ')
            p++;
        const char *tok = p;
        while (p < end && *p != ' ')
            p++;
        if (field < 3)
            continue;
        if (tok == p || (size_t)(p - tok) > 18)
            return -1;
        int64_t v = 0;
        for (const char *q = tok; q < p; q++) {
            if (*q < '0' || *q > '9')
                return -1;
            v = v * 10 + (*q - '0');
        }
        return v;
    }
    return -1;
}

/* judge_status() : GOOD only for a clean gpgv run; otherwise *why says what.
 *  *sig_expires gets the signature's own expiration (see validsig_expires). */
static apt_sig_result judge_status(int exit_code, const char *status, char **why,
                                   int64_t *sig_expires)
{
    *sig_expires = -1;
    static const char *const bad[] = { "BADSIG", "ERRSIG", "NO_PUBKEY", "EXPKEYSIG", "REVKEYSIG",
                                       "EXPSIG", "NODATA", "BADARMOR" };
    bool good = false, valid = false;
    const char *line = status;
    while (*line) {
        const char *nl = strchr(line, '\n');
        size_t ll = nl ? (size_t)(nl - line) : strlen(line);
        if (ll > 9 && strncmp(line, "[GNUPG:] ", 9) == 0) {
            const char *kw = line + 9;
            size_t kl = ll - 9;
            for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
                size_t bl = strlen(bad[i]);
                if (kl >= bl && strncmp(kw, bad[i], bl) == 0 && (kl == bl || kw[bl] == ' ')) {
                    set_why(why, xasprintf("gpgv: %.*s", (int)(kl > 200 ? 200 : kl), kw));
                    return APT_SIG_BAD;
                }
            }
            if (kl >= 7 && strncmp(kw, "GOODSIG", 7) == 0)
                good = true;
            if (kl > 9 && strncmp(kw, "VALIDSIG ", 9) == 0) {
                valid = true;
                *sig_expires = validsig_expires(kw + 9, kl - 9);
            }
        }
        if (!nl)
            break;
        line = nl + 1;
    }
    if (exit_code == 0 && good && valid)
        return APT_SIG_GOOD;
    set_why(why, xasprintf("gpgv exited with status %d and no good signature", exit_code));
    return APT_SIG_BAD;
}

/* absolute_keyring() : gpgv looks a keyring name without a slash up in its
 *  home directory; make every path explicit. */
static char *absolute_keyring(const char *keyring)
{
    if (keyring[0] == '/')
        return xstrdup(keyring);
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return xasprintf("./%s", keyring);
    return xasprintf("%s/%s", cwd, keyring);
}

/* gpgv_verify() : `in` (clearsigned) alone, or `sig` over `in`, by the gpgv
 *  at `gpgv` (NULL: not installed). *sig_expires as judge_status() says
 *  (-1 unless GOOD). */
static apt_sig_result gpgv_verify(const char *gpgv, const char *keyring, const void *in,
                                  size_t in_n, const void *sig, size_t sig_n, char **text,
                                  size_t *len, char **why, int64_t *sig_expires)
{
    *sig_expires = -1;
    if (!keyring_readable(keyring)) {
        set_why(why, xasprintf("keyring %s cannot be read", keyring ? keyring : "(none)"));
        return APT_SIG_NO_KEYRING;
    }
    const char *tmp = getenv("TMPDIR");
    char *dir = xasprintf("%s/envlock-gpgv-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        set_why(why, xasprintf("cannot create a temporary directory: %s", strerror(errno)));
        free(dir);
        return APT_SIG_BAD;
    }
    char *inp = xasprintf("%s/in", dir), *sigp = xasprintf("%s/sig", dir),
         *outp = xasprintf("%s/out", dir), *kr = absolute_keyring(keyring);
    apt_sig_result res = APT_SIG_BAD;
    strbuf status = STRBUF_INIT;
    if (!write_all(inp, in, in_n) || (sig && !write_all(sigp, sig, sig_n))) {
        set_why(why, xasprintf("cannot write to %s: %s", dir, strerror(errno)));
        goto out;
    }
    char *args[16];
    size_t k = 0;
    args[k++] = (char *)"gpgv";
    args[k++] = (char *)"--homedir";
    args[k++] = dir;
    args[k++] = (char *)"--status-fd";
    args[k++] = (char *)"1";
    args[k++] = (char *)"--keyring";
    args[k++] = kr;
    if (text) {
        args[k++] = (char *)"--output";
        args[k++] = outp;
    }
    args[k++] = (char *)"--";
    if (sig) {
        args[k++] = sigp;
        args[k++] = inp;
    } else {
        args[k++] = inp;
    }
    args[k] = NULL;
    int ec = run_gpgv(gpgv, args, &status);
    if (ec == 127) {
        set_why(why, xstrdup("gpgv is not installed (package gpgv)"));
        res = APT_SIG_NO_TOOL;
        goto out;
    }
    res = judge_status(ec, status.buf, why, sig_expires);
    if (res == APT_SIG_GOOD && text) {
        *text = read_file(outp, APT_GPGV_OUTPUT_MAX, len);
        if (!*text) {
            set_why(why, xasprintf("gpgv wrote no output: %s", strerror(errno)));
            res = APT_SIG_BAD;
        }
    }
out:
    sb_release(&status);
    remove_tmpdir(dir);
    free(inp);
    free(sigp);
    free(outp);
    free(kr);
    free(dir);
    return res;
}

/* detached_verify() : apt_verify_detached() by `gpgv` (NULL: none) when
 *  libsolv cannot decide. *sig_expires: 0 when the signature carries no
 *  expiration, its time from gpgv, -1 when unknown (libsolv's reading of
 *  one is not used: such a verdict is simply not recorded). */
static apt_sig_result detached_verify(const char *gpgv, const char *keyring, const void *data,
                                      size_t n, const void *sig, size_t sig_n, char **why,
                                      int64_t *sig_expires)
{
    *sig_expires = -1;
    if (!keyring_readable(keyring)) {
        set_why(why, xasprintf("keyring %s cannot be read", keyring ? keyring : "(none)"));
        return APT_SIG_NO_KEYRING;
    }
    Pool *pool = pool_create();
    Repo *keys = repo_create(pool, "keyring");
    FILE *kf = fopen(keyring, "r");
    int nkeys = 0;
    if (kf) {
        repo_add_keyring(keys, kf, ADD_WITH_SUBKEYS | ADD_MULTIPLE_PUBKEYS);
        fclose(kf);
        nkeys = keys->nsolvables;
    }
    Solvsig *ss = NULL;
    if (nkeys > 0) {
        FILE *sf = solv_fmemopen(sig, sig_n, "r");
        if (sf) {
            ss = solvsig_create(sf);
            fclose(sf);
        }
    }
    if (!ss) {
        /* libsolv could not read the keyring (e.g. a keybox) or the
         * signature's format: let gpgv decide */
        pool_free(pool);
        return gpgv_verify(gpgv, keyring, data, n, sig, sig_n, NULL, NULL, why, sig_expires);
    }
    apt_sig_result res = APT_SIG_BAD;
    Chksum *chk = solv_chksum_create(ss->htype);
    if (!chk) {
        set_why(why, xstrdup("the signature uses an unsupported hash algorithm"));
    } else {
        solv_chksum_add(chk, data, (int)n);
        Id p = solvsig_verify(ss, keys, chk);
        solv_chksum_free(chk, NULL);
        if (p) {
            res = APT_SIG_GOOD;
            *sig_expires = ss->expires ? -1 : 0;
        } else {
            set_why(why, xasprintf("the signature by key %s does not verify against %s", ss->keyid,
                                   keyring));
        }
    }
    solvsig_free(ss);
    pool_free(pool);
    return res;
}

apt_sig_result apt_verify_clearsigned(const char *keyring, const void *msg, size_t n, char **text,
                                      size_t *len, char **why)
{
    return apt_verify_clearsigned_cached(NULL, keyring, msg, n, text, len, why);
}

apt_sig_result apt_verify_detached(const char *keyring, const void *data, size_t n,
                                   const void *sig, size_t sig_n, char **why)
{
    return apt_verify_detached_cached(NULL, keyring, data, n, sig, sig_n, why);
}

/* ---- the verdict cache ----
 *
 * A warm run reads the same InRelease bytes (or Release + Release.gpg) it
 * verified last time, and starting gpgv again for them cost a fork, an exec
 * and gpgv's own start-up on every run. So a GOOD verdict is recorded as a
 * small cache blob named by the sha256 of everything it depends on: the
 * signed bytes (and the detached signature), the keyring file's bytes, the
 * gpgv that judged (its path, device, inode, size and mtime) and libsolv's
 * version (the detached check). A later run with the same key finds the
 * record and skips the check; anything else (other bytes, another keyring
 * content, another gpgv, no record, an unreadable or malformed one) runs
 * the check as before. Only GOOD is ever recorded; a failure leaves nothing
 * behind, so a tampered file is judged afresh every time.
 *
 * Why this is safe: apt itself verifies a Release only when it downloads it
 * (`apt-get update`) and trusts its lists on every later use; a record here
 * is that same trust, tied to the exact bytes rather than to a file name.
 * What depends on the clock is not the signature but its validity period:
 * Valid-Until is checked by the loader on every run, whether the verdict
 * was recorded or not; a signature that expires is recorded only up to its
 * expiration; and since a key can expire after it signed (gpgv would then
 * say EXPKEYSIG), no record is trusted for longer than APT_VERDICT_TTL_S
 * after it was made, nor at all when the clock reads earlier than its
 * making. A revoked or removed key changes the keyring's bytes, and so the
 * key. The record is as trustworthy as the rest of the cache (whoever can
 * write the cache can also replace the parsed .solv indexes).
 *
 * For an InRelease the signed text is not taken from the record: it is
 * split from the InRelease bytes again (apt_clearsigned_split) and used
 * only if its sha256 is the one gpgv's output had when the verdict was
 * made; otherwise gpgv runs. */
#define APT_VERDICT_MAGIC "envlock-apt-verdict 1"
#define APT_VERDICT_TTL_S (24 * 3600)
#define APT_KEYRING_MAX (64u << 20)

/* verdict_key() : the record's key, or false (nothing is recorded or looked
 *  up) when the keyring cannot be read or gpgv not be stat'ed. */
static bool verdict_key(const char *kind, const char *keyring, const char *gpgv, const void *msg,
                        size_t n, const void *sig, size_t sig_n, char out[65])
{
    if (!keyring)
        return false;
    size_t kl;
    char *kr = read_file(keyring, APT_KEYRING_MAX, &kl);
    if (!kr)
        return false;
    char krh[65], mh[65], sh[65] = "-";
    sha256_hex(kr, kl, krh);
    free(kr);
    sha256_hex(msg, n, mh);
    if (sig)
        sha256_hex(sig, sig_n, sh);
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "%s\nkind %s\nkeyring %s\nlibsolv %s\n", APT_VERDICT_MAGIC, kind, krh,
            solv_version);
    struct stat st;
    if (gpgv) {
        if (stat(gpgv, &st) != 0) {
            sb_release(&sb);
            return false;
        }
        sb_addf(&sb, "gpgv %s %llu %llu %llu %lld.%09ld\n", gpgv, (unsigned long long)st.st_dev,
                (unsigned long long)st.st_ino, (unsigned long long)st.st_size,
                (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
    } else {
        sb_adds(&sb, "gpgv -\n");
    }
    sb_addf(&sb, "signed %s\nsignature %s\n", mh, sh);
    sha256_hex(sb.buf, sb.len, out);
    sb_release(&sb);
    return true;
}

static char *verdict_blob_name(const char *key)
{
    return xasprintf("apt-verdict/%s", key);
}

/* verdict_lookup() : whether a GOOD verdict for `key` is recorded and in
 *  force at `now`; *text_sha256 gets the signed text's sha256 it recorded
 *  ("-" for a detached signature). */
static bool verdict_lookup(cache *c, const char *key, int64_t now, char text_sha256[65])
{
    char *bn = verdict_blob_name(key);
    unsigned char *data = NULL;
    size_t len = 0;
    bool hit = cache_blob_get(c, bn, &data, &len);
    free(bn);
    if (!hit)
        return false;
    char k[65], t[65];
    long long at = 0, until = 0;
    int used = -1;
    bool ok = memchr(data, '\0', len) == NULL &&
              sscanf((const char *)data,
                     APT_VERDICT_MAGIC "\nkey %64[0-9a-f]\nverdict good\nat %lld\nuntil %lld\n"
                                       "text %64[-0-9a-f]\n%n",
                     k, &at, &until, t, &used) == 4 &&
              used == (int)len && strcmp(k, key) == 0 && at <= now && now < until;
    free(data);
    if (ok)
        memcpy(text_sha256, t, 65);
    return ok;
}

/* verdict_record() : records a GOOD verdict made at `now` (best effort).
 *  Nothing when the signature's expiration is unknown (sig_expires -1). */
static void verdict_record(cache *c, const char *key, int64_t now, int64_t sig_expires,
                           const char *text_sha256)
{
    if (sig_expires < 0)
        return;
    int64_t until = now + APT_VERDICT_TTL_S;
    if (sig_expires > 0 && sig_expires < until)
        until = sig_expires;
    if (until <= now)
        return;
    char *body = xasprintf(APT_VERDICT_MAGIC "\nkey %s\nverdict good\nat %lld\nuntil %lld\n"
                                             "text %s\n",
                           key, (long long)now, (long long)until, text_sha256);
    char *bn = verdict_blob_name(key);
    cache_blob_put(c, bn, body, strlen(body));
    free(bn);
    free(body);
}

apt_sig_result apt_verify_clearsigned_cached(cache *c, const char *keyring, const void *msg,
                                             size_t n, char **text, size_t *len, char **why)
{
    *text = NULL;
    *len = 0;
    if (why)
        *why = NULL;
    char *gpgv = find_gpgv();
    char key[65], want[65];
    int64_t now = (int64_t)time(NULL);
    /* without gpgv nothing was ever recorded for an InRelease; the loader
     * turns NO_TOOL into a fetch of Release + Release.gpg */
    bool keyed = c && gpgv && verdict_key("clearsigned", keyring, gpgv, msg, n, NULL, 0, key);
    if (keyed && verdict_lookup(c, key, now, want)) {
        char *t;
        size_t tl;
        if (apt_clearsigned_split(msg, n, &t, &tl) == 0) {
            char h[65];
            sha256_hex(t, tl, h);
            if (strcmp(h, want) == 0) {
                *text = t;
                *len = tl;
                free(gpgv);
                return APT_SIG_GOOD;
            }
            free(t);
        }
    }
    int64_t sig_expires;
    apt_sig_result res = gpgv_verify(gpgv, keyring, msg, n, NULL, 0, text, len, why, &sig_expires);
    if (res == APT_SIG_GOOD && keyed) {
        char h[65];
        sha256_hex(*text, *len, h);
        verdict_record(c, key, now, sig_expires, h);
    }
    free(gpgv);
    return res;
}

apt_sig_result apt_verify_detached_cached(cache *c, const char *keyring, const void *data,
                                          size_t n, const void *sig, size_t sig_n, char **why)
{
    if (why)
        *why = NULL;
    char *gpgv = find_gpgv();
    char key[65], want[65];
    int64_t now = (int64_t)time(NULL);
    bool keyed = c && verdict_key("detached", keyring, gpgv, data, n, sig, sig_n, key);
    if (keyed && verdict_lookup(c, key, now, want) && strcmp(want, "-") == 0) {
        free(gpgv);
        return APT_SIG_GOOD;
    }
    int64_t sig_expires;
    apt_sig_result res = detached_verify(gpgv, keyring, data, n, sig, sig_n, why, &sig_expires);
    if (res == APT_SIG_GOOD && keyed)
        verdict_record(c, key, now, sig_expires, "-");
    free(gpgv);
    return res;
}
