"""Conformance of the test API server (tests/kube/apiserver.py) to kube-apiserver's wire
protocol, over raw HTTP, and the installed kubectl driving it (skipped when kubectl is absent).

One shared server serves most tests, each in its own namespace; tests that need other flags
(token, TLS, no controllers, a short history) start their own."""
import base64
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kubetest import SRC, Server, Skip, check, expect, main, q, test, wait_for  # noqa: E402

CRD_FILE = os.path.join(SRC, "config", "crd", "jobset.x-k8s.io_jobsets.yaml")
JOBSETS = "/apis/jobset.x-k8s.io/v1alpha2"
NS_COUNTER = [0]


def fresh_ns(s, prefix="t"):
    NS_COUNTER[0] += 1
    name = f"{prefix}{NS_COUNTER[0]}"
    expect(s.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                         "metadata": {"name": name}}), 201, "namespace")
    return name


def cm(name, labels=None, data=None, **meta):
    m = {"name": name, **meta}
    if labels:
        m["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": m, "data": data or {"k": "v"}}


def job(name, **meta):
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, **meta},
            "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
                {"name": "c", "image": "busybox:1.36", "env": [{"name": "A", "value": "1"}]}]}}}}


def pod(name, node="node-1", grace=None, **meta):
    spec = {"containers": [{"name": "c", "image": "busybox"}]}
    if node:
        spec["nodeName"] = node
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, **meta}, "spec": spec}


def owner_ref(obj, block=False, controller=False):
    r = {"apiVersion": obj["apiVersion"], "kind": obj["kind"],
         "name": obj["metadata"]["name"], "uid": obj["metadata"]["uid"]}
    if block:
        r["blockOwnerDeletion"] = True
    if controller:
        r["controller"] = True
    return r


def jobset(name, replicas=1, extra=None):
    js = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": name},
          "spec": {"replicatedJobs": [{"name": "w", "replicas": replicas, "template": {
              "spec": {"parallelism": 1, "completions": 1, "template": {"spec": {
                  "restartPolicy": "Never", "containers": [{"name": "c", "image": "x"}]}}}}}]}}
    if extra:
        js["spec"].update(extra)
    return js


def install_crd(s):
    """Installs the JobSet CRD of config/crd over raw HTTP (read with yaml_load)."""
    existing = s.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
                     "jobsets.jobset.x-k8s.io")
    if existing.status == 200:
        return existing.json
    body = crd_json()
    r = expect(s.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", body), 201,
               "CRD")
    wait_for(lambda: s.get(f"{JOBSETS}").status == 200, 5, "JobSet served")
    return r


_CRD_CACHE = []


def crd_json():
    if not _CRD_CACHE:
        _CRD_CACHE.append(yaml_load(open(CRD_FILE, encoding="utf-8").read()))
    return json.loads(json.dumps(_CRD_CACHE[0]))


def yaml_load(text):
    """The block-style YAML subset config/crd uses (maps, lists, scalars, folded plain
    scalars); the standard library has no YAML parser."""
    lines = []
    for raw in text.splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        lines.append(raw)
    pos = [0]

    def indent(line):
        return len(line) - len(line.lstrip(" "))

    def scalar(v):
        v = v.strip()
        if v in ("{}",):
            return {}
        if v in ("[]",):
            return []
        if v.startswith("'") and v.endswith("'"):
            return v[1:-1].replace("''", "'")
        if v.startswith('"') and v.endswith('"'):
            return json.loads(v)
        if v in ("true", "false"):
            return v == "true"
        if re.fullmatch(r"-?\d+", v):
            return int(v)
        return v

    def continuation(value, ind):
        # Plain or quoted scalars folded over more-indented lines.
        while pos[0] < len(lines) and indent(lines[pos[0]]) > ind and \
                not re.match(r"^\s*(- |[\w$./-]+:( |$))", lines[pos[0]]):
            value += " " + lines[pos[0]].strip()
            pos[0] += 1
        return value

    def block(ind):
        line = lines[pos[0]]
        if line.lstrip().startswith("- "):
            return seq(ind)
        return mapping(ind)

    def mapping(ind):
        out = {}
        while pos[0] < len(lines):
            line = lines[pos[0]]
            if indent(line) < ind:
                break
            body = line.strip()
            if body.startswith("- "):
                break
            key, _, rest = body.partition(":")
            pos[0] += 1
            rest = rest.strip()
            if rest:
                out[key] = scalar(continuation(rest, ind))
            elif pos[0] < len(lines) and (indent(lines[pos[0]]) > ind or
                                          lines[pos[0]].lstrip().startswith("- ") and
                                          indent(lines[pos[0]]) == ind):
                out[key] = block(indent(lines[pos[0]]))
            else:
                out[key] = None
        return out

    def seq(ind):
        out = []
        while pos[0] < len(lines):
            line = lines[pos[0]]
            if indent(line) != ind or not line.lstrip().startswith("- "):
                break
            item = line.strip()[2:]
            if ":" in item and not item.startswith(("'", '"')):
                # A mapping whose first key sits on the dash line.
                lines[pos[0]] = " " * (ind + 2) + item
                out.append(mapping(ind + 2))
            else:
                pos[0] += 1
                out.append(scalar(continuation(item, ind)))
        return out

    return block(0)


# ====================================================================== discovery


def pb_fields(data):
    """The length-delimited fields of a protobuf message: {number: [bytes...]}."""
    out, i = {}, 0

    def varint():
        nonlocal i
        n = shift = 0
        while True:
            b = data[i]
            i += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return n
    while i < len(data):
        key = varint()
        check(key & 7 == 2, f"wire type {key & 7} at {i}")
        n = varint()
        out.setdefault(key >> 3, []).append(data[i:i + n])
        i += n
    return out


@test
def discovery_and_health(s):
    api = expect(s.get("/api"), 200)
    check(api["kind"] == "APIVersions" and api["versions"] == ["v1"], api)
    groups = {g["name"]: g for g in expect(s.get("/apis"), 200)["groups"]}
    for g in ("batch", "coordination.k8s.io", "events.k8s.io", "apiextensions.k8s.io"):
        check(g in groups, f"group {g} missing")
    check(groups["batch"]["preferredVersion"]["groupVersion"] == "batch/v1", groups["batch"])
    core = {r["name"]: r for r in expect(s.get("/api/v1"), 200)["resources"]}
    for r in ("namespaces", "pods", "pods/status", "services", "events", "configmaps",
              "secrets", "persistentvolumeclaims"):
        check(r in core, f"{r} missing from /api/v1")
    check(core["pods"]["namespaced"] and "watch" in core["pods"]["verbs"], core["pods"])
    check(core["pods/status"]["verbs"] == ["get", "patch", "update"], core["pods/status"])
    check(not core["namespaces"]["namespaced"], core["namespaces"])
    batch = {r["name"]: r for r in expect(s.get("/apis/batch/v1"), 200)["resources"]}
    check(batch["jobs"]["kind"] == "Job" and "jobs/status" in batch, batch)
    check(expect(s.get("/apis/batch"), 200)["kind"] == "APIGroup")
    leases = expect(s.get("/apis/coordination.k8s.io/v1"), 200)["resources"]
    check(leases[0]["name"] == "leases", leases)
    v = expect(s.get("/version"), 200)
    check(v["major"] == "1" and v["gitVersion"].startswith("v1."), v)
    for p in ("/healthz", "/readyz", "/livez"):
        r = s.get(p)
        check(r.status == 200 and r.raw == b"ok", (p, r))
    expect(s.get("/apis/nope.example.com/v1"), 404)
    r = s.get("/api/v1/nonsense")
    check(r.status == 404 and r.json["reason"] == "NotFound", r)
    r = s.get("/openapi/v2", headers={"Accept": "application/com.github.proto-openapi.spec.v2"
                                                "@v1.0+protobuf"})
    check(r.status == 200 and r.raw.startswith(b"\x0a\x032.0"), r)
    info = pb_fields(pb_fields(r.raw)[2][0])  # openapi_v2.Document.info: title 1, version 2
    check(info == {1: [b"Kubernetes"], 2: [v["gitVersion"].encode()]}, info)
    root = expect(s.get("/openapi/v3"), 200)
    check("apis/batch/v1" in root["paths"], root)
    doc = expect(s.get(root["paths"]["apis/batch/v1"]["serverRelativeURL"]), 200)
    ops = [p["patch"] for p in doc["paths"].values()]
    check(any(o["x-kubernetes-group-version-kind"]["kind"] == "Job" and
              any(p["name"] == "fieldValidation" for p in o["parameters"]) for o in ops), doc)


# ====================================================================== CRUD


@test
def create_get_fill_system_fields(s):
    ns = fresh_ns(s)
    before = int(expect(s.get("/api/v1/namespaces"), 200)["metadata"]["resourceVersion"])
    r = s.post(f"/api/v1/namespaces/{ns}/configmaps", cm("a"))
    obj = expect(r, 201, "create")
    m = obj["metadata"]
    check(obj["kind"] == "ConfigMap" and obj["apiVersion"] == "v1", obj)
    check(re.fullmatch(r"[0-9a-f-]{36}", m["uid"]), m)
    check(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", m["creationTimestamp"]), m)
    check(int(m["resourceVersion"]) > before and m["namespace"] == ns, m)
    check("generation" not in m, "configmaps carry no generation")
    got = expect(s.get(f"/api/v1/namespaces/{ns}/configmaps/a"), 200)
    check(got == obj, (got, obj))
    j = expect(s.post(f"/apis/batch/v1/namespaces/{ns}/jobs", job("j")), 201)
    check(j["metadata"]["generation"] == 1, j["metadata"])
    spec = j["spec"]
    check(spec["parallelism"] == 1 and spec["completions"] == 1 and spec["backoffLimit"] == 6
          and spec["completionMode"] == "NonIndexed" and spec["suspend"] is False, spec)
    uid = j["metadata"]["uid"]
    check(spec["selector"]["matchLabels"] == {"batch.kubernetes.io/controller-uid": uid}, spec)
    labels = spec["template"]["metadata"]["labels"]
    check(labels["batch.kubernetes.io/job-name"] == "j" and labels["controller-uid"] == uid,
          labels)
    check(j["status"] == {}, "create cannot set status")
    r = s.post(f"/api/v1/namespaces/{ns}/configmaps", cm("b", namespace="other"))
    check(r.status == 400 and "does not match the namespace" in r.json["message"], r)
    r = s.post(f"/api/v1/namespaces/{ns}/configmaps", cm("c", resourceVersion="5"))
    check(r.status == 500 and "resourceVersion should not be set" in r.json["message"], r)


@test
def generate_name(s):
    ns = fresh_ns(s)
    names = set()
    for _ in range(5):
        obj = expect(s.post(f"/api/v1/namespaces/{ns}/configmaps",
                            {"metadata": {"generateName": "gen-"}, "data": {}}), 201)
        n = obj["metadata"]["name"]
        check(re.fullmatch(r"gen-[bcdfghjklmnpqrstvwxz2456789]{5}", n), n)
        check(obj["metadata"]["generateName"] == "gen-", obj["metadata"])
        names.add(n)
    check(len(names) == 5, names)
    r = s.post(f"/api/v1/namespaces/{ns}/configmaps", {"metadata": {}, "data": {}})
    check(r.status == 422 and r.json["details"]["causes"][0]["field"] == "metadata.name", r)
    check("name or generateName is required" in r.json["message"], r)


@test
def status_errors_404_409_422(s):
    ns = fresh_ns(s)
    r = s.get(f"/apis/batch/v1/namespaces/{ns}/jobs/nope")
    st = expect(r, 404)
    check(st == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                 "message": 'jobs.batch "nope" not found', "reason": "NotFound",
                 "details": {"name": "nope", "group": "batch", "kind": "jobs"}, "code": 404}, st)
    st = expect(s.get(f"/api/v1/namespaces/{ns}/pods/nope"), 404)
    check(st["message"] == 'pods "nope" not found' and "group" not in st["details"], st)
    expect(s.post(f"/api/v1/namespaces/{ns}/configmaps", cm("dup")), 201)
    st = expect(s.post(f"/api/v1/namespaces/{ns}/configmaps", cm("dup")), 409)
    check(st["reason"] == "AlreadyExists" and st["message"] ==
          'configmaps "dup" already exists', st)
    st = expect(s.post(f"/api/v1/namespaces/{ns}/configmaps", cm("Bad_Name")), 422)
    check(st["reason"] == "Invalid" and st["message"].startswith(
        'ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase '
        "RFC 1123 subdomain"), st)
    check(st["details"]["kind"] == "ConfigMap" and st["details"]["causes"][0]["reason"] ==
          "FieldValueInvalid", st)
    bad = job("bad")
    bad["spec"]["template"]["spec"]["restartPolicy"] = "Always"
    st = expect(s.post(f"/apis/batch/v1/namespaces/{ns}/jobs", bad), 422)
    check('Job.batch "bad" is invalid' in st["message"] and
          "spec.template.spec.restartPolicy" in st["message"], st)
    st = expect(s.post(f"/api/v1/namespaces/{ns}/services", {
        "metadata": {"name": "1svc"}, "spec": {"ports": [{"port": 80}]}}), 422)
    check("DNS-1035" in st["message"], st)
    st = expect(s.post("/api/v1/namespaces/ghost/configmaps", cm("x")), 404)
    check(st["message"] == 'namespaces "ghost" not found', st)
    expect(s.request("POST", f"/api/v1/namespaces/{ns}/configmaps", b"{not json"), 400)
    r = s.get(f"/api/v1/namespaces/{ns}/configmaps",
              headers={"Accept": "application/vnd.kubernetes.protobuf"})
    check(r.status == 406, r)
    r = s.get(f"/api/v1/namespaces/{ns}/configmaps",
              headers={"Accept": "application/vnd.kubernetes.protobuf, application/json"})
    check(r.status == 200, r)


@test
def optimistic_concurrency(s):
    ns = fresh_ns(s)
    base = f"/api/v1/namespaces/{ns}/configmaps"
    obj = expect(s.post(base, cm("c")), 201)
    stale = json.loads(json.dumps(obj))
    obj["data"] = {"k": "2"}
    new = expect(s.put(f"{base}/c", obj), 200)
    check(int(new["metadata"]["resourceVersion"]) > int(stale["metadata"]["resourceVersion"]))
    stale["data"] = {"k": "3"}
    st = expect(s.put(f"{base}/c", stale), 409)
    check(st["reason"] == "Conflict" and st["message"] ==
          'Operation cannot be fulfilled on configmaps "c": the object has been modified; '
          "please apply your changes to the latest version and try again", st)
    # Built-ins allow an unconditional update (no resourceVersion).
    del new["metadata"]["resourceVersion"]
    new["data"] = {"k": "4"}
    check(expect(s.put(f"{base}/c", new), 200)["data"] == {"k": "4"})
    # A no-op update writes nothing.
    cur = expect(s.get(f"{base}/c"), 200)
    same = expect(s.put(f"{base}/c", cur), 200)
    check(same["metadata"]["resourceVersion"] == cur["metadata"]["resourceVersion"], same)
    # Name on the URL and in the body must agree; a missing object is 404.
    cur["metadata"]["name"] = "other"
    expect(s.put(f"{base}/c", cur), 400)
    expect(s.put(f"{base}/missing", cm("missing")), 404)
    # Leader election: two candidates race to take a Lease; exactly one wins.
    leases = f"/apis/coordination.k8s.io/v1/namespaces/{ns}/leases"
    lease = expect(s.post(leases, {"metadata": {"name": "leader"}, "spec": {
        "holderIdentity": "a", "leaseDurationSeconds": 15,
        "renewTime": "2024-01-01T00:00:00.000000Z"}}), 201)
    codes = []
    for who in ("b", "c"):
        lease["spec"]["holderIdentity"] = who
        codes.append(s.put(f"{leases}/leader", lease).status)
    check(codes == [200, 409], codes)
    check(expect(s.get(f"{leases}/leader"), 200)["spec"]["holderIdentity"] == "b")
    st = expect(s.post(leases, {"metadata": {"name": "bad"}, "spec": {
        "leaseDurationSeconds": 0}}), 422)
    check("leaseDurationSeconds" in st["message"], st)


@test
def generation_and_status_subresource(s):
    ns = fresh_ns(s)
    path = f"/apis/batch/v1/namespaces/{ns}/jobs/g"
    j = expect(s.post(f"/apis/batch/v1/namespaces/{ns}/jobs", job("g")), 201)
    j["metadata"]["labels"] = {"x": "y"}
    j = expect(s.put(path, j), 200)
    check(j["metadata"]["generation"] == 1, "metadata changes keep the generation")
    j["spec"]["suspend"] = True
    j["status"] = {"active": 5}
    j = expect(s.put(path, j), 200)
    check(j["metadata"]["generation"] == 2, j["metadata"])
    check(j["status"] == {}, "the main resource ignores status")
    j["status"] = {"active": 2, "startTime": "2024-01-01T00:00:00Z"}
    j["spec"]["parallelism"] = 7
    st = expect(s.put(path + "/status", j), 200)
    check(st["status"]["active"] == 2 and st["spec"]["parallelism"] == 1, st)
    check(st["metadata"]["generation"] == 2, "status writes keep the generation")
    st = expect(s.patch(path + "/status" + q(fieldManager="fake-job-controller"),
                        {"status": {"succeeded": 1}}), 200)
    check(st["status"] == {"active": 2, "startTime": "2024-01-01T00:00:00Z", "succeeded": 1}, st)
    mf = {(e["manager"], e.get("subresource")): e for e in st["metadata"]["managedFields"]}
    check(mf[("fake-job-controller", "status")]["fieldsV1"] == {"f:status": {"f:succeeded": {}}}
          and mf[("fake-job-controller", "status")]["operation"] == "Update", mf)
    got = expect(s.get(path + "/status"), 200)
    check(got["status"]["succeeded"] == 1 and got["kind"] == "Job", got)
    # Suspended Job that has started: the pod template is immutable.
    cur = expect(s.get(path), 200)
    cur["spec"]["template"]["spec"]["nodeSelector"] = {"a": "b"}
    r = s.put(path, cur)
    check(r.status == 422 and "spec.template: Invalid value" in r.json["message"] and
          "field is immutable" in r.json["message"], r)
    # Clearing startTime (as JobSet does on resume) makes scheduling directives mutable.
    expect(s.request("PATCH", path + "/status", [{"op": "remove", "path": "/status/startTime"}],
                     ctype="application/json-patch+json"), 200)
    cur = expect(s.get(path), 200)
    cur["spec"]["template"]["spec"]["nodeSelector"] = {"a": "b"}
    cur["spec"]["template"]["metadata"]["labels"]["kueue"] = "yes"
    expect(s.put(path, cur), 200)
    cur = expect(s.get(path), 200)
    cur["spec"]["template"]["spec"]["containers"][0]["image"] = "other"
    expect(s.put(path, cur), 422)


@test
def job_status_rules(s):
    """The status transitions a test (as a fake Job controller) must respect."""
    ns = fresh_ns(s)
    path = f"/apis/batch/v1/namespaces/{ns}/jobs/st/status"
    expect(s.post(f"/apis/batch/v1/namespaces/{ns}/jobs", job("st")), 201)
    now = "2024-01-01T00:00:00Z"

    def cond(t, reason="R"):
        return {"type": t, "status": "True", "reason": reason, "message": "m",
                "lastTransitionTime": now, "lastProbeTime": now}
    r = s.patch(path, {"status": {"conditions": [cond("Failed")]}})
    check(r.status == 422 and "status.startTime: Required value: startTime is required for "
          "finished job" in r.json["message"], r)
    r = s.patch(path, {"status": {"startTime": now, "active": 1,
                                  "conditions": [cond("FailureTarget"), cond("Failed")]}})
    check(r.status == 422 and "active>0 is invalid for finished job" in r.json["message"], r)
    j = expect(s.patch(path, {"status": {"startTime": now, "failed": 1, "conditions": [
        cond("FailureTarget", "BackoffLimitExceeded"), cond("Failed", "BackoffLimitExceeded")]}}),
        200)
    check(j["status"]["conditions"][1]["reason"] == "BackoffLimitExceeded", j["status"])
    r = s.patch(path, {"status": {"conditions": [], "failed": 0}})
    check(r.status == 422 and "cannot disable the terminal Failed=True condition" in
          r.json["message"] and "cannot decrease the failed counter" in r.json["message"], r)
    expect(s.post(f"/apis/batch/v1/namespaces/{ns}/jobs", job("ok")), 201)
    okp = f"/apis/batch/v1/namespaces/{ns}/jobs/ok/status"
    r = s.patch(okp, {"status": {"startTime": now, "succeeded": 1,
                                 "conditions": [cond("Complete")]}})
    check(r.status == 422 and "completionTime is required for Complete jobs" in
          r.json["message"], r)
    expect(s.patch(okp, {"status": {"startTime": now, "completionTime": now, "succeeded": 1,
                                    "conditions": [cond("SuccessCriteriaMet"),
                                                   cond("Complete")]}}), 200)
    r = s.patch(okp, {"status": {"startTime": "2024-01-02T00:00:00Z"}})
    check(r.status == 422 and "startTime cannot be removed for unsuspended job" in
          r.json["message"], r)


@test
def label_and_field_selectors(s):
    ns = fresh_ns(s)
    base = f"/api/v1/namespaces/{ns}/configmaps"
    for name, labels in (("a", {"app": "x", "tier": "web"}), ("b", {"app": "x", "tier": "db"}),
                         ("c", {"app": "y"}), ("d", {})):
        expect(s.post(base, cm(name, labels)), 201)

    def names(sel=None, fsel=None):
        params = {}
        if sel is not None:
            params["labelSelector"] = sel
        if fsel is not None:
            params["fieldSelector"] = fsel
        return [i["metadata"]["name"] for i in expect(s.get(base + q(**params)), 200)["items"]]

    check(names() == ["a", "b", "c", "d"])
    check(names("app=x") == ["a", "b"])
    check(names("app==x,tier!=db") == ["a"])
    check(names("tier in (web, db)") == ["a", "b"])
    check(names("app notin (x)") == ["c", "d"])
    check(names("tier") == ["a", "b"])
    check(names("!tier") == ["c", "d"])
    check(names(fsel="metadata.name=c") == ["c"])
    check(names(fsel="metadata.name!=c") == ["a", "b", "d"])
    check(names(fsel=f"metadata.namespace={ns}") == ["a", "b", "c", "d"])
    check(names("app=x", "metadata.name=b") == ["b"])
    r = s.get(base + q(labelSelector="app in (x"))
    check(r.status == 400 and r.json["reason"] == "BadRequest", r)
    r = s.get(base + q(fieldSelector="spec.foo=1"))
    check(r.status == 400 and "field label not supported: spec.foo" in r.json["message"], r)
    # List across namespaces.
    items = expect(s.get("/api/v1/configmaps" + q(labelSelector="app=y")), 200)["items"]
    check([(i["metadata"]["namespace"], i["metadata"]["name"]) for i in items] == [(ns, "c")])
    # Built-in list items carry no kind; the list does.
    lst = expect(s.get(base), 200)
    check(lst["kind"] == "ConfigMapList" and "kind" not in lst["items"][0], lst)


@test
def pagination_and_consistent_snapshots(s):
    ns = fresh_ns(s)
    base = f"/api/v1/namespaces/{ns}/configmaps"
    for i in range(7):
        expect(s.post(base, cm(f"item-{i}")), 201)
    page = expect(s.get(base + q(limit=3)), 200)
    check(len(page["items"]) == 3 and page["metadata"]["remainingItemCount"] == 4, page)
    rv = page["metadata"]["resourceVersion"]
    # Writes between pages do not show: the continuation is the same snapshot.
    expect(s.post(base, cm("item-9")), 201)
    expect(s.delete(f"{base}/item-5"), 200)
    names = [i["metadata"]["name"] for i in page["items"]]
    while page["metadata"].get("continue"):
        page = expect(s.get(base + q(limit=3, **{"continue": page["metadata"]["continue"]})),
                      200)
        check(page["metadata"]["resourceVersion"] == rv, page["metadata"])
        names += [i["metadata"]["name"] for i in page["items"]]
    check(names == [f"item-{i}" for i in range(7)], names)
    now = [i["metadata"]["name"] for i in expect(s.get(base), 200)["items"]]
    check("item-9" in now and "item-5" not in now, now)
    # resourceVersionMatch=Exact reads history.
    old = expect(s.get(base + q(resourceVersion=rv, resourceVersionMatch="Exact")), 200)
    check(len(old["items"]) == 7 and old["metadata"]["resourceVersion"] == rv, old["metadata"])
    r = s.get(base + q(resourceVersionMatch="Exact"))
    check(r.status == 422, r)
    r = s.get(base + q(resourceVersion="99999999", resourceVersionMatch="NotOlderThan"))
    check(r.status == 504 and r.json["reason"] == "Timeout", r)
    r = s.get(base + q(limit=2, **{"continue": "garbage"}))
    check(r.status == 400, r)


@test
def history_compaction_410(s):
    srv = Server("--history", "50")
    try:
        ns = fresh_ns(srv)
        base = f"/api/v1/namespaces/{ns}/configmaps"
        for i in range(4):
            expect(srv.post(base, cm(f"c{i}")), 201)
        page = expect(srv.get(base + q(limit=2)), 200)
        rv = page["metadata"]["resourceVersion"]
        for i in range(60):  # more writes than the history keeps
            expect(srv.post(base, cm(f"more{i}")), 201)
        r = srv.get(base + q(limit=2, **{"continue": page["metadata"]["continue"]}))
        check(r.status == 410 and r.json["reason"] == "Expired", r)
        token = r.json["metadata"].get("continue")
        check(token, "an expired continue carries an inconsistent continuation")
        rest = expect(srv.get(base + q(limit=100, **{"continue": token})), 200)
        check(rest["items"][0]["metadata"]["name"] == "c2", rest["items"][0]["metadata"])
        r = srv.get(base + q(resourceVersion=rv, resourceVersionMatch="Exact"))
        check(r.status == 410 and r.json["reason"] == "Expired", r)
        w = srv.watch(base + q(watch="1", resourceVersion=rv))
        check(w.status == 200, "a too-old watch is answered 200 and an ERROR event")
        ev = w.next()
        check(ev["type"] == "ERROR" and ev["object"]["code"] == 410 and
              ev["object"]["reason"] == "Expired" and "too old resource version" in
              ev["object"]["message"], ev)
        check(w.next() is None, "the stream ends after the ERROR")
        w.close()
        # An explicit compaction of everything.
        cur = expect(srv.get(base), 200)["metadata"]["resourceVersion"]
        expect(srv.post(base, cm("after")), 201)
        c = expect(srv.admin("compact"), 200)
        check(c["compacted"] == c["revision"] and c["compacted"] > int(cur), c)
        ev = srv.watch(base + q(watch="1", resourceVersion=cur)).next()
        check(ev["type"] == "ERROR" and ev["object"]["code"] == 410, ev)
    finally:
        srv.stop()


@test
def compaction_on_a_timer(s):
    srv = Server("--compact-interval", "0.2")
    try:
        rv = expect(srv.get("/api/v1/namespaces"), 200)["metadata"]["resourceVersion"]
        expect(srv.post("/api/v1/namespaces", {"metadata": {"name": "later"}}), 201)
        wait_for(lambda: srv.get("/__admin/state").json["compacted"] > int(rv), 5,
                 "a timed compaction")
        ev = srv.watch("/api/v1/namespaces" + q(watch="1", resourceVersion=rv)).next()
        check(ev["type"] == "ERROR" and ev["object"]["code"] == 410, ev)
    finally:
        srv.stop()


# ====================================================================== watch


@test
def watch_events_in_order(s):
    ns = fresh_ns(s)
    base = f"/api/v1/namespaces/{ns}/configmaps"
    rv = expect(s.get(base), 200)["metadata"]["resourceVersion"]
    w = s.watch(base + q(watch="true", resourceVersion=rv, allowWatchBookmarks="true",
                         timeoutSeconds="20"))
    check(w.status == 200 and dict(w.headers).get("Transfer-Encoding") == "chunked", w.headers)
    a = expect(s.post(base, cm("w1")), 201)
    a["data"] = {"k": "changed"}
    a = expect(s.put(f"{base}/w1", a), 200)
    expect(s.delete(f"{base}/w1"), 200)
    evs = w.until(lambda e: e["type"] == "DELETED")
    evs = [e for e in evs if e["type"] != "BOOKMARK"]
    check([e["type"] for e in evs] == ["ADDED", "MODIFIED", "DELETED"], evs)
    check(evs[1]["object"]["data"] == {"k": "changed"} and evs[0]["object"]["kind"] ==
          "ConfigMap", evs)
    rvs = [int(e["object"]["metadata"]["resourceVersion"]) for e in evs]
    check(rvs == sorted(rvs) and rvs[2] > rvs[1], f"the DELETED event carries its own RV {rvs}")
    bm = w.until(lambda e: e["type"] == "BOOKMARK")[-1]
    check(bm["object"]["kind"] == "ConfigMap" and set(bm["object"]["metadata"]) ==
          {"resourceVersion", "creationTimestamp"}, bm)
    check(int(bm["object"]["metadata"]["resourceVersion"]) >= rvs[2], bm)
    w.close()
    # Without a resourceVersion: the current state first, as ADDED.
    expect(s.post(base, cm("w2")), 201)
    w = s.watch(base + q(watch="1", timeoutSeconds="1"))
    evs = []
    while (e := w.next()) is not None:
        evs.append(e)
    check([(e["type"], e["object"]["metadata"]["name"]) for e in evs] == [("ADDED", "w2")], evs)
    # The legacy /watch/ path and a single object by name.
    w = s.watch(f"/api/v1/watch/namespaces/{ns}/configmaps/w2?timeoutSeconds=1")
    check(w.next()["object"]["metadata"]["name"] == "w2")
    w.close()


@test
def watch_selectors_and_initial_events(s):
    ns = fresh_ns(s)
    base = f"/api/v1/namespaces/{ns}/configmaps"
    expect(s.post(base, cm("pre", {"app": "x"})), 201)
    w = s.watch(base + q(watch="1", labelSelector="app=x", sendInitialEvents="true",
                         resourceVersionMatch="NotOlderThan", allowWatchBookmarks="true"))
    evs = w.until(lambda e: e["type"] == "BOOKMARK")
    check(evs[0]["type"] == "ADDED" and evs[0]["object"]["metadata"]["name"] == "pre", evs)
    check(evs[-1]["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"},
          evs)
    other = expect(s.post(base, cm("other", {"app": "y"})), 201)
    other["metadata"]["labels"] = {"app": "x"}
    other = expect(s.put(f"{base}/other", other), 200)
    other["metadata"]["labels"] = {"app": "z"}
    expect(s.put(f"{base}/other", other), 200)
    evs = [e for e in w.until(lambda e: e["type"] == "DELETED") if e["type"] != "BOOKMARK"]
    check([(e["type"], e["object"]["metadata"]["labels"]["app"]) for e in evs] ==
          [("ADDED", "x"), ("DELETED", "z")], evs)
    w.close()
    r = s.get(base + q(watch="1", sendInitialEvents="true"))
    check(r.status == 422, r)


@test
def watch_faults_drop_and_expire(s):
    ns = fresh_ns(s)
    base = f"/api/v1/namespaces/{ns}/configmaps"
    rv = expect(s.get(base), 200)["metadata"]["resourceVersion"]
    w = s.watch(base + q(watch="1", resourceVersion=rv))
    expect(s.post(base, cm("x1")), 201)
    check(w.next()["type"] == "ADDED")
    wait_for(lambda: s.get("/__admin/state").json["openWatches"] >= 1, 2, "open watch")
    expect(s.admin("watches", {"action": "drop"}), 200)
    try:
        ended = w.next() is None
    except (OSError, ValueError, Exception):  # noqa: BLE001 - a reset or a broken chunk
        ended = True
    check(ended, "a dropped watch ends without a clean close")
    w.close()
    w = s.watch(base + q(watch="1", resourceVersion=rv))
    check(w.next()["type"] == "ADDED")
    time.sleep(0.1)
    expect(s.admin("watches", {"action": "expire"}), 200)
    ev = w.next()
    check(ev["type"] == "ERROR" and ev["object"]["code"] == 410, ev)
    w.close()


# ====================================================================== deletion and GC


@test
def background_and_orphan_propagation(s):
    ns = fresh_ns(s)
    cms = f"/api/v1/namespaces/{ns}/configmaps"
    owner = expect(s.post(cms, cm("owner")), 201)
    dep = expect(s.post(cms, cm("dep", ownerReferences=[owner_ref(owner)])), 201)
    r = s.delete(f"{cms}/owner", {"propagationPolicy": "Background"})
    st = expect(r, 200)
    check(st["kind"] == "Status" and st["status"] == "Success" and
          st["details"]["uid"] == owner["metadata"]["uid"], st)
    wait_for(lambda: s.get(f"{cms}/dep").status == 404, 5, "dependent collected")
    # Orphan: the dependent stays, without the owner reference.
    owner = expect(s.post(cms, cm("owner2")), 201)
    expect(s.post(cms, cm("dep2", ownerReferences=[owner_ref(owner)])), 201)
    got = expect(s.delete(f"{cms}/owner2" + q(propagationPolicy="Orphan")), 200)
    check(got["metadata"]["finalizers"] == ["orphan"] and got["metadata"].get(
        "deletionTimestamp"), got)
    wait_for(lambda: s.get(f"{cms}/owner2").status == 404, 5, "orphaning owner gone")
    dep = expect(s.get(f"{cms}/dep2"), 200)
    check("ownerReferences" not in dep["metadata"], dep["metadata"])
    # A dangling owner reference at creation is collected.
    expect(s.post(cms, cm("dangling", ownerReferences=[{
        "apiVersion": "v1", "kind": "ConfigMap", "name": "ghost",
        "uid": "00000000-0000-0000-0000-000000000000"}])), 201)
    wait_for(lambda: s.get(f"{cms}/dangling").status == 404, 5, "dangling dependent collected")
    # batch/v1 Jobs orphan by default and warn about it.
    jobs = f"/apis/batch/v1/namespaces/{ns}/jobs"
    expect(s.post(jobs, job("j")), 201)
    r = s.delete(f"{jobs}/j")
    check(r.status == 200 and any("child pods are preserved" in w for w in r.warnings()), r)
    check(r.json["metadata"]["finalizers"] == ["orphan"], r)
    wait_for(lambda: s.get(f"{jobs}/j").status == 404, 5, "job gone")
    expect(s.post(jobs, job("j2")), 201)
    r = s.delete(f"{jobs}/j2", {"kind": "DeleteOptions", "apiVersion": "v1",
                                "propagationPolicy": "Background"})
    check(r.status == 200 and not r.warnings() and r.json["kind"] == "Status", r)
    r = s.delete(f"{cms}/dep2", {"propagationPolicy": "Sideways"})
    check(r.status == 422, r)


@test
def foreground_propagation_waits_for_blocking_dependents(s):
    ns = fresh_ns(s)
    jobs = f"/apis/batch/v1/namespaces/{ns}/jobs"
    pods = f"/api/v1/namespaces/{ns}/pods"
    j = expect(s.post(jobs, job("fg")), 201)
    expect(s.post(pods, pod("fg-0", ownerReferences=[owner_ref(j, block=True,
                                                               controller=True)])), 201)
    expect(s.post(pods, pod("fg-1", node=None, ownerReferences=[owner_ref(j, block=True)])),
           201)
    got = expect(s.delete(f"{jobs}/fg", {"propagationPolicy": "Foreground"}), 200)
    check(got["metadata"]["finalizers"] == ["foregroundDeletion"] and
          got["metadata"]["deletionTimestamp"] and got["metadata"]["generation"] == 2, got)
    # The unscheduled pod goes at once; the scheduled one starts its 30 s grace.
    wait_for(lambda: s.get(f"{pods}/fg-1").status == 404, 5, "unscheduled pod deleted")
    p0 = wait_for(lambda: (lambda r: r.json if r.status == 200 and r.json["metadata"].get(
        "deletionTimestamp") else None)(s.get(f"{pods}/fg-0")), 5, "pod terminating")
    check(p0["metadata"]["deletionGracePeriodSeconds"] == 30, p0["metadata"])
    s.settle()
    check(s.get(f"{jobs}/fg").status == 200, "the owner waits for its blocking dependent")
    # The kubelet's final delete (grace 0) lets the owner go.
    expect(s.delete(f"{pods}/fg-0", {"gracePeriodSeconds": 0}), 200)
    wait_for(lambda: s.get(f"{jobs}/fg").status == 404, 5, "owner deleted after dependents")


@test
def pod_graceful_deletion(s):
    ns = fresh_ns(s)
    pods = f"/api/v1/namespaces/{ns}/pods"
    expect(s.post(pods, pod("p", grace=60)), 201)
    a = expect(s.delete(f"{pods}/p" + q(gracePeriodSeconds="20")), 200)
    check(a["kind"] == "Pod" and a["metadata"]["deletionGracePeriodSeconds"] == 20, a)
    b = expect(s.delete(f"{pods}/p", {"gracePeriodSeconds": 40}), 200)
    check(b["metadata"]["deletionGracePeriodSeconds"] == 20, "a longer grace is ignored")
    c = expect(s.delete(f"{pods}/p", {"gracePeriodSeconds": 5}), 200)
    check(c["metadata"]["deletionGracePeriodSeconds"] == 5, "a shorter grace shortens")
    check(c["metadata"]["deletionTimestamp"] < a["metadata"]["deletionTimestamp"], (a, c))
    expect(s.delete(f"{pods}/p", {"gracePeriodSeconds": 0}), 200)
    expect(s.get(f"{pods}/p"), 404)
    expect(s.post(pods, pod("u", node=None)), 201)
    d = expect(s.delete(f"{pods}/u"), 200)
    check(d["kind"] == "Pod", "pods return the deleted object")
    expect(s.get(f"{pods}/u"), 404)
    # Preconditions.
    p = expect(s.post(pods, pod("pre", node=None)), 201)
    r = s.delete(f"{pods}/pre", {"preconditions": {"uid": "wrong"}})
    check(r.status == 409 and "precondition" in r.json["message"], r)
    expect(s.delete(f"{pods}/pre", {"preconditions": {"uid": p["metadata"]["uid"]}}), 200)


@test
def finalizers_hold_deletion(s):
    ns = fresh_ns(s)
    cms = f"/api/v1/namespaces/{ns}/configmaps"
    expect(s.post(cms, cm("f", finalizers=["example.com/hold"])), 201)
    got = expect(s.delete(f"{cms}/f"), 200)
    check(got["metadata"]["deletionTimestamp"] and got["kind"] == "ConfigMap", got)
    got["metadata"]["finalizers"].append("example.com/more")
    r = s.put(f"{cms}/f", got)
    check(r.status == 422 and "no new finalizers can be added" in r.json["message"], r)
    expect(s.patch(f"{cms}/f", {"metadata": {"finalizers": None}}), 200)
    expect(s.get(f"{cms}/f"), 404)


@test
def namespace_lifecycle(s):
    ns = fresh_ns(s, "life")
    expect(s.post(f"/api/v1/namespaces/{ns}/configmaps", cm("inside")), 201)
    expect(s.post(f"/api/v1/namespaces/{ns}/configmaps", cm("held", finalizers=["x.io/f"])),
           201)
    got = expect(s.delete(f"/api/v1/namespaces/{ns}"), 200)
    check(got["status"]["phase"] == "Terminating" and got["metadata"]["deletionTimestamp"],
          got)
    r = s.post(f"/api/v1/namespaces/{ns}/configmaps", cm("late"))
    check(r.status == 403 and "because it is being terminated" in r.json["message"] and
          r.json["details"]["causes"][0]["reason"] == "NamespaceTerminating", r)
    wait_for(lambda: s.get(f"/api/v1/namespaces/{ns}/configmaps/inside").status == 404, 5,
             "namespace emptied")
    s.settle()
    check(s.get(f"/api/v1/namespaces/{ns}").status == 200, "a finalizer holds the namespace")
    expect(s.patch(f"/api/v1/namespaces/{ns}/configmaps/held",
                   {"metadata": {"finalizers": []}}), 200)
    wait_for(lambda: s.get(f"/api/v1/namespaces/{ns}").status == 404, 5, "namespace gone")
    r = s.delete("/api/v1/namespaces/default")
    check(r.status == 403, r)


@test
def delete_collection(s):
    ns = fresh_ns(s)
    cms = f"/api/v1/namespaces/{ns}/configmaps"
    for n, app in (("a", "x"), ("b", "x"), ("c", "y")):
        expect(s.post(cms, cm(n, {"app": app})), 201)
    lst = expect(s.delete(cms + q(labelSelector="app=x")), 200)
    check(lst["kind"] == "ConfigMapList" and len(lst["items"]) == 2, lst)
    left = [i["metadata"]["name"] for i in expect(s.get(cms), 200)["items"]]
    check(left == ["c"], left)


# ====================================================================== patches


@test
def patch_formats(s):
    ns = fresh_ns(s)
    jobs = f"/apis/batch/v1/namespaces/{ns}/jobs"
    expect(s.post(jobs, job("p")), 201)
    path = f"{jobs}/p"
    j = expect(s.patch(path, {"metadata": {"labels": {"a": "1", "b": "2"}}}), 200)
    j = expect(s.patch(path, {"metadata": {"labels": {"a": None}}}), 200)
    check("a" not in j["metadata"]["labels"] and j["metadata"]["labels"]["b"] == "2",
          j["metadata"])
    # SetDefaults_Job gave the label-less Job its pod template's labels.
    check(j["metadata"]["labels"]["batch.kubernetes.io/job-name"] == "p", j["metadata"])
    j = expect(s.request("PATCH", path, [
        {"op": "add", "path": "/metadata/annotations", "value": {"x": "y"}},
        {"op": "test", "path": "/metadata/labels/b", "value": "2"},
        {"op": "replace", "path": "/metadata/labels/b", "value": "3"}],
        ctype="application/json-patch+json"), 200)
    check(j["metadata"]["labels"]["b"] == "3" and j["metadata"]["annotations"] == {"x": "y"})
    r = s.request("PATCH", path, [{"op": "test", "path": "/metadata/labels/b", "value": "9"}],
                  ctype="application/json-patch+json")
    check(r.status == 422, r)
    # Strategic merge: containers and env merged by name, $setElementOrder, $patch: delete.
    cur = expect(s.get(path), 200)
    cur["spec"]["suspend"] = True
    expect(s.put(path, cur), 200)
    smp = {"spec": {"template": {"metadata": {"labels": {"added": "1"}}, "spec": {
        "$setElementOrder/containers": [{"name": "side"}, {"name": "c"}],
        "containers": [{"name": "side", "image": "s"},
                       {"name": "c", "env": [{"name": "B", "value": "2"},
                                             {"name": "A", "$patch": "delete"}]}]}}}}
    r = s.patch(path, smp, ctype="application/strategic-merge-patch+json")
    check(r.status == 422 and "spec.template" in r.json["message"], "started Jobs refuse it")
    expect(s.request("PATCH", path + "/status", [{"op": "remove", "path": "/status"}],
                     ctype="application/json-patch+json"), 200)
    pods = f"/api/v1/namespaces/{ns}/pods"
    expect(s.post(pods, pod("sp", node=None)), 201)
    p = expect(s.patch(f"{pods}/sp", {"spec": {"containers": [
        {"name": "c", "image": "new"}]}}, ctype="application/strategic-merge-patch+json"), 200)
    check([(c["name"], c["image"]) for c in p["spec"]["containers"]] == [("c", "new")], p)
    check(p["spec"]["containers"][0]["terminationMessagePath"] == "/dev/termination-log",
          "SMP merged the container by name, keeping its other fields")
    cms = f"/api/v1/namespaces/{ns}/configmaps"
    expect(s.post(cms, cm("f", finalizers=["a.io/x"])), 201)
    c = expect(s.patch(f"{cms}/f", {"metadata": {"finalizers": ["b.io/y"]}},
                       ctype="application/strategic-merge-patch+json"), 200)
    check(c["metadata"]["finalizers"] == ["a.io/x", "b.io/y"], "finalizers merge as a set")
    c = expect(s.patch(f"{cms}/f", {"metadata": {"$deleteFromPrimitiveList/finalizers": [
        "a.io/x", "b.io/y"]}}, ctype="application/strategic-merge-patch+json"), 200)
    check("finalizers" not in c["metadata"], c["metadata"])
    # A resourceVersion in a patch is a precondition.
    r = s.patch(f"{cms}/f", {"metadata": {"resourceVersion": "1", "labels": {"z": "z"}}})
    check(r.status == 409 and r.json["reason"] == "Conflict", r)
    expect(s.patch(f"{cms}/missing", {"data": {}}), 404)
    r = s.patch(f"{cms}/f", {"data": {}}, ctype="text/plain")
    check(r.status == 415 and r.json["reason"] == "UnsupportedMediaType", r)


@test
def server_side_apply(s):
    ns = fresh_ns(s)
    cms = f"/api/v1/namespaces/{ns}/configmaps"
    body = cm("ssa", {"a": "1", "b": "2"}, {"x": "1"})
    r = s.patch(f"{cms}/ssa" + q(fieldManager="me"), body, ctype="application/apply-patch+yaml")
    check(r.status == 201 and r.json["metadata"]["labels"] == {"a": "1", "b": "2"}, r)
    expect(s.patch(f"{cms}/ssa", {"metadata": {"labels": {"other": "3"}}}), 200)
    body = cm("ssa", {"a": "1"}, {"x": "1", "y": "2"})
    got = expect(s.patch(f"{cms}/ssa" + q(fieldManager="me"), body,
                         ctype="application/apply-patch+yaml"), 200)
    check(got["metadata"]["labels"] == {"a": "1", "other": "3"} and
          got["data"] == {"x": "1", "y": "2"}, "fields this manager stopped applying go")
    r = s.patch(f"{cms}/ssa", body, ctype="application/apply-patch+yaml")
    check(r.status == 400 and "fieldManager" in r.json["message"], r)
    pods = f"/api/v1/namespaces/{ns}/pods"
    expect(s.post(pods, pod("sp", node=None)), 201)
    p = expect(s.patch(f"{pods}/sp" + q(fieldManager="me"), {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "sp"},
        "spec": {"containers": [{"name": "c", "image": "v2"}]}},
        ctype="application/apply-patch+yaml"), 200)
    c = p["spec"]["containers"][0]
    check(c["image"] == "v2" and c["terminationMessagePolicy"] == "File",
          "containers merge by name")


# ====================================================================== CRDs


@test
def crd_install_prune_default_validate(s):
    install_crd(s)
    crd = expect(s.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
                       "jobsets.jobset.x-k8s.io"), 200)
    wait_for(lambda: any(c["type"] == "Established" and c["status"] == "True" for c in
                         s.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
                               "jobsets.jobset.x-k8s.io").json["status"]["conditions"]),
             5, "CRD established")
    check(crd["metadata"]["finalizers"] == ["customresourcecleanup.apiextensions.k8s.io"], crd)
    res = {r["name"]: r for r in expect(s.get(JOBSETS), 200)["resources"]}
    check(res["jobsets"]["kind"] == "JobSet" and "jobsets/status" in res, res)
    check("jobset.x-k8s.io" in [g["name"] for g in s.get("/apis").json["groups"]])
    ns = fresh_ns(s)
    base = f"{JOBSETS}/namespaces/{ns}/jobsets"
    body = jobset("js", extra={"failurePolicy": {"maxRestarts": 1}})
    body["spec"]["bogus"] = 1
    body["spec"]["replicatedJobs"][0]["template"]["metadata"] = {"generateName": "x-",
                                                                 "labels": {"a": "b"}}
    body["status"] = {"restarts": 4}
    r = s.post(base, body)
    js = expect(r, 201)
    check(sorted(r.warnings()) == sorted([
        '299 - "unknown field \\"spec.bogus\\""',
        '299 - "unknown field \\"spec.replicatedJobs[0].template.metadata.generateName\\""']),
        r.warnings())
    check("bogus" not in js["spec"] and "status" not in js, js)
    rj = js["spec"]["replicatedJobs"][0]
    check(rj["groupName"] == "default" and rj["template"]["metadata"] == {"labels": {"a": "b"}},
          rj)
    check(rj["template"]["spec"]["template"]["spec"]["containers"][0]["image"] == "x",
          "the Job template's spec is kept as written")
    check(js["metadata"]["generation"] == 1, js["metadata"])
    r = s.post(base + q(fieldValidation="Strict"), dict(body, metadata={"name": "strict"}))
    check(r.status == 400 and 'unknown field "spec.bogus"' in r.json["message"], r)
    r = s.post(base + q(fieldValidation="Ignore"), dict(body, metadata={"name": "ign"}))
    check(r.status == 201 and not r.warnings(), r)
    # Schema validation.
    bad = jobset("bad", extra={"successPolicy": {"operator": "Some"},
                               "ttlSecondsAfterFinished": -1})
    bad["spec"]["replicatedJobs"].append(dict(bad["spec"]["replicatedJobs"][0]))
    bad["spec"]["replicatedJobs"][0]["replicas"] = "two"
    st = expect(s.post(base, bad), 422)
    msg = st["message"]
    check(msg.startswith('JobSet.jobset.x-k8s.io "bad" is invalid: ['), msg)
    for part in ('spec.successPolicy.operator: Unsupported value: "Some"',
                 "spec.ttlSecondsAfterFinished: Invalid value: -1",
                 "spec.replicatedJobs[0].replicas: Invalid value: \"string\"",
                 "spec.replicatedJobs[1]: Duplicate value"):
        check(part in msg, (part, msg))
    missing = jobset("missing")
    del missing["spec"]["replicatedJobs"][0]["template"]
    st = expect(s.post(base, missing), 422)
    check("spec.replicatedJobs[0].template: Required value" in st["message"], st)
    # Status subresource and generation.
    js["status"] = {"restarts": 1, "terminalState": "Completed"}
    st = expect(s.put(f"{base}/js/status", js), 200)
    check(st["status"] == {"restarts": 1, "terminalState": "Completed"} and
          st["metadata"]["generation"] == 1, st)
    st["spec"]["suspend"] = True
    st["status"] = {}
    up = expect(s.put(f"{base}/js", st), 200)
    check(up["metadata"]["generation"] == 2 and up["status"]["restarts"] == 1, up)
    # Custom resources need a resourceVersion on update.
    del up["metadata"]["resourceVersion"]
    r = s.put(f"{base}/js", up)
    check(r.status == 422 and "must be specified for an update" in r.json["message"], r)
    # CEL transition rule self == oldSelf (only when there is an old value).
    r = s.patch(f"{base}/js", {"spec": {"failurePolicy": {"maxRestarts": 3}}})
    check(r.status == 422 and r.json["message"] == 'JobSet.jobset.x-k8s.io "js" is invalid: '
          'spec.failurePolicy: Invalid value: "object": Value is immutable', r)
    expect(s.patch(f"{base}/js", {"spec": {"successPolicy": {"operator": "Any"}}}), 200)
    expect(s.patch(f"{base}/js", {"spec": {"suspend": False}}), 200)
    r = s.patch(f"{base}/js", {"spec": {"suspend": True}},
                ctype="application/strategic-merge-patch+json")
    check(r.status == 415 and r.json["reason"] == "UnsupportedMediaType", r)
    # Tables use the printer columns.
    t = expect(s.get(base, headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}),
               200)
    check([c["name"] for c in t["columnDefinitions"]] == [
        "Name", "TerminalState", "Restarts", "Completed", "Suspended", "Age"], t)
    row = [r for r in t["rows"] if r["cells"][0] == "js"][0]
    check(row["cells"][1:5] == ["Completed", "1", None, "false"], row)
    check(row["object"]["kind"] == "PartialObjectMetadata", row)


@test
def crd_deletion_removes_objects(s):
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "widgets.example.com"},
           "spec": {"group": "example.com", "scope": "Namespaced",
                    "names": {"plural": "widgets", "kind": "Widget", "shortNames": ["wd"]},
                    "versions": [{"name": "v1", "served": True, "storage": True,
                                  "schema": {"openAPIV3Schema": {
                                      "type": "object", "properties": {
                                          "spec": {"type": "object",
                                                   "x-kubernetes-preserve-unknown-fields": True}
                                      }}}}]}}
    crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    got = expect(s.post(crds, crd), 201)
    check(got["spec"]["names"]["listKind"] == "WidgetList" and
          got["spec"]["names"]["singular"] == "widget", got["spec"]["names"])
    ns = fresh_ns(s)
    w = f"/apis/example.com/v1/namespaces/{ns}/widgets"
    expect(s.post(w, {"apiVersion": "example.com/v1", "kind": "Widget",
                      "metadata": {"name": "w1"}, "spec": {"any": {"thing": 1}}}), 201)
    lst = expect(s.get(w), 200)
    check(lst["kind"] == "WidgetList" and lst["items"][0]["kind"] == "Widget", lst)
    r = expect(s.get("/apis/example.com/v1"), 200)
    check(r["resources"][0]["shortNames"] == ["wd"], r)
    w_watch = s.watch(w + q(watch="1", resourceVersion=lst["metadata"]["resourceVersion"]))
    expect(s.delete(f"{crds}/widgets.example.com"), 200)
    wait_for(lambda: s.get(f"{crds}/widgets.example.com").status == 404, 5, "CRD gone")
    ev = w_watch.next()
    check(ev["type"] == "DELETED" and ev["object"]["metadata"]["name"] == "w1", ev)
    check(w_watch.next() is None, "watches of a removed CRD's resource end")
    check(s.get(w).status == 404, "the resource is no longer served")
    bad = json.loads(json.dumps(crd))
    bad["metadata"]["name"] = "wrong.example.com"
    bad["spec"]["versions"][0]["storage"] = False
    st = expect(s.post(crds, bad), 422)
    check("must be spec.names.plural" in st["message"] and "storage version" in
          st["message"], st)


# ====================================================================== events


@test
def events_two_views(s):
    ns = fresh_ns(s)
    new = {"apiVersion": "events.k8s.io/v1", "kind": "Event",
           "metadata": {"name": "e1"}, "eventTime": "2024-01-01T00:00:00.000000Z",
           "reportingController": "jobset", "reportingInstance": "jobset-0",
           "action": "Reconciling", "reason": "AllJobsCompleted", "type": "Normal",
           "note": "jobset completed successfully",
           "regarding": {"kind": "JobSet", "name": "js", "namespace": ns}}
    got = expect(s.post(f"/apis/events.k8s.io/v1/namespaces/{ns}/events", new), 201)
    check(got["note"] == "jobset completed successfully" and got["regarding"]["name"] == "js",
          got)
    core = expect(s.get(f"/api/v1/namespaces/{ns}/events/e1"), 200)
    check(core["message"] == "jobset completed successfully" and
          core["involvedObject"]["kind"] == "JobSet" and
          core["reportingComponent"] == "jobset", core)
    lst = expect(s.get(f"/api/v1/namespaces/{ns}/events" + q(
        fieldSelector="involvedObject.name=js,reason=AllJobsCompleted")), 200)
    check(len(lst["items"]) == 1, lst)
    expect(s.post(f"/api/v1/namespaces/{ns}/events", {
        "metadata": {"name": "e2"}, "involvedObject": {"kind": "Job", "name": "j"},
        "reason": "Created", "message": "m", "type": "Warning"}), 201)
    lst = expect(s.get(f"/apis/events.k8s.io/v1/namespaces/{ns}/events"), 200)
    check(sorted(i["metadata"]["name"] for i in lst["items"]) == ["e1", "e2"], lst)
    bad = dict(new, metadata={"name": "e3"})
    del bad["reportingController"]
    st = expect(s.post(f"/apis/events.k8s.io/v1/namespaces/{ns}/events", bad), 422)
    check("reportingController: Required value" in st["message"], st)


@test
def install_kinds(s):
    """ServiceAccounts, Deployments and RBAC objects: what a controller's installation (config/)
    holds, served with their defaults and validation, enforced by nothing."""
    ns = fresh_ns(s, "inst")
    groups = {g["name"] for g in expect(s.get("/apis"), 200)["groups"]}
    check({"apps", "rbac.authorization.k8s.io"} <= groups, groups)
    core = {r["name"] for r in expect(s.get("/api/v1"), 200)["resources"]}
    check("serviceaccounts" in core, core)
    rbac = {r["name"]: r for r in expect(s.get("/apis/rbac.authorization.k8s.io/v1"),
                                         200)["resources"]}
    check(sorted(rbac) == ["clusterrolebindings", "clusterroles", "rolebindings", "roles"], rbac)
    check(not rbac["clusterroles"]["namespaced"] and rbac["roles"]["namespaced"], rbac)
    expect(s.post(f"/api/v1/namespaces/{ns}/serviceaccounts", {"metadata": {"name": "sa"}}), 201)
    # Deployments: apps/v1 defaults, the selector matching the template, immutable.
    deps = f"/apis/apps/v1/namespaces/{ns}/deployments"
    labels = {"app": "x"}
    dep = {"metadata": {"name": "d"}, "spec": {"selector": {"matchLabels": labels},
           "template": {"metadata": {"labels": labels},
                        "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}}}
    d = expect(s.post(deps, dep), 201)
    check(d["spec"]["replicas"] == 1 and d["spec"]["revisionHistoryLimit"] == 10 and
          d["spec"]["progressDeadlineSeconds"] == 600 and d["spec"]["strategy"] == {
              "type": "RollingUpdate",
              "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}, d)
    check(d["metadata"]["generation"] == 1 and d["status"] == {}, d)
    check(d["spec"]["template"]["spec"]["restartPolicy"] == "Always", d)
    d["spec"]["replicas"] = 2
    d = expect(s.put(f"{deps}/d", d), 200)
    check(d["metadata"]["generation"] == 2, d)
    d["spec"]["selector"] = {"matchLabels": {"app": "x", "b": "1"}}
    st = expect(s.put(f"{deps}/d", d), 422)
    fields = sorted(c["field"] for c in st["details"]["causes"])
    check(fields == ["spec.selector", "spec.template.metadata.labels"], st)
    bad = json.loads(json.dumps(dep))
    bad["metadata"]["name"] = "bad"
    bad["spec"]["template"]["metadata"]["labels"] = {"app": "y"}
    bad["spec"]["template"]["spec"]["restartPolicy"] = "Never"
    st = expect(s.post(deps, bad), 422)
    check(sorted(c["field"] for c in st["details"]["causes"]) == [
        "spec.template.metadata.labels", "spec.template.spec.restartPolicy"], st)
    # RBAC: rules and bindings validated as pkg/apis/rbac/validation does.
    base = "/apis/rbac.authorization.k8s.io/v1"
    rule = {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["get"]}
    expect(s.post(f"{base}/clusterroles", {"metadata": {"name": "system:r"},
                                           "rules": [rule]}), 201)
    st = expect(s.post(f"{base}/clusterroles", {"metadata": {"name": "r2"}, "rules": [
        {"apiGroups": ["batch"], "resources": ["jobs"]}, {"verbs": ["get"]}]}), 422)
    check(sorted(c["field"] for c in st["details"]["causes"]) == [
        "rules[0].verbs", "rules[1].apiGroups", "rules[1].resources"], st)
    st = expect(s.post(f"{base}/namespaces/{ns}/roles", {"metadata": {"name": "r"}, "rules": [
        {"nonResourceURLs": ["/metrics"], "verbs": ["get"]}]}), 422)
    check("namespaced rules cannot apply to non-resource URLs" in st["message"], st)
    ref = {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "system:r"}
    st = expect(s.post(f"{base}/clusterrolebindings", {"metadata": {"name": "b"}, "roleRef": ref,
                                                       "subjects": [{"kind": "ServiceAccount",
                                                                     "name": "sa"}]}), 422)
    check(st["details"]["causes"][0]["field"] == "subjects[0].namespace", st)
    b = expect(s.post(f"{base}/namespaces/{ns}/rolebindings", {
        "metadata": {"name": "b"}, "roleRef": ref,
        "subjects": [{"kind": "ServiceAccount", "name": "sa"}]}), 201)
    b["roleRef"] = dict(ref, kind="Role")
    st = expect(s.put(f"{base}/namespaces/{ns}/rolebindings/b", b), 422)
    check("roleRef: Invalid value" in st["message"] and "cannot change roleRef" in
          st["message"], st)
    t = expect(s.get(f"{base}/namespaces/{ns}/rolebindings", headers={
        "Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}), 200)
    check([c["name"] for c in t["columnDefinitions"] if c["priority"] == 0] ==
          ["Name", "Role", "Age"] and
          t["rows"][0]["cells"][:2] == ["b", "ClusterRole/system:r"], t)


# ====================================================================== ServiceAccount tokens

AUTHN = "/apis/authentication.k8s.io/v1"
API_AUDIENCE = "https://kubernetes.default.svc.cluster.local"
EXTRA = "authentication.kubernetes.io/"


def token_request(**spec):
    return {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec}


def review(s, token, *audiences):
    """The status of a TokenReview of token for audiences (none: the server's own)."""
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
            "spec": {"token": token, "audiences": list(audiences)}}
    return expect(s.post(f"{AUTHN}/tokenreviews", body), 201, "token review")["status"]


def refused(st, why):
    check("authenticated" not in st and st["user"] == {} and
          st["error"] == f"[invalid bearer token, {why}]", (why, st))


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt_part(token, i):
    """The JSON of a JWT's header (0) or claims (1)."""
    part = token.split(".")[i]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def sa_and_pod(s, prefix):
    """A namespace with ServiceAccount "trainer" and pod "w-0" running as it on node-1."""
    ns = fresh_ns(s, prefix)
    sa = expect(s.post(f"/api/v1/namespaces/{ns}/serviceaccounts",
                       {"metadata": {"name": "trainer"}}), 201, "serviceaccount")
    body = pod("w-0")
    body["spec"]["serviceAccountName"] = "trainer"
    p = expect(s.post(f"/api/v1/namespaces/{ns}/pods", body), 201, "pod")
    return ns, sa, p, body


@test
def token_requests_issue_signed_bound_tokens(s):
    """POST serviceaccounts/{name}/token as token.go answers it: defaults, the claims of
    claims.go, the errors; the discovery entries kubectl and clients find it by."""
    groups = {g["name"]: g for g in expect(s.get("/apis"), 200)["groups"]}
    check(groups["authentication.k8s.io"]["preferredVersion"]["groupVersion"] ==
          "authentication.k8s.io/v1", groups)
    res = expect(s.get(AUTHN), 200)["resources"]
    check(res == [{"name": "tokenreviews", "singularName": "tokenreview", "namespaced": False,
                   "kind": "TokenReview", "verbs": ["create"]}], res)
    core = {r["name"]: r for r in expect(s.get("/api/v1"), 200)["resources"]}
    check(core["serviceaccounts/token"] == {
        "name": "serviceaccounts/token", "singularName": "", "namespaced": True,
        "group": "authentication.k8s.io", "version": "v1", "kind": "TokenRequest",
        "verbs": ["create"]}, core.get("serviceaccounts/token"))
    ns, sa, p, _ = sa_and_pod(s, "tokreq")
    url = f"/api/v1/namespaces/{ns}/serviceaccounts/trainer/token"
    ref = {"kind": "Pod", "apiVersion": "v1", "name": "w-0", "uid": p["metadata"]["uid"]}
    t0 = time.time()
    tr = expect(s.post(url, token_request(audiences=["A"], boundObjectRef=ref)), 201, "token")
    check(tr["kind"] == "TokenRequest" and tr["apiVersion"] == "authentication.k8s.io/v1" and
          tr["metadata"]["name"] == "trainer" and tr["metadata"]["namespace"] == ns, tr)
    check(tr["spec"] == {"audiences": ["A"], "expirationSeconds": 3600, "boundObjectRef": ref},
          tr["spec"])
    token = tr["status"]["token"]
    check(re.fullmatch(r"[\w-]+\.[\w-]+\.[\w-]+", token), token)
    check(jwt_part(token, 0) == {"alg": "HS256"}, token)
    c = jwt_part(token, 1)
    check(c["aud"] == ["A"] and c["iss"] == API_AUDIENCE and c["nbf"] == c["iat"] and
          c["sub"] == f"system:serviceaccount:{ns}:trainer" and abs(c["iat"] - t0) < 5 and
          c["exp"] - c["iat"] == 3600 and re.fullmatch(r"[0-9a-f-]{36}", c["jti"]), c)
    check(tr["status"]["expirationTimestamp"] ==
          time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(c["exp"])), (tr["status"], c))
    check(c["kubernetes.io"] == {"namespace": ns,
                                 "serviceaccount": {"name": "trainer",
                                                    "uid": sa["metadata"]["uid"]},
                                 "pod": {"name": "w-0", "uid": p["metadata"]["uid"]},
                                 "node": {"name": "node-1"}}, c)
    # Unbound, the server's audience by default; a Node-bound one carries the Node's uid.
    tr = expect(s.post(url, token_request(expirationSeconds=7200)), 201, "unbound token")
    c = jwt_part(tr["status"]["token"], 1)
    check(tr["spec"]["audiences"] == [API_AUDIENCE] and c["aud"] == [API_AUDIENCE] and
          c["exp"] - c["iat"] == 7200 and sorted(c["kubernetes.io"]) ==
          ["namespace", "serviceaccount"], (tr, c))
    node = expect(s.post("/api/v1/nodes", {"metadata": {"name": f"{ns}-node"}}), 201, "node")
    c = jwt_part(expect(s.post(url, token_request(boundObjectRef={
        "kind": "Node", "apiVersion": "v1", "name": f"{ns}-node"})), 201)["status"]["token"], 1)
    check(c["kubernetes.io"]["node"] == {"name": f"{ns}-node", "uid": node["metadata"]["uid"]},
          c)
    # The errors, in token.go's order and words.
    st = expect(s.post(url, token_request(expirationSeconds=100)), 422)
    check(st["reason"] == "Invalid" and st["message"] ==
          'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid '
          "value: 100: may not specify a duration less than 10 minutes", st)
    st = expect(s.post(url.replace("trainer", "ghost"), token_request(expirationSeconds=100)),
                404)
    check(st["reason"] == "NotFound" and st["message"] == 'serviceaccounts "ghost" not found',
          st)
    st = expect(s.post(url, token_request(boundObjectRef=dict(ref, name="nope"))), 404)
    check(st["message"] == 'pods "nope" not found', st)
    st = expect(s.post(url, token_request(boundObjectRef=dict(ref, uid="0000"))), 409)
    check(st["reason"] == "Conflict" and st["message"] ==
          'Operation cannot be fulfilled on Pod "w-0": the UID in the bound object reference '
          "(0000) does not match the UID in record. The object might have been deleted and "
          "then recreated", st)
    expect(s.post(f"/api/v1/namespaces/{ns}/pods", pod("as-default")), 201)
    st = expect(s.post(url, token_request(boundObjectRef=dict(ref, name="as-default"))), 400)
    check(st["message"] == 'cannot bind token for serviceaccount "trainer" to pod running '
          "with different serviceaccount name.", st)
    st = expect(s.post(url, token_request(boundObjectRef={
        "kind": "Deployment", "apiVersion": "apps/v1", "name": "d"})), 400)
    check(st["message"] == "cannot bind token to object of type apps/v1, Kind=Deployment", st)
    st = expect(s.post(url, token_request(expirationSeconds="1h")), 400)
    check("cannot unmarshal string" in st["message"], st)
    st = expect(s.post(url, dict(token_request(), metadata={"name": "other"})), 422)
    check("metadata.name: Invalid value" in st["message"], st)
    # Create-only: every other verb is 405.
    for method, path in (("GET", url), ("DELETE", url), ("GET", f"{AUTHN}/tokenreviews"),
                         ("GET", f"{AUTHN}/tokenreviews?watch=true"),
                         ("DELETE", f"{AUTHN}/tokenreviews/x")):
        st = expect(s.request(method, path), 405, f"{method} {path}")
        check(st["reason"] == "MethodNotAllowed", st)


@test
def token_reviews_authenticate_as_kube_apiserver(s):
    """POST tokenreviews as kube-apiserver's ServiceAccount token authenticator answers it:
    the user and extras, audiences, altered or foreign tokens, and tokens whose pod or
    ServiceAccount is gone or was made anew."""
    ns, sa, p, pod_body = sa_and_pod(s, "tokrev")
    sa_uid, pod_uid = sa["metadata"]["uid"], p["metadata"]["uid"]
    url = f"/api/v1/namespaces/{ns}/serviceaccounts/trainer/token"
    ref = {"kind": "Pod", "apiVersion": "v1", "name": "w-0", "uid": pod_uid}
    token = expect(s.post(url, token_request(audiences=["A"], boundObjectRef=ref)),
                   201)["status"]["token"]
    jti = jwt_part(token, 1)["jti"]
    st = review(s, token, "A")
    check(st == {"authenticated": True, "audiences": ["A"], "user": {
        "username": f"system:serviceaccount:{ns}:trainer", "uid": sa_uid,
        "groups": ["system:serviceaccounts", f"system:serviceaccounts:{ns}",
                   "system:authenticated"],
        "extra": {EXTRA + "pod-name": ["w-0"], EXTRA + "pod-uid": [pod_uid],
                  EXTRA + "node-name": ["node-1"], EXTRA + "credential-id": [f"JTI={jti}"]}}},
          st)
    refused(review(s, token, "B"),
            'token audiences ["A"] is invalid for the target audiences ["B"]')
    refused(review(s, token), f'token audiences ["A"] is invalid for the target audiences '
                              f'["{API_AUDIENCE}"]')
    multi = expect(s.post(url, token_request(audiences=["A", "C"])), 201)["status"]["token"]
    st = review(s, multi, "C", "x", "A")
    check(st["authenticated"] is True and st["audiences"] == ["C", "A"] and
          list(st["user"]["extra"]) == [EXTRA + "credential-id"], st)
    own = expect(s.post(url, token_request()), 201)["status"]["token"]
    check(review(s, own)["audiences"] == [API_AUDIENCE])
    # Claims altered (re-encoded, same signature), a token of another server, junk.
    head, _, sig = token.split(".")
    claims = dict(jwt_part(token, 1), aud=["A", "B"])
    altered = b64url(json.dumps(claims, sort_keys=True, separators=(",", ":")).encode())
    refused(review(s, f"{head}.{altered}.{sig}", "B"),
            "go-jose/go-jose: error in cryptographic primitive")
    refused(review(s, f"{head}.{altered}.{b64url(os.urandom(32))}", "B"),
            "go-jose/go-jose: error in cryptographic primitive")
    other = Server()
    try:
        ons, _, _, _ = sa_and_pod(other, "tokrev")
        foreign = expect(other.post(f"/api/v1/namespaces/{ons}/serviceaccounts/trainer/token",
                                    token_request(audiences=["A"])), 201)["status"]["token"]
        check(review(other, foreign, "A")["authenticated"] is True)
        refused(review(s, foreign, "A"), "go-jose/go-jose: error in cryptographic primitive")
    finally:
        other.stop()
    for junk in ("abc", f"{head}.{altered}", "x.y.z", f"{head}.{b64url(b'{}')}.{sig}"):
        st = review(s, junk, "A")
        check("authenticated" not in st and st["error"] == "invalid bearer token", (junk, st))
    st = expect(s.post(f"{AUTHN}/tokenreviews", {"apiVersion": "authentication.k8s.io/v1",
                                                 "kind": "TokenReview", "spec": {}}), 400)
    check(st["message"] == "token is required for TokenReview in authentication", st)
    # The bound pod deleted, then made again under its name; the ServiceAccount likewise.
    pods = f"/api/v1/namespaces/{ns}/pods"
    expect(s.delete(f"{pods}/w-0", {"gracePeriodSeconds": 0}), 200)
    wait_for(lambda: s.get(f"{pods}/w-0").status == 404, 5, "pod w-0 gone")
    refused(review(s, token, "A"), "service account token has been invalidated")
    check(review(s, multi, "A")["authenticated"] is True, "an unbound token outlives the pod")
    new_uid = expect(s.post(pods, pod_body), 201)["metadata"]["uid"]
    refused(review(s, token, "A"),
            f"pod UID ({new_uid}) does not match service account pod ref claim ({pod_uid})")
    sas = f"/api/v1/namespaces/{ns}/serviceaccounts"
    expect(s.delete(f"{sas}/trainer"), 200)
    refused(review(s, multi, "A"), 'serviceaccounts "trainer" not found')
    new_sa = expect(s.post(sas, {"metadata": {"name": "trainer"}}), 201)["metadata"]["uid"]
    refused(review(s, multi, "A"),
            f"service account UID ({new_sa}) does not match claim ({sa_uid})")


@test
def malformed_bodies_are_4xx(s):
    """Any field of a Job, Pod, Service, Lease or JobSet replaced by a value of the wrong
    type is refused with a 4xx Status (never a 5xx), on create and on patch."""
    install_crd(s)
    ns = fresh_ns(s)
    bases = {f"/apis/batch/v1/namespaces/{ns}/jobs": job("j", labels={"a": "b"}),
             f"/api/v1/namespaces/{ns}/pods": pod("p", finalizers=["a.io/b"]),
             f"/api/v1/namespaces/{ns}/services": {"metadata": {"name": "s"}, "spec": {
                 "ports": [{"port": 80, "targetPort": 8080}], "selector": {"a": "b"}}},
             f"/apis/coordination.k8s.io/v1/namespaces/{ns}/leases": {
                 "metadata": {"name": "l"}, "spec": {"holderIdentity": "a",
                                                     "leaseDurationSeconds": 3}},
             f"{JOBSETS}/namespaces/{ns}/jobsets": jobset("js", extra={
                 "failurePolicy": {"maxRestarts": 1}, "successPolicy": {"operator": "All"}})}
    weird = [None, 7, "s", [1], {"x": None}]

    def paths(o, p=()):
        yield p
        if isinstance(o, dict):
            for k, v in o.items():
                yield from paths(v, p + (k,))
        elif isinstance(o, list):
            for i, v in enumerate(o):
                yield from paths(v, p + (i,))

    def replaced(o, p, v):
        o = json.loads(json.dumps(o))
        if not p:
            return v
        cur = o
        for x in p[:-1]:
            cur = cur[x]
        cur[p[-1]] = v
        return o
    n = 0
    for url, body in bases.items():
        created = expect(s.post(url, body), 201, url)
        name = created["metadata"]["name"]
        for p in list(paths(body))[1:]:
            for w in weird:
                n += 1
                b = replaced(body, p, w)
                if isinstance(b.get("metadata"), dict) and p[:2] != ("metadata", "name"):
                    b["metadata"]["name"] = f"m{n}"
                r = s.post(url, b)
                check(r.status < 500 and r.json and r.json.get("kind") in (
                    "Status", created["kind"]), (url, p, w, r))
                r = s.patch(f"{url}/{name}", replaced(body, p, w))
                check(r.status < 500, (url, p, w, r))


# ====================================================================== faults, concurrency


@test
def fault_injection(s):
    ns = fresh_ns(s)
    jobs = f"/apis/batch/v1/namespaces/{ns}/jobs"
    expect(s.admin("faults", {"verb": "list", "resource": "jobs", "code": 500, "count": 2}),
           200)
    r1, r2, r3 = s.get(jobs), s.get(jobs), s.get(jobs)
    check((r1.status, r2.status, r3.status) == (500, 500, 200), (r1, r2, r3))
    check(r1.json["reason"] == "InternalError", r1)
    expect(s.admin("faults", {"verb": "create", "resource": "*", "code": 429, "retryAfter": 2}),
           200)
    r = s.post(jobs, job("f"))
    check(r.status == 429 and r.header("Retry-After") == "2" and
          r.json["details"]["retryAfterSeconds"] == 2, r)
    expect(s.post(jobs, job("f")), 201)
    expect(s.admin("faults", {"verb": "get", "resource": "jobs", "latency": 0.3, "count": 1}),
           200)
    t0 = time.monotonic()
    expect(s.get(f"{jobs}/f"), 200)
    check(time.monotonic() - t0 >= 0.3, "latency added")
    expect(s.admin("faults", {"verb": "watch", "resource": "jobs", "code": 503,
                              "retryAfter": 1, "skip": 1}), 200)
    w = s.watch(jobs + q(watch="1", timeoutSeconds="1"))
    check(w.status == 200, "skip lets the first through")
    w.close()
    r = s.get(jobs + q(watch="1"))
    check(r.status == 503 and r.header("Retry-After") == "1", r)
    expect(s.admin("faults", {"verb": "update", "code": 409, "count": 0,
                              "namespace": ns}), 200)
    check(len(s.get("/__admin/faults").json["rules"]) == 1)
    check(expect(s.admin("faults", method="DELETE"), 200)["cleared"] == 1)
    stats = expect(s.get("/__admin/stats"), 200)
    check(stats.get("list jobs 500", 0) >= 2, stats)


@test
def pod_logs(s):
    ns = fresh_ns(s)
    pods = f"/api/v1/namespaces/{ns}/pods"
    r = s.get(f"{pods}/nope/log")
    check(r.status == 404 and r.json["reason"] == "NotFound" and
          r.json["message"] == 'pods "nope" not found', r)
    expect(s.post(pods, pod("one")), 201)
    r = expect(s.get(f"{pods}/one/log"), 200)
    check(s.get(f"{pods}/one/log").raw == b"", "no line yet")
    got = s.pod_log(ns, "one", "alpha\nbeta\ngamma\n")
    check(got == {"container": "c", "lines": 3, "total": 3, "closed": False}, got)
    r = s.get(f"{pods}/one/log")
    check(r.status == 200 and r.header("Content-Type").startswith("text/plain") and
          r.raw == b"alpha\nbeta\ngamma\n", r)
    check(s.get(f"{pods}/one/log?container=c&tailLines=2").raw == b"beta\ngamma\n")
    check(s.get(f"{pods}/one/log?tailLines=0").raw == b"")
    check(s.get(f"{pods}/one/log?limitBytes=8").raw == b"alpha\nbe")
    r = s.get(f"{pods}/one/log?timestamps=true&tailLines=1")
    check(re.fullmatch(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z gamma\n", r.raw), r)
    check(s.get(f"{pods}/one/log?sinceSeconds=60").raw == b"alpha\nbeta\ngamma\n")
    check(s.get(f"{pods}/one/log" + q(sinceTime="2999-01-01T00:00:00Z")).raw == b"")
    check(s.get(f"{pods}/one/log" + q(sinceTime="2000-01-01T00:00:00Z")).raw.count(b"\n") == 3)
    r = s.get(f"{pods}/one/log?container=other")
    check(r.status == 400 and r.json["message"] == "container other is not valid for pod one",
          r)
    r = s.get(f"{pods}/one/log?tailLines=-1&limitBytes=0")
    check(r.status == 422 and r.json["reason"] == "Invalid" and
          r.json["details"]["kind"] == "PodLogOptions" and
          [c["field"] for c in r.json["details"]["causes"]] == ["tailLines", "limitBytes"], r)
    r = s.get(f"{pods}/one/log?sinceSeconds=5" + "&" + q(sinceTime="2000-01-01T00:00:00Z")[1:])
    check(r.status == 422, r)
    check(s.get(f"{pods}/one/log?follow=maybe").status == 400)
    r = s.admin("podlogs", {"namespace": ns, "pod": "missing", "text": "x"})
    check(r.status == 404, r)
    # The previous instance: none yet, then the log before the restart.
    r = s.get(f"{pods}/one/log?previous=true")
    check(r.status == 400 and r.json["message"] ==
          'previous terminated container "c" in pod "one" not found', r)
    s.pod_log(ns, "one", "delta\n", restart=True)
    check(s.get(f"{pods}/one/log?previous=true").raw == b"alpha\nbeta\ngamma\n")
    check(s.get(f"{pods}/one/log").raw == b"delta\n")
    # Several containers: the name is required; the admin default is the first.
    two = pod("two")
    two["spec"]["containers"].append({"name": "side", "image": "busybox"})
    two["spec"]["initContainers"] = [{"name": "init", "image": "busybox"}]
    expect(s.post(pods, two), 201)
    r = s.get(f"{pods}/two/log")
    check(r.status == 400 and r.json["reason"] == "BadRequest" and r.json["message"] ==
          "a container name must be specified for pod two, choose one of: [c side] or one of "
          "the init containers: [init]", r)
    check(s.pod_log(ns, "two", "main")["container"] == "c")
    s.pod_log(ns, "two", "side line\n", container="side")
    s.pod_log(ns, "two", "init line\n", container="init")
    check(s.get(f"{pods}/two/log?container=side").raw == b"side line\n")
    check(s.get(f"{pods}/two/log?container=init").raw == b"init line\n")
    check(s.get(f"{pods}/two/log?container=c").raw == b"main\n")
    # A container whose status says it is waiting, with nothing logged: the kubelet's 400.
    expect(s.post(pods, pod("wait")), 201)
    expect(s.patch(f"{pods}/wait/status", {"status": {"containerStatuses": [{
        "name": "c", "ready": False, "restartCount": 0, "image": "busybox", "imageID": "",
        "state": {"waiting": {"reason": "ContainerCreating"}}}]}}), 200)
    r = s.get(f"{pods}/wait/log")
    check(r.status == 400 and r.json["message"] ==
          'container "c" in pod "wait" is waiting to start: ContainerCreating', r)

    def follow(path):
        """Reads a follow stream line by line in a thread: (lines, done event)."""
        w = s.watch(path, timeout=20)
        check(w.status == 200 and w.resp.getheader("Transfer-Encoding") == "chunked",
              w.status)
        lines, done = [], threading.Event()

        def read():
            try:
                while True:
                    line = w.resp.readline()
                    if not line:
                        break
                    lines.append(line)
            finally:
                done.set()
                w.close()
        threading.Thread(target=read, daemon=True).start()
        return lines, done

    # Follow: what is there, then lines as they come, until the log is closed.
    lines, done = follow(f"{pods}/one/log?follow=true&tailLines=1")
    wait_for(lambda: lines == [b"delta\n"], 5, "the tail line")
    s.pod_log(ns, "one", "e1\ne2\n")
    wait_for(lambda: lines == [b"delta\n", b"e1\n", b"e2\n"], 5, "followed lines")
    check(not done.is_set(), "the stream goes on")
    s.pod_log(ns, "one", "last\n", close=True)
    check(done.wait(5), "close ends the stream")
    check(lines[-1] == b"last\n", lines)
    # Follow ends when the pod's phase is Succeeded (after its last lines) ...
    expect(s.post(pods, pod("three")), 201)
    s.pod_log(ns, "three", "x\n")
    lines, done = follow(f"{pods}/three/log?follow=1")
    wait_for(lambda: lines == [b"x\n"], 5, "first line")
    s.pod_log(ns, "three", "y\n")
    expect(s.patch(f"{pods}/three/status", {"status": {"phase": "Succeeded"}}), 200)
    check(done.wait(5), "a Succeeded pod ends the stream")
    check(lines == [b"x\n", b"y\n"], lines)
    # ... when the pod is deleted (and a pod created again under its name starts afresh) ...
    expect(s.post(pods, pod("four", node=None)), 201)
    lines, done = follow(f"{pods}/four/log?follow=true")
    s.pod_log(ns, "four", "before\n")
    wait_for(lambda: lines == [b"before\n"], 5, "line before the deletion")
    expect(s.delete(f"{pods}/four"), 200)
    check(done.wait(5), "deletion ends the stream")
    expect(s.post(pods, pod("four", node=None)), 201)
    check(s.get(f"{pods}/four/log").raw == b"", "a new pod has a new log")
    # ... and at limitBytes.
    lines, done = follow(f"{pods}/two/log?follow=true&container=side&limitBytes=12")
    s.pod_log(ns, "two", "more side\n", container="side")
    check(done.wait(5), "limitBytes ends the stream")
    check(b"".join(lines) == b"side line\nmo", lines)
    # An already finished pod's follow stream ends at once.
    check(s.get(f"{pods}/three/log?follow=true").raw == b"x\ny\n")
    # kubectl reads it as it reads a kubelet's answer.
    if shutil.which("kubectl"):
        k = Kubectl(s)
        out = k.ok("logs", "-n", ns, "one", "--tail=2")
        check(out == "e2\nlast\n", out)
        out = k.ok("logs", "-n", ns, "two", "-c", "side")
        check(out == "side line\nmore side\n", out)
        shutil.rmtree(k.cache, ignore_errors=True)


@test
def concurrent_clients(s):
    ns = fresh_ns(s)
    base = f"/api/v1/namespaces/{ns}/configmaps"
    rvs, errors = [], []

    def worker(i):
        for k in range(25):
            r = s.post(base, cm(f"c-{i}-{k}"))
            if r.status != 201:
                errors.append(r)
            else:
                rvs.append(int(r.json["metadata"]["resourceVersion"]))
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(not errors, errors[:3])
    check(len(rvs) == 200 and len(set(rvs)) == 200, "every write has its own revision")
    check(len(expect(s.get(base), 200)["items"]) == 200)


# ====================================================================== server options


@test
def bearer_token_and_tls(s):
    srv = Server("--token", "s3cret", "--tls")
    try:
        check(srv.get("/healthz").status == 200, "health is public")
        r = srv.get("/api/v1/namespaces", token="wrong")
        check(r.status == 401 and r.json["reason"] == "Unauthorized", r)
        expect(srv.get("/api/v1/namespaces"), 200)
        with open(srv.kubeconfig, encoding="utf-8") as f:
            kc = f.read()
        check("https://127.0.0.1:" in kc and "token: s3cret" in kc and
              "certificate-authority-data: " in kc, kc)
        ca = kc.split("certificate-authority-data: ")[1].split()[0]
        check(b"BEGIN CERTIFICATE" in base64.b64decode(ca))
        if shutil.which("kubectl"):
            out = Kubectl(srv).ok("get", "ns", "default", "-o", "name")
            check(out.strip() == "namespace/default", out)
    finally:
        srv.stop()


@test
def no_controllers_is_envtest_like(s):
    srv = Server("--no-controllers")
    try:
        ns = fresh_ns(srv)
        cms = f"/api/v1/namespaces/{ns}/configmaps"
        owner = expect(srv.post(cms, cm("o")), 201)
        expect(srv.post(cms, cm("d", ownerReferences=[owner_ref(owner, block=True)])), 201)
        expect(srv.delete(f"{cms}/o", {"propagationPolicy": "Foreground"}), 200)
        time.sleep(0.3)
        o = expect(srv.get(f"{cms}/o"), 200)
        check(o["metadata"]["finalizers"] == ["foregroundDeletion"], o)
        expect(srv.get(f"{cms}/d"), 200)
        # As in JobSet's integration suite: strip the finalizer by hand.
        expect(srv.patch(f"{cms}/o", {"metadata": {"finalizers": None}}), 200)
        expect(srv.get(f"{cms}/o"), 404)
        # Switching the controllers on collects the orphaned dependent.
        expect(srv.admin("controllers", {"enabled": True}), 200)
        wait_for(lambda: srv.get(f"{cms}/d").status == 404, 5, "GC after enabling")
    finally:
        srv.stop()


# ====================================================================== kubectl


class Kubectl:
    def __init__(self, s):
        self.s = s
        self.cache = tempfile.mkdtemp(prefix="jaxset-kubectl-")
        self.env = dict(os.environ, KUBECONFIG=s.kubeconfig, HOME=self.cache)

    def __call__(self, *args, stdin=None, timeout=30):
        p = subprocess.run(["kubectl", "--cache-dir", os.path.join(self.cache, "cache"), *args],
                           input=stdin, capture_output=True, text=True, env=self.env,
                           timeout=timeout)
        return p.returncode, p.stdout, p.stderr

    def ok(self, *args, **kw):
        rc, out, err = self(*args, **kw)
        if rc != 0:
            raise AssertionError(f"kubectl {' '.join(args)}: rc={rc}\n{out}\n{err}")
        return out


JOB_YAML = """apiVersion: batch/v1
kind: Job
metadata:
  name: hello
  namespace: {ns}
  labels:
    app: hello
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox:1.36
        command: ["sh", "-c", "echo hi"]
        env:
        - name: A
          value: "1"
"""

JOBSET_YAML = """apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: train
  namespace: {ns}
spec:
  failurePolicy:
    maxRestarts: 2
  replicatedJobs:
  - name: workers
    replicas: 2
    template:
      spec:
        parallelism: 2
        completions: 2
        template:
          spec:
            restartPolicy: Never
            containers:
            - name: jax
              image: python:3.11
"""


@test
def kubectl_drives_the_server(s):
    if shutil.which("kubectl") is None:
        print("skip kubectl_drives_the_server: kubectl is not installed")
        return
    k = Kubectl(s)
    ns = "kctl"
    out = k.ok("apply", "-f", "-", stdin=f"apiVersion: v1\nkind: Namespace\nmetadata:\n"
                                        f"  name: {ns}\n")
    check(out.strip() == f"namespace/{ns} created", out)
    check(k.ok("create", "namespace", "kctl2").strip() == "namespace/kctl2 created")
    job_yaml = JOB_YAML.format(ns=ns)
    check(k.ok("apply", "-f", "-", stdin=job_yaml).strip() == "job.batch/hello created")
    check(k.ok("apply", "-f", "-", stdin=job_yaml).strip() == "job.batch/hello unchanged")
    out = k.ok("apply", "-f", "-", stdin=job_yaml.replace("app: hello", "app: hello2"))
    check(out.strip() == "job.batch/hello configured", out)
    out = k.ok("get", "jobs", "-n", ns)
    check(re.match(r"NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\nhello\s+Running\s+0/1", out),
          out)
    j = json.loads(k.ok("get", "job", "hello", "-n", ns, "-o", "json"))
    check("managedFields" not in j["metadata"], "kubectl hides managedFields")
    managers = [e["manager"] for e in expect(s.get(f"/apis/batch/v1/namespaces/{ns}/jobs/hello"),
                                             200)["metadata"]["managedFields"]]
    check(managers == ["kubectl-client-side-apply"], managers)
    check(j["metadata"]["labels"]["app"] == "hello2" and
          "kubectl.kubernetes.io/last-applied-configuration" in j["metadata"]["annotations"], j)
    out = k.ok("patch", "job", "hello", "-n", ns, "-p", '{"metadata":{"labels":{"s":"1"}}}')
    check(out.strip() == "job.batch/hello patched", out)
    out = k.ok("patch", "job", "hello", "-n", ns, "--type", "merge", "-p",
               '{"metadata":{"labels":{"m":"1"}}}')
    check("patched" in out, out)
    out = k.ok("patch", "job", "hello", "-n", ns, "--type", "json", "-p",
               '[{"op":"add","path":"/metadata/labels/j","value":"1"}]')
    out = k.ok("patch", "job", "hello", "-n", ns, "--type", "merge", "-p",
               '{"metadata":{"labels":{"m":"1"}}}')
    check("(no change)" in out, out)
    out = k.ok("get", "jobs", "-n", ns, "-l", "s=1,m=1,j=1", "-o", "name")
    check(out.strip() == "job.batch/hello", out)
    # The JobSet CRD (server-side: it exceeds client-side apply's annotation), then a JobSet.
    out = k.ok("apply", "--server-side", "-f", CRD_FILE)
    check("customresourcedefinition.apiextensions.k8s.io/jobsets.jobset.x-k8s.io" in out, out)
    k.ok("wait", "--for", "condition=Established", "--timeout", "10s", "crd/jobsets.jobset.x-k8s.io")
    # kubectl explain reads the CRD's schema from /openapi/v3, as from kube-apiserver
    out = k.ok("explain", "jobset.spec.failurePolicy")
    check(re.search(r"^  maxRestarts\s+<integer>", out, re.M) and
          re.search(r"^  restartStrategy\s+<string>", out, re.M), out)
    js_yaml = JOBSET_YAML.format(ns=ns)
    check(k.ok("apply", "-f", "-", stdin=js_yaml).strip() ==
          "jobset.jobset.x-k8s.io/train created")
    out = k.ok("apply", "-f", "-", stdin=js_yaml).strip()
    check(out in ("jobset.jobset.x-k8s.io/train configured",
                  "jobset.jobset.x-k8s.io/train unchanged"), out)
    out = k.ok("get", "jobsets", "-n", ns)
    check(re.match(r"NAME\s+TERMINALSTATE\s+RESTARTS\s+COMPLETED\s+SUSPENDED\s+AGE\ntrain\s",
                   out), out)
    js = json.loads(k.ok("get", "jobset", "train", "-n", ns, "-o", "json"))
    check(js["spec"]["failurePolicy"]["restartStrategy"] == "Recreate" and
          js["spec"]["replicatedJobs"][0]["groupName"] == "default", js["spec"])
    k.ok("patch", "jobset", "train", "-n", ns, "--type", "merge", "-p",
         '{"spec":{"suspend":true}}')
    out = k.ok("get", "jobset", "train", "-n", ns, "-o", "jsonpath={.spec.suspend}")
    check(out == "true", out)
    rc, _, err = k("patch", "jobset", "train", "-n", ns, "-p", '{"spec":{"suspend":false}}')
    check(rc != 0 and "strategic-merge-patch" in err, err)
    rc, _, err = k("patch", "jobset", "train", "-n", ns, "--type", "merge", "-p",
                   '{"spec":{"failurePolicy":{"maxRestarts":5}}}')
    check(rc != 0 and "Value is immutable" in err, err)
    rc, _, err = k("apply", "-f", "-", stdin=js_yaml.replace("  failurePolicy:",
                                                             "  bogus: 1\n  failurePolicy:"))
    check(rc != 0 and 'unknown field "spec.bogus"' in err, err)
    # A short watch sees a change and ends at its request timeout.
    watcher = subprocess.Popen(
        ["kubectl", "--cache-dir", os.path.join(k.cache, "cache"), "get", "jobs", "-n", ns,
         "--watch", "--request-timeout=3s"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=k.env)
    time.sleep(1.0)
    k.ok("label", "job", "hello", "-n", ns, "w=1")
    out, err = watcher.communicate(timeout=20)
    check(out.count("hello") >= 2, (out, err))
    check(watcher.returncode == 0, (watcher.returncode, err))
    # Server-side apply.
    out = k.ok("apply", "--server-side", "-f", "-", stdin=job_yaml)
    check(out.strip() == "job.batch/hello serverside-applied", out)
    # Typed commands send protobuf bodies.
    check(k.ok("create", "configmap", "typed", "-n", ns, "--from-literal=k=v").strip() ==
          "configmap/typed created")
    check(k.ok("create", "secret", "generic", "sec", "-n", ns, "--from-literal=pw=x").strip()
          == "secret/sec created")
    check(k.ok("get", "secret", "sec", "-n", ns, "-o", "jsonpath={.type} {.data.pw}") ==
          "Opaque " + base64.b64encode(b"x").decode())
    # create / get -o yaml / delete.
    out = k.ok("create", "-f", "-", stdin=f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                                          f"  name: made\n  namespace: {ns}\ndata:\n  a: b\n")
    check(out.strip() == "configmap/made created", out)
    rc, _, err = k("create", "-f", "-", stdin=f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                                              f"  name: made\n  namespace: {ns}\n")
    check(rc != 0 and "AlreadyExists" in err, err)
    check("a: b" in k.ok("get", "configmap", "made", "-n", ns, "-o", "yaml"))
    check(k.ok("delete", "configmap", "made", "-n", ns).strip() ==
          'configmap "made" deleted')
    out = k.ok("delete", "jobset", "train", "-n", ns)
    check(out.strip() == 'jobset.jobset.x-k8s.io "train" deleted', out)
    out = k.ok("delete", "-f", "-", stdin=job_yaml)
    check(out.strip() == 'job.batch "hello" deleted', out)
    rc, _, err = k("get", "job", "hello", "-n", ns)
    check(rc == 1 and 'jobs.batch "hello" not found' in err, err)
    out = k.ok("get", "ns")
    check(re.search(rf"^{ns}\s+Active", out, re.M), out)
    k.ok("delete", "ns", ns, "--wait=true", "--timeout=10s")
    rc, _, err = k("get", "ns", ns)
    check(rc == 1 and "NotFound" in err, err)
    shutil.rmtree(k.cache, ignore_errors=True)


@test
def kubectl_creates_and_reviews_tokens(s):
    """`kubectl create serviceaccount`, `kubectl create token` bound to a pod (both send
    protobuf), a TokenReview with `kubectl create -f`, and kubectl's discovery of them."""
    if shutil.which("kubectl") is None:
        raise Skip("kubectl is not installed")
    k = Kubectl(s)
    ns = fresh_ns(s, "ktok")
    out = k.ok("create", "serviceaccount", "trainer", "-n", ns)
    check(out.strip() == "serviceaccount/trainer created", out)
    body = pod("w-0")
    body["spec"]["serviceAccountName"] = "trainer"
    uid = expect(s.post(f"/api/v1/namespaces/{ns}/pods", body), 201)["metadata"]["uid"]
    bound = ("--bound-object-kind", "Pod", "--bound-object-name", "w-0")
    token = k.ok("create", "token", "trainer", "-n", ns, "--audience", "jaxset", *bound,
                 "--duration", "1h").strip()
    c = jwt_part(token, 1)
    check(c["aud"] == ["jaxset"] and c["exp"] - c["iat"] == 3600 and
          c["kubernetes.io"]["pod"] == {"name": "w-0", "uid": uid}, c)
    st = review(s, token, "jaxset")
    check(st.get("authenticated") is True and st["user"]["extra"][EXTRA + "pod-uid"] == [uid],
          st)
    out = json.loads(k.ok("create", "-o", "json", "-f", "-", stdin=json.dumps({
        "apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
        "spec": {"token": token, "audiences": ["jaxset"]}})))
    check(out["status"]["authenticated"] is True and out["status"]["user"]["username"] ==
          f"system:serviceaccount:{ns}:trainer", out)
    rc, _, err = k("create", "token", "trainer", "-n", ns, *bound, "--bound-object-uid", "0")
    check(rc != 0 and "does not match the UID in record" in err, err)
    rc, _, err = k("create", "token", "ghost", "-n", ns)
    check(rc != 0 and 'serviceaccounts "ghost" not found' in err, err)
    out = k.ok("api-resources", "--api-group", "authentication.k8s.io", "--no-headers")
    check(re.fullmatch(r"tokenreviews\s+authentication\.k8s\.io/v1\s+false\s+TokenReview\s*",
                       out), out)
    shutil.rmtree(k.cache, ignore_errors=True)


# ---------------------------------------------------------------------------- webhooks

ADMREG = "/apis/admissionregistration.k8s.io/v1"


class Hook:
    """An HTTPS admission webhook on 127.0.0.1 (self-signed certificate by the openssl CLI);
    `decide(request)` returns the AdmissionReview response's fields; requests are recorded."""

    def __init__(self, decide, delay=0):
        import http.server
        import ssl
        self.dir = tempfile.mkdtemp(prefix="jaxset-hook-")
        key, crt = os.path.join(self.dir, "k.pem"), os.path.join(self.dir, "c.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                        "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", crt,
                        "-days", "1", "-subj", "/CN=127.0.0.1", "-addext",
                        "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
        with open(crt, encoding="utf-8") as f:
            self.ca = base64.b64encode(f.read().encode()).decode()
        self.requests = []
        hook = self

        class H(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                hook.requests.append((self.path, review["request"]))
                time.sleep(delay)
                resp = {"uid": review["request"]["uid"], "allowed": True}
                resp.update((decide(review["request"]) if decide else None) or {})
                body = json.dumps({"apiVersion": "admission.k8s.io/v1",
                                   "kind": "AdmissionReview", "response": resp}).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the API server gave up (timeoutSeconds)

        class Quiet(http.server.ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                pass  # failed handshakes of the wrong-CA case

        self.httpd = Quiet(("127.0.0.1", 0), H)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(crt, key)
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, path="/hook"):
        return f"https://127.0.0.1:{self.port}{path}"

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        shutil.rmtree(self.dir, ignore_errors=True)


def webhook_config(s, kind, name, hooks):
    body = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
            "metadata": {"name": name}, "webhooks": hooks}
    expect(s.post(f"{ADMREG}/{kind.lower()}s", body), 201, name)
    return f"{ADMREG}/{kind.lower()}s/{name}"


def cm_hook(name, url, ca, ops=("CREATE",), **extra):
    return {"name": name, "admissionReviewVersions": ["v1"], "sideEffects": "None",
            "clientConfig": {"url": url, "caBundle": ca},
            "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": list(ops),
                       "resources": ["configmaps"]}], **extra}


def label_patch(req):
    ops = [{"op": "add", "path": "/metadata/labels", "value": {"hooked": "yes"}}]
    return {"patchType": "JSONPatch",
            "patch": base64.b64encode(json.dumps(ops).encode()).decode()}


def deny(req):
    if (req["object"].get("data") or {}).get("k") == "bad":
        return {"allowed": False, "status": {"code": 422, "reason": "Invalid",
                                             "message": 'ConfigMap "x" is invalid: data.k: bad'}}
    return None


@test
def webhooks_mutate_and_validate_as_kube_apiserver(s):
    ns = fresh_ns(s, "wh")
    mut, val = Hook(label_patch), Hook(deny)
    paths = []
    try:
        paths.append(webhook_config(s, "MutatingWebhookConfiguration", "m1", [
            cm_hook("m.test", mut.url(), mut.ca,
                    objectSelector={"matchExpressions": [{"key": "skip",
                                                          "operator": "DoesNotExist"}]})]))
        paths.append(webhook_config(s, "ValidatingWebhookConfiguration", "v1", [
            cm_hook("v.test", val.url("/v"), val.ca, ops=("CREATE", "UPDATE"))]))
        got = expect(s.post(f"/api/v1/namespaces/{ns}/configmaps", cm("a")), 201, "create")
        check(got["metadata"]["labels"] == {"hooked": "yes"}, got["metadata"])
        path, req = mut.requests[-1]
        check(path == "/hook?timeout=10s", path)
        check(req["operation"] == "CREATE" and req["namespace"] == ns and
              req["resource"] == {"group": "", "version": "v1", "resource": "configmaps"} and
              req["kind"]["kind"] == "ConfigMap" and req["object"]["metadata"]["name"] == "a",
              req)
        # the validating webhook sees the mutated object
        check(val.requests[-1][1]["object"]["metadata"]["labels"] == {"hooked": "yes"},
              val.requests[-1])
        # objectSelector: not called for a labelled object
        n = len(mut.requests)
        got = expect(s.post(f"/api/v1/namespaces/{ns}/configmaps", cm("b", {"skip": "1"})), 201,
                     "create")
        check(len(mut.requests) == n and got["metadata"]["labels"] == {"skip": "1"}, got)
        # a refusal: the webhook's Status, its message prefixed
        r = s.post(f"/api/v1/namespaces/{ns}/configmaps", cm("c", data={"k": "bad"}))
        check(r.status == 422 and r.json["reason"] == "Invalid" and r.json["message"] ==
              'admission webhook "v.test" denied the request: ConfigMap "x" is invalid: '
              'data.k: bad', r.raw)
        check(s.get(f"/api/v1/namespaces/{ns}/configmaps/c").status == 404, "created")
        # updates: the old object is sent, mutating webhooks for CREATE only are not called
        n = len(mut.requests)
        r = s.patch(f"/api/v1/namespaces/{ns}/configmaps/a", {"data": {"k": "bad"}})
        check(r.status == 422 and "denied the request" in r.json["message"], r.raw)
        req = val.requests[-1][1]
        check(req["operation"] == "UPDATE" and req["oldObject"]["data"] == {"k": "v"} and
              req["object"]["data"] == {"k": "bad"}, req)
        check(len(mut.requests) == n, "the CREATE webhook was called for an update")
        expect(s.patch(f"/api/v1/namespaces/{ns}/configmaps/a", {"data": {"k": "ok"}}), 200,
               "update")
        # namespaceSelector: a namespace without the label is not sent
        s.delete(paths.pop())
        paths.append(webhook_config(s, "ValidatingWebhookConfiguration", "v2", [
            cm_hook("v.test", val.url(), val.ca, namespaceSelector={
                "matchLabels": {"checked": "yes"}})]))
        expect(s.post(f"/api/v1/namespaces/{ns}/configmaps", cm("d", data={"k": "bad"})), 201,
               "not selected")
        ns2 = "whsel"
        expect(s.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                             "metadata": {"name": ns2,
                                                          "labels": {"checked": "yes"}}}),
               201, "ns")
        r = s.post(f"/api/v1/namespaces/{ns2}/configmaps", cm("d", data={"k": "bad"}))
        check(r.status == 422, r.raw)
    finally:
        for p in paths:
            s.delete(p)
        mut.stop()
        val.stop()


@test
def webhook_failures_follow_the_failure_policy(s):
    ns = fresh_ns(s, "whf")
    slow, other = Hook(None, delay=2.5), Hook(None)
    with socket.socket() as sk:
        sk.bind(("127.0.0.1", 0))
        closed = sk.getsockname()[1]
    cases = [
        ("unreachable", f"https://127.0.0.1:{closed}/x", other.ca, {}),
        ("wrong-ca", slow.url(), other.ca, {}),       # slow's certificate, other's CA
        ("timeout", slow.url(), slow.ca, {"timeoutSeconds": 1}),
    ]
    try:
        for name, url, ca, extra in cases:
            for policy in ("Fail", "Ignore"):
                p = webhook_config(s, "ValidatingWebhookConfiguration", f"{name}-{policy}".lower(),
                                   [cm_hook("f.test", url, ca, failurePolicy=policy, **extra)])
                try:
                    r = s.post(f"/api/v1/namespaces/{ns}/configmaps", cm(f"{name}-{policy}".lower()))
                    if policy == "Ignore":
                        check(r.status == 201, (name, r.raw))
                    else:
                        check(r.status == 500 and r.json["reason"] == "InternalError" and
                              'failed calling webhook "f.test": failed to call webhook: ' in
                              r.json["message"], (name, r.raw))
                finally:
                    s.delete(p)
        # a configuration that cannot be called is refused
        r = s.post(f"{ADMREG}/validatingwebhookconfigurations", {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration", "metadata": {"name": "bad"},
            "webhooks": [{"name": "b.test", "admissionReviewVersions": ["v1"],
                          "sideEffects": "Some", "clientConfig": {"url": "http://x/"}}]})
        check(r.status == 422 and "'https' is the only allowed URL scheme" in r.json["message"]
              and 'webhooks[0].sideEffects: Unsupported value: "Some"' in r.json["message"],
              r.raw)
    finally:
        slow.stop()
        other.stop()


def setup():
    return Server()


def teardown(s):
    s.stop()


if __name__ == "__main__":
    socket.setdefaulttimeout(30)
    main(setup, teardown)
