/* kc_log: text or JSON log lines (kc_log.h). */
#include "kube/client/kc_log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "obj/base/ktime.h"

static bool as_json;
static enum kc_log_level max_level = KC_LOG_INFO;
static const char *const names[] = {"error", "info", "debug"};

int kc_log_setup(const char *format, const char *level)
{
    if (format && strcmp(format, "text") && strcmp(format, "console") && strcmp(format, "json"))
        return -EINVAL;
    as_json = format && strcmp(format, "json") == 0;
    if (!level)
        return 0;
    for (int i = 0; i < 3; i++)
        if (strcmp(level, names[i]) == 0 || (level[0] == '0' + i && !level[1])) {
            max_level = (enum kc_log_level)i;
            return 0;
        }
    return -EINVAL;
}

bool kc_log_enabled(enum kc_log_level l)
{
    return l <= max_level;
}

void kc_log(enum kc_log_level l, const char *logger, const char *object, const char *fmt, ...)
{
    if (!kc_log_enabled(l))
        return;
    char msg[2048], ts[KT_RFC3339_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (kt_format(kt_now_ms(), ts) < 0)
        ts[0] = 0;
    if (!as_json) {
        fprintf(stderr, "%s\t%s\t%s\t%s%s%s\n", ts, l == KC_LOG_ERROR ? "ERROR" : l == KC_LOG_INFO ? "INFO" : "DEBUG",
                logger, object ? object : "", object ? ": " : "", msg);
        return;
    }
    json_t *o = json_pack("{s:s,s:s,s:s,s:s?,s:s}", "ts", ts, "level", names[l], "logger", logger,
                          "object", object, "msg", msg);
    char *line = o ? json_dumps(o, JSON_COMPACT) : NULL;
    if (line)
        fprintf(stderr, "%s\n", line);
    free(line);
    json_decref(o);
}
