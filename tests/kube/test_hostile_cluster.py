"""Hostile input against `jaxset controller` on an API server (issue "Nothing hostile gets
through", round 3): the project's test API server, or kube-apiserver when KUBEBUILDER_ASSETS
names one; one controller with its webhooks serves every test, each in a namespace of its own.

- an AdmissionReview holding an integer no 64 bits hold is answered with its uid and a field
  error naming the number's place, not "not JSON";
- an operation admission.k8s.io/v1 does not have (FROB) is refused by every webhook, as
  controller-runtime's validators refuse it;
- two JobSets whose child Jobs get the same name ("a-b"/"c" and "a"/"b-c"): the second is told
  (a Warning event, a JobNameConflict condition naming the other owner, a log that does not
  claim the Job was created) and gets its Job once the other goes;
- a Job of another namespace carrying a JobSet's owner uid is not one of its Jobs;
- a JobSet whose claim template names a PersistentVolumeClaim that exists is checked against
  it, as upstream's webhook does (its spec, retentionPolicy Retain)."""
import http.client
import json
import os
import ssl
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kubetest  # noqa: E402
from ctltest import JS_API, Case, now_rfc3339, poll, steady  # noqa: E402
from kubetest import Skip, check, expect, main, test  # noqa: E402

# test_webhooks' environment (server, controller with webhooks, certificates); importing it
# registers its tests, which are not this file's
_OWN = len(kubetest.TESTS)
import test_webhooks  # noqa: E402
from test_webhooks import Env, jobset, rj, secret_pem  # noqa: E402
del kubetest.TESTS[_OWN:]

MUTATE_JS = "/mutate-jobset-x-k8s-io-v1alpha2-jobset"
VALIDATE_JS = "/validate-jobset-x-k8s-io-v1alpha2-jobset"
PATHS = [MUTATE_JS, VALIDATE_JS, "/mutate--v1-pod", "/validate--v1-pod",
         "/validate-kubeflow-org-v1-jaxjob", "/validate-trainer-kubeflow-org-v1alpha1-trainjob"]
BIG = "9223372036854775808"  # 2^63: one more than int64 holds
COND = "JobNameConflict"


def post_review(env, path, text):
    """POSTs the AdmissionReview `text` to the controller's webhook server, as kube-apiserver
    does: (HTTP status, the response's `response`)."""
    ctx = ssl.create_default_context(cadata=secret_pem(env, "ca.crt"))
    conn = http.client.HTTPSConnection("127.0.0.1", env.port, context=ctx, timeout=20)
    try:
        conn.request("POST", path, body=text, headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        body = r.read()
    finally:
        conn.close()
    return r.status, json.loads(body).get("response")


def review_text(uid, obj, operation="CREATE", kind=("jobset.x-k8s.io", "JobSet"), **extra):
    req = {"uid": uid, "kind": {"group": kind[0], "version": "v1alpha2", "kind": kind[1]},
           "namespace": "ns", "operation": operation, "object": obj, **extra}
    if operation is None:
        del req["operation"]
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                       "request": req})


def big_jobset(name="big"):
    js = jobset(name, [rj("w")])
    js["spec"]["replicatedJobs"][0]["replicas"] = "@BIG@"
    return js


# ---------------------------------------------------------------------------- numbers


@test
def a_number_beyond_int64_is_answered_with_its_uid_and_field(env):
    field = "spec.replicatedJobs[0].replicas"
    for path in (MUTATE_JS, VALIDATE_JS):
        for num in (BIG, "-9223372036854775809", "123456789012345678901234567890"):
            uid = f"u-big-{len(num)}"
            text = review_text(uid, big_jobset()).replace('"@BIG@"', num)
            status, resp = post_review(env, path, text)
            check(status == 200, f"{path}: HTTP {status}")
            st = resp.get("status") or {}
            check(resp.get("uid") == uid, f"{path} {num}: uid {resp.get('uid')!r}: {resp}")
            check(resp.get("allowed") is False, f"{path} {num}: {resp}")
            check(st.get("code") == 422 and st.get("reason") == "Invalid", f"{path}: {st}")
            check(f'JobSet.jobset.x-k8s.io "big" is invalid: {field}: Invalid value: {num}: '
                  in st.get("message", ""), f"{path}: {st.get('message')}")
            causes = (st.get("details") or {}).get("causes") or []
            check([c.get("field") for c in causes] == [field], f"{path}: {causes}")
            check("not JSON" not in st.get("message", ""), st)
    # elsewhere than in the object (an UPDATE's oldObject): a 400 naming its place
    old = big_jobset()
    text = review_text("u-old", jobset("big", [rj("w")]), "UPDATE", oldObject=old)
    status, resp = post_review(env, VALIDATE_JS, text.replace('"@BIG@"', BIG))
    st = resp.get("status") or {}
    check(resp.get("uid") == "u-old" and resp.get("allowed") is False, resp)
    check(st.get("code") == 400 and "request.oldObject.spec.replicatedJobs[0].replicas: "
          f"Invalid value: {BIG}" in st.get("message", ""), st)
    # through the API server: the refusal names the field, not a webhook that failed
    ns = env.namespace()
    body = json.dumps(big_jobset()).replace('"@BIG@"', BIG)
    r = env.server.post(f"{JS_API}/namespaces/{ns}/jobsets", body)
    check(400 <= r.status < 500, f"create: {r}")
    msg = (r.json or {}).get("message", r.raw.decode("utf-8", "replace"))
    check(field in msg and "failed calling webhook" not in msg, msg)


# ---------------------------------------------------------------------------- operations


@test
def an_unknown_operation_is_refused_by_every_webhook(env):
    """controller-runtime pkg/webhook/admission validator_custom.go Handle: an operation other
    than CREATE, UPDATE, DELETE or CONNECT is Errored(400, `unknown operation request %q`)."""
    js = jobset("frob", [rj("w")])
    for path in PATHS:
        for op, shown in (("FROB", '"FROB"'), (None, '""')):
            status, resp = post_review(env, path, review_text("u-frob", js, op))
            st = resp.get("status") or {}
            check(status == 200 and resp.get("uid") == "u-frob", f"{path} {op}: {resp}")
            check(resp.get("allowed") is False and st.get("code") == 400, f"{path} {op}: {resp}")
            check(st.get("message") == f"unknown operation request {shown}", f"{path}: {st}")
            check("patch" not in resp, f"{path} {op}: patched: {resp}")
    # what an API server sends is answered as before
    for path, op in ((VALIDATE_JS, "CONNECT"), (VALIDATE_JS, "DELETE"), (MUTATE_JS, "DELETE")):
        status, resp = post_review(env, path, review_text("u-ok", js, op))
        check(resp.get("allowed") is True, f"{path} {op}: {resp}")


# ---------------------------------------------------------------------------- Job names


def owner_uid(job):
    refs = [r for r in job["metadata"].get("ownerReferences") or [] if r.get("controller")]
    return refs[0]["uid"] if refs else None


@test
def a_job_name_another_jobset_holds_is_reported_not_claimed(env):
    """JobSet "a-b" with replicated job "c" and JobSet "a" with "b-c" both name their Job
    "a-b-c-0" (<jobset>-<replicated job>-<index>)."""
    first = Case(env, jobset("a-b", [rj("c")]))
    held = poll(lambda: first.job("a-b-c-0"), "a-b's job a-b-c-0")
    check(owner_uid(held) == first.uid, held["metadata"])
    second = Case(env, jobset("a", [rj("b-c")]), create=False)
    second.ns = first.ns  # the same namespace: the name is taken there
    second.create()
    cond = second.wait_condition(COND, reason="JobNameTaken")
    want = f"controlled by JobSet a-b (uid {first.uid}), not by this JobSet"
    check('"a-b-c-0"' in cond["message"] and want in cond["message"], cond)
    ev = second.wait_event("JobCreationFailed", "Warning")
    check('job "a-b-c-0" creation failed with error' in ev["message"] and want in ev["message"],
          ev)
    held = first.job("a-b-c-0")
    check(owner_uid(held) == first.uid, f"a-b's job changed hands: {held['metadata']}")
    log = [ln for ln in env.controller.log().splitlines() if first.ns in ln]
    check(not any("a: created 1 of 1 jobs" in ln for ln in log), "\n".join(log[-20:]))
    check(any("a: created 0 of 1 jobs; 1 not created" in ln for ln in log), "\n".join(log[-20:]))
    # the holder goes: the second JobSet gets its Job, the condition goes with the conflict
    expect(env.server.delete(first.js_path()), 200, "delete a-b")
    if not env.server.has_gc:
        poll(lambda: first.js() is None, "a-b gone")
        env.server.delete(first.path("jobs", "a-b-c-0"), {"propagationPolicy": "Background"})

    def taken_over():
        j = second.job("a-b-c-0")
        return j if j and owner_uid(j) == second.uid else (False, j and j["metadata"])
    poll(taken_over, "a's own job a-b-c-0")
    poll(lambda: second.condition(COND) is None or (False, second.condition(COND)),
         f"{COND} cleared")


@test
def a_job_of_another_namespace_with_a_jobsets_uid_is_not_its_job(env):
    """A Job in another namespace whose controller owner reference forges the JobSet's uid (and
    its labels, complete) is not counted: the JobSet does not complete on it."""
    s = env.server
    if s.has_gc and not s.has_admin:
        raise Skip("a garbage collector would remove the forged owner reference at once")
    c = Case(env, jobset("fj", [rj("w")]))
    real = poll(lambda: c.job("fj-w-0"), "fj's job")
    other = env.namespace()
    m = real["metadata"]
    forged = {"apiVersion": "batch/v1", "kind": "Job",
              "metadata": {"name": "fj-w-0", "labels": dict(m.get("labels") or {}),
                           "annotations": dict(m.get("annotations") or {}),
                           "ownerReferences": m["ownerReferences"]},
              "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
                  {"name": "c", "image": "busybox:1.36"}]}}}}
    if s.has_gc:  # the test API server's collector would delete a Job whose owner is elsewhere
        expect(s.admin("controllers", {"enabled": False}), 200, "garbage collector off")
    try:
        path = f"/apis/batch/v1/namespaces/{other}/jobs"
        got = expect(s.post(path, forged), 201, "forged job")
        now = now_rfc3339()
        got["status"] = {"startTime": now, "completionTime": now, "succeeded": 1,
                         "conditions": [{"type": "SuccessCriteriaMet", "status": "True",
                                         "lastTransitionTime": now},
                                        {"type": "Complete", "status": "True",
                                         "lastTransitionTime": now}]}
        expect(s.put(f"{path}/fj-w-0/status", got), 200, "forged job complete")
        # the forged Job queues "fj" of its own namespace; a change of fj queues fj itself
        c.update_js(lambda js: js["metadata"].setdefault("annotations", {}).update(poke="1"))
        steady(lambda: not any(x.get("type") == "Completed"
                               for x in c.status().get("conditions") or []) and
               all(r.get("succeeded", 0) == 0 for r in c.rj_status()),
               "fj neither completed nor counting a success", seconds=1.5)
    finally:
        if s.has_gc:
            s.admin("controllers", {"enabled": True})
    c.complete("fj-w-0")  # its own Job: now it completes
    c.wait_condition("Completed")


# ---------------------------------------------------------------------------- claims


def claim_jobset(name, when, storage="1Gi"):
    js = jobset(name, [rj("w")])
    ctr = js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]
    ctr["volumeMounts"] = [{"name": "vol", "mountPath": "/data"}]
    js["spec"]["volumeClaimPolicies"] = [{
        "templates": [{"metadata": {"name": "vol"},
                       "spec": {"accessModes": ["ReadWriteMany"],
                                "resources": {"requests": {"storage": storage}}}}],
        "retentionPolicy": {"whenDeleted": when}}]
    return js


def claim(name, mode, storage):
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
            "spec": {"accessModes": [mode], "resources": {"requests": {"storage": storage}}}}


@test
def a_jobset_is_checked_against_the_claim_that_exists(env):
    """kubernetes-sigs/jobset pkg/webhooks/jobset_webhook.go validateVolumeClaimPolicies: the
    claim "<template>-<jobset>" that exists must have the template's spec, and the policy must
    retain it."""
    ns = env.namespace()
    pvcs = f"/api/v1/namespaces/{ns}/persistentvolumeclaims"
    jss = f"{JS_API}/namespaces/{ns}/jobsets"
    expect(env.server.post(pvcs, claim("vol-other", "ReadWriteOnce", "2Gi")), 201, "pvc")
    expect(env.server.post(pvcs, claim("vol-same", "ReadWriteMany", "1Gi")), 201, "pvc")
    r = env.server.post(jss, claim_jobset("other", "Retain"))
    check(r.status == 422, f"spec differs: {r}")
    check("spec.volumeClaimPolicies[0].template[0].spec: Invalid value: " in r.json["message"]
          and f"spec does not match existing PVC vol-other in namespace {ns}"
          in r.json["message"], r.json["message"])
    r = env.server.post(jss, claim_jobset("same", "Delete"))
    check(r.status == 422, f"not retained: {r}")
    check('spec.volumeClaimPolicies[0].retentionPolicy.whenDeleted: Invalid value: "Delete": '
          "retentionPolicy must be retain when PVC exists" in r.json["message"],
          r.json["message"])
    check("does not match" not in r.json["message"], "the API server's volumeMode default "
          f"was held against the template: {r.json['message']}")
    # the same claim, retained: admitted; no claim at all: admitted whatever the policy
    expect(env.server.post(jss, claim_jobset("same", "Retain")), 201, "retained")
    expect(env.server.post(jss, claim_jobset("new", "Delete")), 201, "no claim yet")
    # many templates (read with one list, not a request each): the one that exists is found
    js = claim_jobset("many", "Retain")
    tmpl = js["spec"]["volumeClaimPolicies"][0]["templates"]
    ctr = js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]
    for i in range(12):
        tmpl.append(dict(tmpl[0], metadata={"name": f"v{i}"}))
        ctr["volumeMounts"].append({"name": f"v{i}", "mountPath": f"/v{i}"})
    expect(env.server.post(pvcs, claim("v7-many", "ReadWriteOnce", "1Gi")), 201, "pvc")
    r = env.server.post(jss, js)
    check(r.status == 422 and "spec.volumeClaimPolicies[0].template[8].spec: Invalid value: "
          in r.json["message"] and "spec does not match existing PVC v7-many" in r.json["message"]
          and r.json["message"].count("does not match") == 1, f"many: {r}")


# ---------------------------------------------------------------------------- harness


def setup():
    env = Env()
    env.cases = []  # ctltest.Case's bookkeeping
    env.start()
    return env


if __name__ == "__main__":
    main(setup, test_webhooks.teardown, test_webhooks.on_failure)
