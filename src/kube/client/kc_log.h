/* kc_log: the controller's structured log lines on stderr, as text or JSON (controller-runtime's
 * zap logger: --zap-encoder console|json, --zap-log-level error|info|debug).
 *
 *   text:  2026-11-23T22:30:00.123Z  INFO  jobset default/train: created 16 jobs
 *   json:  {"ts":"2026-11-23T22:30:00.123Z","level":"info","logger":"jobset",
 *           "object":"default/train","msg":"created 16 jobs"} */
#ifndef JX_KUBE_CLIENT_KC_LOG_H
#define JX_KUBE_CLIENT_KC_LOG_H

#include <stdbool.h>

enum kc_log_level { KC_LOG_ERROR = 0, KC_LOG_INFO = 1, KC_LOG_DEBUG = 2 };

/* Sets the format ("text" or "json") and level ("error", "info", "debug" or a number 0-2);
 * -EINVAL for anything else. */
int kc_log_setup(const char *format, const char *level);
bool kc_log_enabled(enum kc_log_level l);

/* One line; `object` ("ns/name") may be NULL. */
void kc_log(enum kc_log_level l, const char *logger, const char *object, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
