// One HTTP POST (or GET) through libcurl's easy interface (built with Debian's libcurl4-openssl-dev or
// libcurl4-gnutls-dev headers, loaded at run time from libcurl4 or libcurl3-gnutls), for locd's geolocation lookups: curl_easy_setopt is variadic, which
// Swift cannot call, so the whole exchange is one C function run on a worker thread.
#ifndef LOCCURL_H
#define LOCCURL_H
#include <stddef.h>

// What one exchange gave: the HTTP status and the body (malloc'd, freed by loccurl_free), or
// the failure: 1 timeout (also a server that trickles bytes), 2 answer larger than the
// limit, 3 anything else (connection, DNS, TLS), with libcurl's words in `error`.
typedef struct {
  long status;
  int failure;
  char error[256];
  unsigned char *body;
  size_t size;
} loccurl_result;

// Once, before any thread posts (curl_global_init is not thread-safe): loads libcurl
// (dlopen, so a locd that makes no lookup maps none of it) and initialises it; -1 when that
// fails, with the reason in loccurl_load_error().
int loccurl_global_init(void);

// Why loccurl_global_init failed ("" when it did not).
const char *loccurl_load_error(void);

// POSTs `body` (JSON) to `url` with `user_agent`; no redirects, http and https only, no
// signals; gives up after `timeout_ms` in all, or when fewer than `low_speed_bytes` a
// second arrive for `low_speed_seconds`; reads at most `limit` bytes of answer.
void loccurl_post(
  const char *url, const char *user_agent, const char *body, long timeout_ms, long low_speed_bytes,
  long low_speed_seconds, size_t limit, loccurl_result *out);

// GETs `url` with `user_agent` and nothing else (no cookies, no headers of the machine), as
// loccurl_post does otherwise: a modem's GNSS assistance file (decision 0055).
void loccurl_get(
  const char *url, const char *user_agent, long timeout_ms, long low_speed_bytes, long low_speed_seconds,
  size_t limit, loccurl_result *out);

// Frees what loccurl_post or loccurl_get allocated.
void loccurl_free(loccurl_result *result);

#endif
