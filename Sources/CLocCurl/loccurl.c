#include "loccurl.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

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

int loccurl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1; }

void loccurl_post(
  const char *url, const char *user_agent, const char *body, long timeout_ms, long low_speed_bytes,
  long low_speed_seconds, size_t limit, loccurl_result *out) {
  memset(out, 0, sizeof *out);
  CURL *curl = curl_easy_init();
  if (!curl) {
    out->failure = 3;
    strncpy(out->error, "curl_easy_init failed", sizeof out->error - 1);
    return;
  }
  sink s = {out, limit, 0};
  struct curl_slist *headers = NULL;
  headers = curl_slist_append(headers, "Content-Type: application/json");
  headers = curl_slist_append(headers, "Accept: application/json");
  char error[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(curl, CURLOPT_URL, url);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, user_agent);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
#else
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, low_speed_bytes);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, low_speed_seconds);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &s);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_COOKIEFILE, NULL);
  CURLcode code = curl_easy_perform(curl);
  if (code == CURLE_OK) {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out->status);
  } else {
    out->failure = s.too_large ? 2 : (code == CURLE_OPERATION_TIMEDOUT ? 1 : 3);
    const char *words = error[0] ? error : curl_easy_strerror(code);
    strncpy(out->error, words, sizeof out->error - 1);
  }
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
}

void loccurl_free(loccurl_result *result) {
  free(result->body);
  result->body = NULL;
  result->size = 0;
}
