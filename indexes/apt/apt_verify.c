/* apt_verify.c — OpenPGP signatures of Release files. Detached signatures
 * (Release.gpg) are checked in-process with libsolvext (repo_add_keyring +
 * solvsig_verify); clearsigned InRelease files by gpgv, run with posix_spawn
 * (no shell) in a private temporary GnuPG home, because libsolv 0.7.23 has no
 * clearsign framing. Owns nothing else: which keyring applies and what a
 * failure means for a repository is the loader's. */
#define _GNU_SOURCE 1 /* environ */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <solv/pool.h>
#include <solv/repo.h>
#include <solv/repo_pubkey.h>
#include <solv/solv_xfopen.h>
#include <solv/chksum.h>

#include "apt_index.h"

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
    const char *p = data;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            close(fd);
            return false;
        }
        p += w;
        n -= (size_t)w;
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

/* run_gpgv() : gpgv with `args` (NULL-terminated); its status output (fd 1)
 *  is read into *status. Returns the exit status, 127 if gpgv could not be
 *  started, or -1 on an internal failure. */
static int run_gpgv(char *const *args, strbuf *status)
{
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
    int rc = posix_spawnp(&pid, "gpgv", &fa, NULL, args, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pipefd[1]);
    if (rc != 0) {
        close(pipefd[0]);
        return rc == ENOENT ? 127 : -1;
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

/* judge_status() : GOOD only for a clean gpgv run; otherwise *why says what. */
static apt_sig_result judge_status(int exit_code, const char *status, char **why)
{
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
            if (kl >= 8 && strncmp(kw, "VALIDSIG", 8) == 0)
                valid = true;
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

/* gpgv_verify() : `in` (clearsigned) alone, or `sig` over `in`. */
static apt_sig_result gpgv_verify(const char *keyring, const void *in, size_t in_n, const void *sig,
                                  size_t sig_n, char **text, size_t *len, char **why)
{
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
    int ec = run_gpgv(args, &status);
    if (ec == 127) {
        set_why(why, xstrdup("gpgv is not installed (package gpgv)"));
        res = APT_SIG_NO_TOOL;
        goto out;
    }
    res = judge_status(ec, status.buf, why);
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

apt_sig_result apt_verify_clearsigned(const char *keyring, const void *msg, size_t n, char **text,
                                      size_t *len, char **why)
{
    *text = NULL;
    *len = 0;
    if (why)
        *why = NULL;
    return gpgv_verify(keyring, msg, n, NULL, 0, text, len, why);
}

apt_sig_result apt_verify_detached(const char *keyring, const void *data, size_t n,
                                   const void *sig, size_t sig_n, char **why)
{
    if (why)
        *why = NULL;
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
        return gpgv_verify(keyring, data, n, sig, sig_n, NULL, NULL, why);
    }
    apt_sig_result res = APT_SIG_BAD;
    Chksum *chk = solv_chksum_create(ss->htype);
    if (!chk) {
        set_why(why, xstrdup("the signature uses an unsupported hash algorithm"));
    } else {
        solv_chksum_add(chk, data, (int)n);
        Id p = solvsig_verify(ss, keys, chk);
        solv_chksum_free(chk, NULL);
        if (p)
            res = APT_SIG_GOOD;
        else
            set_why(why, xasprintf("the signature by key %s does not verify against %s", ss->keyid,
                                   keyring));
    }
    solvsig_free(ss);
    pool_free(pool);
    return res;
}
