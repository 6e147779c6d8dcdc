#include "loccurl.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// libcurl is loaded when the first lookup is made, not linked: network positioning is off by
// default, and linking it mapped libcurl and what it needs (TLS, HTTP/2, LDAP, Kerberos:
// about 5 MB of RSS, and their start-up allocations) into every locd. The entry points used,
// resolved once by loccurl_global_init.
static struct {
  CURLcode (*global_init)(long);
  CURL *(*easy_init)(void);
  CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
  CURLcode (*easy_perform)(CURL *);
  CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
  const char *(*easy_strerror)(CURLcode);
  void (*easy_cleanup)(CURL *);
  struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
  void (*slist_free_all)(struct curl_slist *);
} lib;

static char load_error[256] = "";

const char *loccurl_load_error(void) { return load_error; }

// libcurl4 (OpenSSL) or libcurl3-gnutls: the same ABI under two names.
static int load(void) {
  const char *names[] = {"libcurl.so.4", "libcurl-gnutls.so.4"};
  void *handle = NULL;
  for (size_t i = 0; i < sizeof names / sizeof names[0] && !handle; i++) {
    handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  }
  if (!handle) {
    snprintf(load_error, sizeof load_error, "cannot load libcurl (libcurl.so.4 or libcurl-gnutls.so.4): %s",
      dlerror());
    return -1;
  }
#define LOCCURL_SYMBOL(field, name) \
  if (!(*(void **)&lib.field = dlsym(handle, name))) { \
    snprintf(load_error, sizeof load_error, "libcurl has no %s", name); \
    return -1; \
  }
  LOCCURL_SYMBOL(global_init, "curl_global_init")
  LOCCURL_SYMBOL(easy_init, "curl_easy_init")
  LOCCURL_SYMBOL(easy_setopt, "curl_easy_setopt")
  LOCCURL_SYMBOL(easy_perform, "curl_easy_perform")
  LOCCURL_SYMBOL(easy_getinfo, "curl_easy_getinfo")
  LOCCURL_SYMBOL(easy_strerror, "curl_easy_strerror")
  LOCCURL_SYMBOL(easy_cleanup, "curl_easy_cleanup")
  LOCCURL_SYMBOL(slist_append, "curl_slist_append")
  LOCCURL_SYMBOL(slist_free_all, "curl_slist_free_all")
#undef LOCCURL_SYMBOL
  return 0;
}

typedef struct {
  loccurl_result *out;
  size_t limit;
  int too_large;
} sink;

static size_t collect(char *data, size_t size, size_t count, void *user) {
  sink *s = user;
  size_t n = size * count;
  if (s->out->size + n > s->limit) {
    s->too_large = 1;
    return 0;  // CURLE_WRITE_ERROR: the transfer stops
  }
  unsigned char *grown = realloc(s->out->body, s->out->size + n + 1);
  if (!grown) return 0;
  memcpy(grown + s->out->size, data, n);
  s->out->body = grown;
  s->out->size += n;
  return n;
}

int loccurl_global_init(void) {
  if (load() != 0) return -1;
  if (lib.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    snprintf(load_error, sizeof load_error, "curl_global_init failed");
    return -1;
  }
  return 0;
}

static void exchange(
  const char *url, const char *user_agent, const char *body, long timeout_ms, long low_speed_bytes,
  long low_speed_seconds, size_t limit, loccurl_result *out);

void loccurl_post(
  const char *url, const char *user_agent, const char *body, long timeout_ms, long low_speed_bytes,
  long low_speed_seconds, size_t limit, loccurl_result *out) {
  exchange(url, user_agent, body, timeout_ms, low_speed_bytes, low_speed_seconds, limit, out);
}

void loccurl_get(
  const char *url, const char *user_agent, long timeout_ms, long low_speed_bytes, long low_speed_seconds,
  size_t limit, loccurl_result *out) {
  exchange(url, user_agent, NULL, timeout_ms, low_speed_bytes, low_speed_seconds, limit, out);
}

// A POST of `body`, or a GET when it is NULL.
static void exchange(
  const char *url, const char *user_agent, const char *body, long timeout_ms, long low_speed_bytes,
  long low_speed_seconds, size_t limit, loccurl_result *out) {
  memset(out, 0, sizeof *out);
  CURL *curl = lib.easy_init();
  if (!curl) {
    out->failure = 3;
    strncpy(out->error, "curl_easy_init failed", sizeof out->error - 1);
    return;
  }
  sink s = {out, limit, 0};
  struct curl_slist *headers = NULL;
  if (body) {
    headers = lib.slist_append(headers, "Content-Type: application/json");
    headers = lib.slist_append(headers, "Accept: application/json");
  }
  char error[CURL_ERROR_SIZE] = "";
  lib.easy_setopt(curl, CURLOPT_URL, url);
  lib.easy_setopt(curl, CURLOPT_USERAGENT, user_agent);
  if (body) {
    lib.easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    lib.easy_setopt(curl, CURLOPT_POSTFIELDS, body);
  } else {
    lib.easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  }
  lib.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  lib.easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
  lib.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
#else
  lib.easy_setopt(curl, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
  lib.easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
  lib.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  lib.easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, low_speed_bytes);
  lib.easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, low_speed_seconds);
  lib.easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  lib.easy_setopt(curl, CURLOPT_WRITEDATA, &s);
  lib.easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  lib.easy_setopt(curl, CURLOPT_COOKIEFILE, NULL);
  CURLcode code = lib.easy_perform(curl);
  if (code == CURLE_OK) {
    lib.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out->status);
  } else {
    out->failure = s.too_large ? 2 : (code == CURLE_OPERATION_TIMEDOUT ? 1 : 3);
    const char *words = error[0] ? error : lib.easy_strerror(code);
    strncpy(out->error, words, sizeof out->error - 1);
  }
  lib.slist_free_all(headers);
  lib.easy_cleanup(curl);
}

void loccurl_free(loccurl_result *result) {
  free(result->body);
  result->body = NULL;
  result->size = 0;
}
