/* cli_env.h — envlock's own environment variables as options (env.c). */
#ifndef EL_CLI_ENV_H
#define EL_CLI_ENV_H

#include "envlock.h"

/* cli_env_cache_options() :
 *  Fills what `co` leaves unset from ENVLOCK_TRANSFER_TIMEOUT,
 *  ENVLOCK_RETRY_MAX_TIME, ENVLOCK_RUN_TIMEOUT (whole seconds),
 *  ENVLOCK_MIN_SPEED (bytes/s), ENVLOCK_MIN_SPEED_TIME (s),
 *  ENVLOCK_MAX_BYTES, ENVLOCK_CACHE_DIR, ENVLOCK_MIRRORS, ENVLOCK_CONFIG,
 *  ENVLOCK_NPM_TOKEN (npm_token)
 *  and the CA certificates (ENVLOCK_CERT, SSL_CERT_FILE, CURL_CA_BUNDLE,
 *  SSL_CERT_DIR: a name that is not there is EL_USAGE naming it);
 *  ENVLOCK_REDIRECT_HOSTS is stored in *redirect_slot, which must be
 *  co->redirect_hosts[co->n_redirect_hosts] (the count grows by one).
 *  The strings stay the environment's. EL_USAGE naming the variable for a
 *  malformed number. */
el_code cli_env_cache_options(el_ctx *ctx, el_cache_options *co, const char **redirect_slot);

/* cli_ca_path() :
 *  EL_OK when `path` is a regular file (a directory with `dir`); else
 *  EL_USAGE recorded as "WHAT PATH: no such file" (or what it is not). */
el_code cli_ca_path(el_ctx *ctx, const char *what, const char *path, bool dir);

#endif
