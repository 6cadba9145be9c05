/* core/v1 Events, as client-go's EventRecorder writes them (tools/record: name
 * "<object>.<unix nanoseconds in hex>", source component the kind's controller), sent without
 * waiting: the JobSet controller's (ctl_ops.c) and the JAXJob and TrainJob controllers'
 * (ctl_kinds.c). */
#include <stdio.h>
#include <stdlib.h>

#include "kube/ctl/ctl_int.h"
#include "kube/client/kc_log.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

static void event_sent(void *arg, const struct kc_resp *r)
{
    (void)arg;
    if (r->rc < 0)
        kc_log(KC_LOG_ERROR, "events", NULL, "recording an event: %s", r->msg);
}

json_t *ctl__event_new(struct ctl *c, const struct ctl_kind *k, const json_t *m,
                       const char *type, const char *reason, const char *message)
{
    static unsigned seq;
    char ts[KT_RFC3339_MAX], name[300];
    int64_t now = kt_now_ms();
    const char *ns = jx_str(m, "namespace");
    kt_format(now, ts);
    snprintf(name, sizeof(name), "%s.%llx", jx_str(m, "name"),
             (unsigned long long)now * 1000000ULL + (seq++ % 1000000U));
    kc_log(KC_LOG_INFO, "events", ns, "%s: %s %s: %s", jx_str(m, "name"), type ? type : "",
         reason ? reason : "", message ? message : "");
    return json_pack(
        "{s:s,s:s,s:{s:s,s:s?},s:{s:s,s:s,s:s?,s:s?,s:s?,s:s?},s:s?,s:s?,s:s?,s:s,s:s,s:i,"
        "s:{s:s},s:s,s:s}",
        "apiVersion", "v1", "kind", "Event", "metadata", "name", name, "namespace", ns,
        "involvedObject", "apiVersion", k->api_version, "kind", k->kind, "name",
        jx_str(m, "name"), "namespace", ns, "uid", jx_str(m, "uid"), "resourceVersion",
        jx_str(m, "resourceVersion"), "reason", reason, "message", message, "type", type,
        "firstTimestamp", ts, "lastTimestamp", ts, "count", 1, "source", "component",
        k->component, "reportingComponent", k->component, "reportingInstance",
        c->identity ? c->identity : k->component);
}

void ctl__event_send(struct ctl *c, json_t *ev)
{
    const char *ns = jx_str(jx_obj(ev, "metadata"), "namespace");
    char *path = ctl__path("/api/v1", "events", ns ? ns : "default", NULL, NULL);
    if (ev && path)
        (void)kc_send(c->kc, "POST", path, ev, NULL, event_sent, NULL);
    free(path);
}
