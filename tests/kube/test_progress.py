"""Training progress on a cluster: `jaxset controller --enable-webhooks --feature-gates
TrainJobStatus=true` serves Kubeflow Trainer's status server (kubeflow/trainer pkg/statusserver,
plugins/trainjobstatus) against the test API server, or kube-apiserver with KUBEBUILDER_ASSETS:

- a TrainJob's trainer containers get the three variables, the volume mount and the projected
  volume (a ServiceAccount token of the TrainJob's audience, ca.crt of <name>-tls-config), and
  that ConfigMap holds the CA of the webhooks' certificate, owned by the TrainJob;
- a token requested for a pod of the TrainJob with its audience (what the kubelet projects)
  writes status.trainerStatus over HTTPS verified with that CA;
- refused with Trainer's codes: no token, a token of another TrainJob's audience, a token of a
  pod of another TrainJob, 403; progress past 100, 422 with the API server's message naming
  the TrainJob; a TrainJob that does not exist, 404 "Train job not found";
- with the gate off, nothing is injected and nothing listens."""
import base64
import http.client
import json
import os
import ssl
import sys
import tempfile
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctltest import JS_API, poll  # noqa: E402
from kubetest import TESTS, check, expect, main, test  # noqa: E402
from test_kinds import TR_API, ensure_runtime, start_server, trainjob  # noqa: E402
from test_webhooks import Env, free_port, on_failure, teardown  # noqa: E402

del TESTS[:]  # the imported modules' own

AUD = "trainer.kubeflow.org/v1alpha1/namespaces/{ns}/trainjobs/{name}/status"
ROUTE = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/{ns}/trainjobs/{name}/status"


class ProgressEnv(Env):
    def __init__(self):
        super().__init__(server=start_server())
        self.status_port = free_port()
        self.start("--feature-gates", "TrainJobStatus=true", "--status-server-port",
                   str(self.status_port))


def trainer_pod_spec(js):
    return js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]


def wait_jobset(env, ns, name):
    return poll(lambda: (lambda r: r.json if r.status == 200 else None)(
        env.server.get(f"{JS_API}/namespaces/{ns}/jobsets/{name}")), f"JobSet {name}")


def service_account(env, ns, name="trainer"):
    expect(env.server.post(f"/api/v1/namespaces/{ns}/serviceaccounts",
                           {"apiVersion": "v1", "kind": "ServiceAccount",
                            "metadata": {"name": name}}), 201, "ServiceAccount")


def pod_of(env, ns, name, jobset):
    """A pod of JobSet `jobset` as its Job would create it (labelled with its JobSet)."""
    body = {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": {"jobset.sigs.k8s.io/jobset-name": jobset}},
            "spec": {"serviceAccountName": "trainer",
                     "containers": [{"name": "node", "image": "python:3.12"}]}}
    return expect(env.server.post(f"/api/v1/namespaces/{ns}/pods", body), 201, "pod")


def token(env, ns, pod, audience):
    """What the kubelet projects: a token of ServiceAccount trainer bound to `pod`."""
    req = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
           "spec": {"audiences": [audience], "expirationSeconds": 3600,
                    "boundObjectRef": {"kind": "Pod", "apiVersion": "v1",
                                       "name": pod["metadata"]["name"],
                                       "uid": pod["metadata"]["uid"]}}}
    r = expect(env.server.post(f"/api/v1/namespaces/{ns}/serviceaccounts/trainer/token", req),
               201, "TokenRequest")
    return r["status"]["token"]


def report(env, ca_file, path, bearer, body):
    c = http.client.HTTPSConnection("127.0.0.1", env.status_port, timeout=30,
                                    context=ssl.create_default_context(cafile=ca_file))
    headers = {"Content-Type": "application/json"}
    if bearer is not None:
        headers["Authorization"] = f"Bearer {bearer}"
    c.request("POST", path, body=json.dumps(body).encode(), headers=headers)
    r = c.getresponse()
    out = r.status, json.loads(r.read() or b"null")
    c.close()
    return out


def status_of(env, ns, name):
    r = env.server.get(f"{TR_API}/namespaces/{ns}/trainjobs/{name}")
    return (r.json.get("status") or {}).get("trainerStatus") if r.status == 200 else None


STATUS = {"progressPercentage": 45, "estimatedRemainingSeconds": 90,
          "metrics": [{"name": "loss", "value": "0.2347"}],
          "lastUpdatedTime": "2026-12-03T10:00:00Z"}


@test
def trainer_pods_report_their_progress(env):
    ensure_runtime(env)
    ns = env.namespace()
    tj = trainjob("prog")
    expect(env.server.post(f"{TR_API}/namespaces/{ns}/trainjobs", tj), 201, "TrainJob")
    js = wait_jobset(env, ns, "prog")
    spec = trainer_pod_spec(js)
    node = spec["containers"][0]
    envs = {e["name"]: e.get("value") for e in node.get("env", [])}
    url = f"https://127.0.0.1:{env.status_port}" + ROUTE.format(ns=ns, name="prog")
    check(envs.get("KUBEFLOW_TRAINER_SERVER_URL") == url and
          envs.get("KUBEFLOW_TRAINER_SERVER_CA_CERT") ==
          "/var/run/secrets/kubeflow/trainer/ca.crt" and
          envs.get("KUBEFLOW_TRAINER_SERVER_TOKEN") == "/var/run/secrets/kubeflow/trainer/token",
          envs)
    check({"name": "kubeflow-trainer-token", "mountPath": "/var/run/secrets/kubeflow/trainer",
           "readOnly": True} in node.get("volumeMounts", []), node)
    vol = [v for v in spec.get("volumes", []) if v["name"] == "kubeflow-trainer-token"]
    src = vol[0]["projected"]["sources"] if vol else []
    check(src[0]["serviceAccountToken"] == {"audience": AUD.format(ns=ns, name="prog"),
                                            "expirationSeconds": 3600, "path": "token"} and
          src[1]["configMap"]["name"] == "prog-tls-config", vol)
    cm = expect(env.server.get(f"/api/v1/namespaces/{ns}/configmaps/prog-tls-config"), 200,
                "ConfigMap")
    sec = expect(env.server.get("/api/v1/namespaces/default/secrets/jaxset-webhook-server-cert"),
                 200, "Secret")
    check(cm["data"]["ca.crt"] == base64.b64decode(sec["data"]["ca.crt"]).decode(), cm)
    owner = cm["metadata"]["ownerReferences"][0]
    tj_uid = expect(env.server.get(f"{TR_API}/namespaces/{ns}/trainjobs/prog"), 200, "tj")
    check(owner["kind"] == "TrainJob" and owner["uid"] == tj_uid["metadata"]["uid"] and
          owner["controller"] is True, owner)

    with tempfile.NamedTemporaryFile("w", suffix=".crt", delete=False) as f:
        f.write(cm["data"]["ca.crt"])
    try:
        service_account(env, ns)
        mine = pod_of(env, ns, "prog-node-0-0-abcde", "prog")
        theirs = pod_of(env, ns, "other-node-0-0-abcde", "other")
        route = ROUTE.format(ns=ns, name="prog")
        good = token(env, ns, mine, AUD.format(ns=ns, name="prog"))
        code, body = report(env, f.name, route, good, {"trainerStatus": STATUS})
        check(code == 200 and body == {"trainerStatus": STATUS}, (code, body))
        poll(lambda: status_of(env, ns, "prog") == STATUS or (False, status_of(env, ns, "prog")),
             "status.trainerStatus")
        forbidden = {"status": "Failure", "message": "Forbidden", "reason": "Forbidden",
                     "code": 403}
        for what, bearer in (
                ("no token", None),
                ("another TrainJob's audience",
                 token(env, ns, mine, AUD.format(ns=ns, name="other"))),
                ("a pod of another TrainJob",
                 token(env, ns, theirs, AUD.format(ns=ns, name="prog")))):
            code, body = report(env, f.name, route, bearer, {"trainerStatus": STATUS})
            check((code, body) == (403, forbidden), (what, code, body))
        bad = dict(STATUS, progressPercentage=150)
        code, body = report(env, f.name, route, good, {"trainerStatus": bad})
        check(code == 422 and body["reason"] == "Invalid" and "prog" in body["message"],
              (code, body))
        ghost = pod_of(env, ns, "ghost-node-0-0-abcde", "ghost")
        code, body = report(env, f.name, ROUTE.format(ns=ns, name="ghost"),
                            token(env, ns, ghost, AUD.format(ns=ns, name="ghost")),
                            {"trainerStatus": STATUS})
        check((code, body.get("message")) == (404, "Train job not found"), (code, body))
        check(status_of(env, ns, "prog") == STATUS, status_of(env, ns, "prog"))
    finally:
        os.unlink(f.name)


@test
def the_gate_off_injects_nothing(env):
    """Upstream's default: without the gate the same TrainJob's pods get nothing, no ConfigMap
    is made and nothing listens on the status port (a controller of its own, on a server of
    its own, so that it does not share the first one's JobSets)."""
    import socket
    off = Env(server=start_server())
    try:
        port = free_port()
        off.start("--status-server-port", str(port))
        ensure_runtime(off)
        ns = off.namespace()
        expect(off.server.post(f"{TR_API}/namespaces/{ns}/trainjobs", trainjob("plain")), 201,
               "TrainJob")
        spec = trainer_pod_spec(wait_jobset(off, ns, "plain"))
        names = [e["name"] for e in spec["containers"][0].get("env", [])]
        check(not [n for n in names if n.startswith("KUBEFLOW_TRAINER_")] and
              "kubeflow-trainer-token" not in [v["name"] for v in spec.get("volumes", [])],
              spec)
        check(off.server.get(f"/api/v1/namespaces/{ns}/configmaps/plain-tls-config").status ==
              404, "a ConfigMap was made")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
            check(False, "the status port answers with the gate off")
        except ConnectionRefusedError:
            pass
    finally:
        teardown(off)


if __name__ == "__main__":
    main(ProgressEnv, teardown, on_failure)
