/* js_default: the JobSet mutating webhook's defaults (CREATE) plus the CRD structural defaults.
 * A field counts as unset when absent or null; a field of the wrong type is left alone for
 * js_validate to report, and so is everything below it. */
#include "api/jobset/jobset.h"
#include "obj/tree/jx.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static bool unset(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return !v || json_is_null(v);
}

/* o[key] as an object, created when unset; NULL when o[key] has another type (or OOM, which
 * the caller tells apart with *rc). */
static json_t *sub_obj(json_t *o, const char *key, int *rc)
{
    if (!json_is_object(o))
        return NULL;
    json_t *v = json_object_get(o, key);
    if (json_is_object(v))
        return v;
    if (v && !json_is_null(v))
        return NULL;
    v = json_object();
    if (!v || json_object_set_new(o, key, v) < 0) {
        *rc = -ENOMEM;
        return NULL;
    }
    return v;
}

static int default_str(json_t *o, const char *key, const char *v)
{
    if (!json_is_object(o) || !unset(o, key))
        return 0;
    return jx_set_str(o, key, v);
}

static int default_bool(json_t *o, const char *key, bool v)
{
    if (!json_is_object(o) || !unset(o, key))
        return 0;
    return jx_set_bool(o, key, v);
}

static int default_int(json_t *o, const char *key, long long v)
{
    if (!json_is_object(o) || !unset(o, key))
        return 0;
    return jx_set_int(o, key, v);
}

/* A policy object {key: value} when the whole policy is unset. */
static int default_policy(json_t *spec, const char *policy, const char *key, const char *value)
{
    if (!unset(spec, policy))
        return 0;
    int rc = 0;
    json_t *p = sub_obj(spec, policy, &rc);
    return p ? jx_set_str(p, key, value) : rc;
}

static int default_rj(json_t *rj)
{
    int rc = 0;
    if (!json_is_object(rj))
        return 0;
    if ((rc = default_int(rj, "replicas", 1)) < 0 ||
        (rc = default_str(rj, "groupName", "default")) < 0)
        return rc;
    json_t *tmpl = json_object_get(rj, "template");
    if (!json_is_object(tmpl))
        return 0; /* required: reported by validation */
    json_t *jspec = sub_obj(tmpl, "spec", &rc);
    if ((rc = rc ? rc : default_str(jspec, "completionMode", "Indexed")) < 0)
        return rc;
    json_t *ptmpl = sub_obj(jspec, "template", &rc);
    json_t *pspec = sub_obj(ptmpl, "spec", &rc);
    if (rc < 0 || !pspec)
        return rc;
    const json_t *rp = json_object_get(pspec, "restartPolicy");
    if (!rp || json_is_null(rp) || (json_is_string(rp) && !*json_string_value(rp)))
        rc = jx_set_str(pspec, "restartPolicy", "OnFailure");
    return rc;
}

static int default_network(json_t *spec)
{
    int rc = 0;
    json_t *net = sub_obj(spec, "network", &rc);
    if (!net)
        return rc;
    if ((rc = default_bool(net, "enableDNSHostnames", true)) < 0)
        return rc;
    return default_bool(net, "publishNotReadyAddresses", true);
}

static int default_failure_policy(json_t *spec)
{
    json_t *fp = json_object_get(spec, "failurePolicy");
    if (!json_is_object(fp))
        return 0;
    int rc = default_str(fp, "restartStrategy", "Recreate");
    const json_t *rules = json_object_get(fp, "rules");
    for (size_t i = 0; rc == 0 && i < json_array_size(rules); i++) {
        json_t *r = json_array_get(rules, i);
        const json_t *name = json_object_get(r, "name");
        bool empty = json_is_string(name) && !*json_string_value(name);
        if (!json_is_object(r) || !(unset(r, "name") || empty))
            continue;
        char buf[48];
        snprintf(buf, sizeof(buf), "failurePolicyRule%zu", i);
        rc = jx_set_str(r, "name", buf);
    }
    return rc;
}

static int default_volume_claims(json_t *spec)
{
    const json_t *vcps = json_object_get(spec, "volumeClaimPolicies");
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < json_array_size(vcps); i++) {
        json_t *p = json_array_get(vcps, i);
        json_t *ret = sub_obj(p, "retentionPolicy", &rc);
        if (rc == 0)
            rc = default_str(ret, "whenDeleted", "Delete");
    }
    return rc;
}

static int default_spec(json_t *spec)
{
    int rc;
    if ((rc = default_policy(spec, "successPolicy", "operator", "All")) < 0 ||
        (rc = default_policy(spec, "startupPolicy", "startupPolicyOrder", "AnyOrder")) < 0)
        return rc;
    const json_t *rjs = json_object_get(spec, "replicatedJobs");
    for (size_t i = 0; i < json_array_size(rjs); i++)
        if ((rc = default_rj(json_array_get(rjs, i))) < 0)
            return rc;
    if ((rc = default_network(spec)) < 0 || (rc = default_failure_policy(spec)) < 0)
        return rc;
    return default_volume_claims(spec);
}

int js_default(json_t *js)
{
    int rc = 0;
    if (!json_is_object(js))
        return 0;
    json_t *meta = sub_obj(js, "metadata", &rc);
    if (rc < 0)
        return rc;
    const char *ns = jx_str(meta, "namespace");
    if (meta && ((ns && !*ns) || unset(meta, "namespace")))
        if ((rc = jx_set_str(meta, "namespace", "default")) < 0)
            return rc;
    json_t *spec = json_object_get(js, "spec");
    return json_is_object(spec) ? default_spec(spec) : 0;
}
