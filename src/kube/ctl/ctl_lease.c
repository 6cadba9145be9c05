/* Leader election on a coordination.k8s.io/v1 Lease, as client-go tools/leaderelection does it
 * (LeaseLock, tryAcquireOrRenew, release on cancel):
 *   - every retry period the Lease is read; absent, it is created with us as holder;
 *   - another holder's lease is respected until leaseDurationSeconds have passed since this
 *     process last saw its record change (local observation time, never the remote clock);
 *   - taking it over bumps leaseTransitions and sets acquireTime; renewing sets renewTime;
 *     every write carries the resourceVersion read, so two candidates cannot both win;
 *   - a leader that cannot renew within the renew deadline stops leading (controller-runtime
 *     then exits; so does `jaxset controller`, with status 1);
 *   - on a clean stop the leader releases the Lease (empty holder, duration 1 s) so that a
 *     successor takes over at once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/ctl/ctl_int.h"
#include "kube/client/kc_log.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

#define LOGGER "leader-election"

static char *lease_path(const struct ctl_lease *l, bool named)
{
    return ctl__path("/apis/coordination.k8s.io/v1", "leases", l->ns, named ? l->name : NULL,
                     NULL);
}

static void set_spec(json_t *spec, const struct ctl_lease *l, bool acquire, const char *now)
{
    json_object_set_new(spec, "holderIdentity", json_string(l->id));
    json_object_set_new(spec, "leaseDurationSeconds",
                        json_integer((json_int_t)((l->lease_ms + 999) / 1000)));
    json_object_set_new(spec, "renewTime", json_string(now));
    if (acquire) {
        json_object_set_new(spec, "acquireTime", json_string(now));
        json_object_set_new(spec, "leaseTransitions",
                            json_integer(jx_int_or(spec, "leaseTransitions", -1) + 1));
    }
}

/* Remembers the record and when it was last seen to change. */
static void observe(struct ctl_lease *l, const json_t *spec, int64_t now)
{
    const char *h = jx_str(spec, "holderIdentity"), *r = jx_str(spec, "renewTime");
    char rec[512];
    snprintf(rec, sizeof(rec), "%s|%s|%lld", h ? h : "", r ? r : "",
             jx_int_or(spec, "leaseDurationSeconds", 0));
    if (strcmp(rec, l->observed) != 0) {
        snprintf(l->observed, sizeof(l->observed), "%s", rec);
        l->observed_at = now;
    }
    l->observed_ms = jx_int_or(spec, "leaseDurationSeconds", 0) * 1000;
}

static int create(struct ctl *c, struct ctl_lease *l, const char *now, struct err *e)
{
    json_t *lease = json_pack("{s:s,s:s,s:{s:s,s:s},s:{}}", "apiVersion",
                              "coordination.k8s.io/v1", "kind", "Lease", "metadata", "name",
                              l->name, "namespace", l->ns, "spec");
    char *path = lease_path(l, false);
    set_spec(jx_obj(lease, "spec"), l, true, now);
    int rc = lease && path ? kc_call(c->kc, "POST", path, lease, NULL, NULL, e) : -ENOMEM;
    json_decref(lease);
    free(path);
    return rc;
}

/* One tryAcquireOrRenew: 0 when we hold the lease now, 1 when another does, -errno. */
static int try_acquire(struct ctl *c, struct ctl_lease *l, int64_t mono, struct err *e)
{
    char now[KT_RFC3339_MAX];
    kt_format_micro(kt_now_ms(), now);
    char *path = lease_path(l, true);
    json_t *lease = NULL;
    int rc = path ? kc_call(c->kc, "GET", path, NULL, NULL, &lease, e) : -ENOMEM;
    if (rc == -ENOENT) {
        rc = create(c, l, now, e);
        goto out;
    }
    if (rc < 0)
        goto out;
    json_t *spec = jx_ensure_obj(lease, "spec");
    const char *holder = jx_str(spec, "holderIdentity");
    bool ours = holder && strcmp(holder, l->id) == 0;
    observe(l, spec, mono);
    if (!ours && holder && *holder && mono < l->observed_at + l->observed_ms) {
        rc = 1;
        goto out;
    }
    set_spec(spec, l, !ours, now);
    rc = kc_call(c->kc, "PUT", path, lease, NULL, NULL, e);
out:
    json_decref(lease);
    free(path);
    return rc;
}

int64_t ctl__lease_tick(struct ctl *c, struct ctl_lease *l, int64_t mono, bool *lost)
{
    *lost = false;
    if (mono < l->next_try)
        return l->next_try - mono;
    struct err e = {{0}};
    int rc = try_acquire(c, l, mono, &e);
    if (rc == 0) {
        if (!l->leading)
            kc_log(KC_LOG_INFO, LOGGER, l->ns, "successfully acquired lease %s as %s", l->name,
                 l->id);
        l->leading = true;
        l->renewed_at = mono;
    } else if (l->leading && mono - l->renewed_at >= l->renew_ms) {
        kc_log(KC_LOG_ERROR, LOGGER, l->ns, "leader election lost: could not renew lease %s "
                                        "within %lld ms: %s", l->name, (long long)l->renew_ms,
             rc < 0 ? e.msg : "held by another");
        l->leading = false;
        *lost = true;
    } else if (rc < 0 && rc != -JX_ECONFLICT && rc != -EEXIST) {
        kc_log(KC_LOG_ERROR, LOGGER, l->ns, "lease %s: %s", l->name, e.msg);
    }
    l->next_try = mono + l->retry_ms;
    return l->retry_ms;
}

void ctl__lease_release(struct ctl *c, struct ctl_lease *l)
{
    if (!l->leading)
        return;
    char now[KT_RFC3339_MAX];
    kt_format_micro(kt_now_ms(), now);
    char *path = lease_path(l, true);
    json_t *lease = NULL;
    struct err e = {{0}};
    int rc = path ? kc_call(c->kc, "GET", path, NULL, NULL, &lease, &e) : -ENOMEM;
    json_t *spec = jx_obj(lease, "spec");
    if (rc == 0 && spec && jx_str(spec, "holderIdentity") &&
        strcmp(jx_str(spec, "holderIdentity"), l->id) == 0) {
        json_object_set_new(spec, "holderIdentity", json_string(""));
        json_object_set_new(spec, "leaseDurationSeconds", json_integer(1));
        json_object_set_new(spec, "renewTime", json_string(now));
        json_object_set_new(spec, "acquireTime", json_string(now));
        rc = kc_call(c->kc, "PUT", path, lease, NULL, NULL, &e);
    }
    if (rc == 0)
        kc_log(KC_LOG_INFO, LOGGER, l->ns, "released lease %s", l->name);
    else
        kc_log(KC_LOG_ERROR, LOGGER, l->ns, "releasing lease %s: %s", l->name, e.msg);
    l->leading = false;
    json_decref(lease);
    free(path);
}
