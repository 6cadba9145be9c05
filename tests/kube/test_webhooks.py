"""The controller's admission webhooks end to end (`jaxset controller --enable-webhooks`),
against the project's test API server (which calls webhooks as kube-apiserver does) or a real
kube-apiserver when KUBEBUILDER_ASSETS names one. The controller runs outside any cluster, so
it registers its webhooks by url (--webhook-url-base https://127.0.0.1:PORT).

- JobSet defaults applied at admission (mutating webhook);
- every JobSet of tests/data/invalid refused by `kubectl apply` with the field errors
  `jaxset validate` prints (the API server's own schema checks come first for some of them,
  as on a cluster: then the refusal names the same fields);
- update immutability (replicatedJobs, managedBy) and what a suspended JobSet may change;
- JAXJobs and TrainJobs validated with kubeflow/training-operator's and kubeflow/trainer's
  messages (runtimeRef resolution, the JobSet plugin's rules, immutability on update);
- the pod webhook: for every JobSet shape, each pod created from its Job's template (the test
  plays the Job controller) gets the JAX process id `jaxset run` gives the pod of the same
  hostname, under every name of its dialect (JAXJob's PROCESS_ID, AIchor's JAXOPERATOR_*);
- certificates: made and stored in the Secret, the CA bundle in both webhook configurations
  and verifying the served certificate; reused by a restarted controller; replaced when the
  Secret holds garbage; rotated before expiry with --webhook-cert-validity, the server then
  serving the new certificate."""
import base64
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctltest import BIN, JS_API, L_JOBSET, Controller, poll, start_server  # noqa: E402
from kubetest import SRC, Skip, check, expect, main, test  # noqa: E402

ADMREG = "/apis/admissionregistration.k8s.io/v1"
MWC, VWC = "jaxset-mutating-webhook-configuration", "jaxset-validating-webhook-configuration"
SECRET = "jaxset-webhook-server-cert"
SECRET_NS = "default"
INVALID = os.path.join(SRC, "tests", "data", "invalid")
L_RJ = "jobset.sigs.k8s.io/replicatedjob-name"
L_JOB_INDEX = "jobset.sigs.k8s.io/job-index"
COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Env:
    def __init__(self, server=None):
        self.server = server or start_server()
        import envtest
        print(envtest.describe(self.server), flush=True)
        self.kenv = dict(os.environ, KUBECONFIG=self.server.kubeconfig)
        self.controllers = []
        self.controller = None
        self.port = None
        self.n = 0

    def start(self, *extra, port=None):
        self.port = port or free_port()
        c = Controller(self.server, "--enable-webhooks", "--webhook-port", str(self.port),
                       "--webhook-host", "127.0.0.1", "--webhook-url-base",
                       f"https://127.0.0.1:{self.port}", "--webhook-secret-namespace",
                       SECRET_NS, *extra, tag="wh")
        self.controllers.append(c)
        self.controller = c
        wait_serving(self)
        return c

    def stop(self):
        if self.controller:
            self.controller.stop()
            self.controller = None

    def namespace(self):
        self.n += 1
        ns = f"wh-{self.n}-{os.getpid() % 1000}"
        expect(self.server.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                       "metadata": {"name": ns}}), 201, "ns")
        return ns

    def kubectl(self, *args, stdin=None):
        return subprocess.run(["kubectl", *args], env=self.kenv, capture_output=True,
                              text=True, input=stdin, timeout=60)


def secret(env):
    r = env.server.get(f"/api/v1/namespaces/{SECRET_NS}/secrets/{SECRET}")
    return r.json if r.status == 200 else None


def secret_pem(env, key):
    s = secret(env)
    v = ((s or {}).get("data") or {}).get(key)
    return base64.b64decode(v).decode() if v else None


def ca_bundles(env):
    out = []
    for kind, name in (("mutatingwebhookconfigurations", MWC),
                       ("validatingwebhookconfigurations", VWC)):
        r = env.server.get(f"{ADMREG}/{kind}/{name}")
        for w in (r.json.get("webhooks") or []) if r.status == 200 else []:
            out.append(base64.b64decode(w["clientConfig"].get("caBundle", "")).decode())
    return out


def served_cert(env, ca_pem):
    """The PEM certificate the webhook server presents, verified against ca_pem for
    127.0.0.1; None when the handshake fails."""
    ctx = ssl.create_default_context(cadata=ca_pem)
    try:
        with socket.create_connection(("127.0.0.1", env.port), timeout=5) as raw:
            with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
                return ssl.DER_cert_to_PEM_cert(s.getpeercert(binary_form=True))
    except (OSError, ssl.SSLError):
        return None


def norm(pem):
    return "".join((pem or "").split())


def wait_serving(env):
    """The Secret, both configurations carrying its CA, the server presenting its
    certificate."""
    def ready():
        env.controller.check_alive()
        ca, crt = secret_pem(env, "ca.crt"), secret_pem(env, "tls.crt")
        if not ca or not crt:
            return False, "no Secret yet"
        b = ca_bundles(env)
        if len(b) != 8 or any(norm(x) != norm(ca) for x in b):
            return False, f"{len(b)} webhooks, CA bundles not yet the Secret's"
        got = served_cert(env, ca)
        return (norm(got) == norm(crt)) or (False, "served certificate differs")
    poll(ready, "the webhooks served with the Secret's certificate", timeout=60)


def jobset(name, rjs, annotations=None, **spec):
    s = {"replicatedJobs": rjs}
    s.update(spec)
    meta = {"name": name}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": meta,
            "spec": s}


def rj(name, replicas=1, pods=1, command=None):
    ctr = {"name": "c", "image": "busybox:1.36", "command": command or ["sleep", "1"]}
    return {"name": name, "replicas": replicas,
            "template": {"spec": {"parallelism": pods, "completions": pods, "backoffLimit": 0,
                                  "template": {"spec": {"restartPolicy": "Never",
                                                        "containers": [ctr]}}}}}


def yaml_of(obj):
    return json.dumps(obj)  # JSON is YAML, for kubectl and jaxset alike


# ---------------------------------------------------------------------------- defaults


@test
def defaults_are_applied_at_admission(env):
    ns = env.namespace()
    js = jobset("dflt", [rj("w", replicas=2, pods=2)])
    got = expect(env.server.post(f"{JS_API}/namespaces/{ns}/jobsets", js), 201, "create")
    spec = got["spec"]
    check(spec.get("successPolicy") == {"operator": "All"}, spec)
    check(spec.get("startupPolicy") == {"startupPolicyOrder": "AnyOrder"}, spec)
    check(spec["network"].get("enableDNSHostnames") is True, spec)
    check(spec["network"].get("publishNotReadyAddresses") is True, spec)
    jt = spec["replicatedJobs"][0]["template"]["spec"]
    check(jt.get("completionMode") == "Indexed", jt)
    check(jt["template"]["spec"].get("restartPolicy") == "Never", jt)  # set: kept
    # an unset restartPolicy becomes OnFailure; an explicit NonIndexed is kept
    js = jobset("dflt2", [rj("w")])
    t = js["spec"]["replicatedJobs"][0]["template"]["spec"]
    del t["template"]["spec"]["restartPolicy"]
    t["completionMode"] = "NonIndexed"
    got = expect(env.server.post(f"{JS_API}/namespaces/{ns}/jobsets", js), 201, "create")
    jt = got["spec"]["replicatedJobs"][0]["template"]["spec"]
    check(jt["completionMode"] == "NonIndexed", jt)
    check(jt["template"]["spec"]["restartPolicy"] == "OnFailure", jt)


@test
def a_jobset_with_a_nul_is_admitted_and_defaulted(env):
    """JSON allows \\u0000: a JobSet with a NUL in an annotation and in a command passes both
    JobSet webhooks (defaulted, validated) as any other, the NULs kept, not a 500."""
    ns = env.namespace()
    js = jobset("nul", [rj("w", command=["echo", "a\u0000b"])], annotations={"x": "\u0000"})
    got = expect(env.server.post(f"{JS_API}/namespaces/{ns}/jobsets", js), 201, "create")
    check(got["metadata"]["annotations"]["x"] == "\u0000", got["metadata"])
    ctr = got["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    check(ctr["containers"][0]["command"] == ["echo", "a\u0000b"], ctr)
    check(got["spec"].get("successPolicy") == {"operator": "All"}, got["spec"])


# ---------------------------------------------------------------------------- refusals


def validate_lines(path):
    """The field errors `jaxset validate` prints for a file (its "<file>: " prefix removed)."""
    r = subprocess.run([BIN, "validate", path], capture_output=True, text=True)
    check(r.returncode != 0, f"jaxset validate accepts {path}")
    prefix = path + ": "
    return [ln[len(prefix):] for ln in r.stderr.splitlines() + r.stdout.splitlines()
            if ln.startswith(prefix)]


def jobset_files():
    out = []
    for f in sorted(os.listdir(INVALID)):
        p = os.path.join(INVALID, f)
        d = subprocess.run([BIN, "decode", p], capture_output=True, text=True)
        if d.returncode != 0:
            continue  # not YAML jaxset reads: the CLI's own error, nothing to send
        docs = json.loads(d.stdout)
        if len(docs) == 1 and docs[0].get("kind") == "JobSet" and \
                docs[0].get("apiVersion") == "jobset.x-k8s.io/v1alpha2":
            out.append((p, docs[0]))
    return out


WEBHOOK_REFUSED = {"coordinator-missing.yaml", "dependson-first.yaml", "jax-port.yaml",
                   "jax-parallelism.yaml", "reserved-env.yaml", "name-too-long.yaml",
                   "failure-reason.yaml"}
# admitted by upstream's webhook, refused only when the Jobs are created: admitted with an
# admission warning carrying the line `jaxset validate` (a local run) refuses it with
WEBHOOK_WARNED = {"restart-always.yaml"}


@test
def invalid_jobsets_are_refused_with_jaxset_validate_errors(env):
    files = jobset_files()
    names = {os.path.basename(p) for p, _ in files}
    check(WEBHOOK_REFUSED | WEBHOOK_WARNED <= names, f"test data changed: {sorted(names)}")
    by_webhook = set()
    for path, doc in files:
        ns = env.namespace()
        lines = validate_lines(path)
        check(lines, f"jaxset validate printed no field error for {path}")
        if os.path.basename(path) in WEBHOOK_WARNED:
            admitted_with_warnings(env, ns, path, doc, lines)
            continue
        r = env.kubectl("apply", "-n", ns, "-f", path)
        out = r.stdout + r.stderr
        check(r.returncode != 0, f"kubectl apply accepted {path}: {out}")
        # the same request through the API: the Status names the webhook that refused it
        doc.setdefault("metadata", {}).pop("namespace", None)
        resp = env.server.post(f"{JS_API}/namespaces/{ns}/jobsets?fieldValidation=Strict", doc)
        check(resp.status >= 400, f"{path}: created")
        msg = (resp.json or {}).get("message", "")
        if 'admission webhook "vjobset.kb.io" denied the request: ' in msg:
            by_webhook.add(os.path.basename(path))
            check(resp.status == 422 and resp.json.get("reason") == "Invalid", resp.json)
            for ln in lines:
                check(ln in out, f"{path}: kubectl does not show {ln!r}:\n{out}")
                check(ln in msg, f"{path}: the Status does not say {ln!r}:\n{msg}")
        else:
            # refused before the webhooks (the CRD schema, metadata rules): same fields
            for ln in lines:
                field = ln.split(":")[0].split("[")[0]
                check(field in out, f"{path}: kubectl's refusal does not name {field}:\n{out}")
    missing = WEBHOOK_REFUSED - by_webhook
    check(not missing, f"not refused by the validating webhook: {sorted(missing)}")


def warning_text(header):
    """The text of a Warning header (`299 - "<text>"`, quotes escaped)."""
    parts = header.split(" ", 2)
    return json.loads(parts[2]) if len(parts) == 3 and parts[2].startswith('"') else header


def admitted_with_warnings(env, ns, path, doc, lines):
    doc.setdefault("metadata", {}).pop("namespace", None)
    resp = env.server.post(f"{JS_API}/namespaces/{ns}/jobsets", doc)
    check(resp.status == 201, f"{path}: refused: {resp}")
    warned = " | ".join(warning_text(w) for w in resp.warnings())
    for ln in lines:
        check(ln in warned, f"{path}: no warning {ln!r}: {warned}")


def update(env, path, change):
    """GET, change(pod template of the first replicated job), PUT; again on a conflict (the
    controller writes status meanwhile)."""
    for _ in range(20):
        cur = expect(env.server.get(path), 200, "get")
        change(cur["spec"]["replicatedJobs"][0]["template"]["spec"]["template"])
        resp = env.server.put(path, cur)
        if resp.status != 409:
            return resp
    raise AssertionError("conflicts on every try")


@test
def updates_keep_replicated_jobs_and_managed_by(env):
    ns = env.namespace()
    p = f"{JS_API}/namespaces/{ns}/jobsets/upd"
    expect(env.server.post(f"{JS_API}/namespaces/{ns}/jobsets",
                           jobset("upd", [rj("w", replicas=2)])), 201, "create")
    r = env.kubectl("patch", "-n", ns, "jobset", "upd", "--type=json", "-p",
                    '[{"op":"replace","path":"/spec/replicatedJobs/0/replicas","value":3}]')
    check(r.returncode != 0, r.stdout)
    check(re.search(r"spec\.replicatedJobs: Invalid value: .*: field is immutable", r.stderr),
          r.stderr)
    resp = env.server.patch(p, {"spec": {"managedBy": "example.com/other"}})
    check(resp.status == 422, resp.raw[:500])
    check('admission webhook "vjobset.kb.io" denied the request: JobSet.jobset.x-k8s.io '
          '"upd" is invalid: spec.managedBy: Invalid value: "example.com/other": field is '
          'immutable' == resp.json["message"], resp.json["message"])
    # while suspended, the pod template's labels and nodeSelector may change (Kueue)
    expect(env.server.patch(p, {"spec": {"suspend": True}}), 200, "suspend")

    def pod_template(t):
        t["metadata"] = {"labels": {"kueue.x-k8s.io/podset": "w"}}
        t["spec"]["nodeSelector"] = {"pool": "a"}
    expect(update(env, p, pod_template), 200, "suspended update of the pod template")

    def image(t):
        t["spec"]["containers"][0]["image"] = "busybox:2"
    resp = update(env, p, image)
    check(resp.status == 422 and "field is immutable" in resp.json["message"], resp.raw[:500])
    # and freely mutable fields stay so
    expect(env.server.patch(p, {"spec": {"suspend": False, "ttlSecondsAfterFinished": 5}}),
           200, "resume")


JAXJOB_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "jaxjobs.kubeflow.org"},
    "spec": {"group": "kubeflow.org", "scope": "Namespaced",
             "names": {"plural": "jaxjobs", "singular": "jaxjob", "kind": "JAXJob",
                       "listKind": "JAXJobList"},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": {
                               "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}


def jaxjob_crd(env):
    """A JAXJob CRD (the real one when installed, else a schemaless stand-in)."""
    s = env.server
    if s.get("/apis/kubeflow.org/v1/jaxjobs").status == 200:
        return
    r = s.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", JAXJOB_CRD)
    check(r.status in (201, 409), r.raw[:300])
    poll(lambda: s.get("/apis/kubeflow.org/v1/jaxjobs").status == 200, "JAXJobs served")


@test
def jaxjobs_are_validated_with_the_training_operators_messages(env):
    jaxjob_crd(env)
    ns = env.namespace()
    r = env.kubectl("apply", "-n", ns, "-f", os.path.join(INVALID, "jaxjob-no-jax-container.yaml"))
    check(r.returncode != 0 and "spec.jaxReplicaSpecs[Worker].template.spec.containers: "
          "Required value: must have at least one container with name jax" in r.stderr,
          r.stdout + r.stderr)
    bad = {"apiVersion": "kubeflow.org/v1", "kind": "JAXJob", "metadata": {"name": "x"},
           "spec": {"jaxReplicaSpecs": {"Chief": {"template": {"spec": {"containers": [
               {"name": "jax"}]}}}}}}
    resp = env.server.post(f"/apis/kubeflow.org/v1/namespaces/{ns}/jaxjobs", bad)
    check(resp.status == 422 and resp.json["message"] ==
          'admission webhook "validator.jaxjob.training-operator.kubeflow.org" denied the '
          'request: JAXJob.kubeflow.org "x" is invalid: [spec.jaxReplicaSpecs[Chief]: '
          'Unsupported value: "Chief": supported values: "Worker", '
          'spec.jaxReplicaSpecs[Chief].template.spec.containers[0].image: Required value: '
          'must be required]', resp.raw[:600])
    r = env.kubectl("apply", "-n", ns, "-f", os.path.join(SRC, "examples", "jaxjob.yaml"))
    check(r.returncode == 0, r.stdout + r.stderr)


TR_API = "/apis/trainer.kubeflow.org/v1alpha1"
TJ_HOOK = 'admission webhook "validator.trainjob.trainer.kubeflow.org" denied the request: '


def trainer_crds(env):
    """The TrainJob, TrainingRuntime and ClusterTrainingRuntime CRDs of config/crd, and the
    controller restarted so that its TrainJob controller (and the webhook's runtime caches) is
    on."""
    s = env.server
    for plural in ("trainjobs", "trainingruntimes", "clustertrainingruntimes"):
        if s.get(f"{TR_API}/{plural}").status == 200:
            continue
        f = os.path.join(SRC, "config", "crd", f"trainer.kubeflow.org_{plural}.yaml")
        crd = json.loads(subprocess.run([BIN, "decode", f], check=True,
                                        capture_output=True).stdout)[0]
        r = s.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
        check(r.status in (201, 409), r.raw[:300])
        poll(lambda: s.get(f"{TR_API}/{plural}").status == 200, f"{plural} served")
    env.stop()
    env.start()


def trainjob(name, ref, **spec):
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": name},
            "spec": dict({"runtimeRef": ref, "trainer": {"numNodes": 2}}, **spec)}


def apply_refused(env, ns, obj, message):
    r = env.kubectl("apply", "-n", ns, "-f", "-", stdin=yaml_of(obj))
    check(r.returncode != 0 and message in r.stderr, r.stdout + r.stderr)


@test
def trainjobs_are_validated_with_the_trainers_messages(env):
    trainer_crds(env)
    ns = env.namespace()
    ctr = {"name": "jax-distributed", "apiGroup": "trainer.kubeflow.org",
           "kind": "ClusterTrainingRuntime"}
    # the valid example (a ClusterTrainingRuntime and a TrainJob naming it) is accepted once the
    # controller's cache holds the runtime
    example = os.path.join(SRC, "examples", "trainjob.yaml")
    def applied():
        r = env.kubectl("apply", "-n", ns, "-f", example)
        return r.returncode == 0 or (False, r.stderr.strip())
    poll(applied, "examples/trainjob.yaml accepted")
    apply_refused(env, ns, trainjob("kind", dict(ctr, kind="MyRuntime")),
                  TJ_HOOK + "unsupported runtime: MyRuntime.trainer.kubeflow.org")
    apply_refused(env, ns, trainjob("absent", {"name": "absent", "kind": "TrainingRuntime"}),
                  TJ_HOOK + 'spec.runtimeRef: Invalid value: {"name":"absent","apiGroup":'
                  '"trainer.kubeflow.org","kind":"TrainingRuntime"}: trainingruntimes.trainer.'
                  'kubeflow.org "absent" not found: specified trainingRuntime must be created '
                  'before the TrainJob is created')
    apply_refused(env, ns, trainjob("absent", {"name": "absent"}),
                  TJ_HOOK + 'spec.RuntimeRef: Invalid value: {"name":"absent","apiGroup":'
                  '"trainer.kubeflow.org","kind":"ClusterTrainingRuntime"}: '
                  'clustertrainingruntimes.trainer.kubeflow.org "absent" not found: specified '
                  'clusterTrainingRuntime must be created before the TrainJob is created')
    apply_refused(env, ns, trainjob("init", ctr, initializer={"dataset": {"storageUri": "hf://d"}}),
                  TJ_HOOK + 'spec.runtimeRef: Invalid value: {"name":"jax-distributed",'
                  '"apiGroup":"trainer.kubeflow.org","kind":"ClusterTrainingRuntime"}: must have '
                  'dataset-initializer job when trainJob is configured with input datasetConfig')
    apply_refused(env, ns, trainjob("mgr", ctr, runtimePatches=[{"manager": "nodomain"}]),
                  TJ_HOOK + 'spec.runtimePatches.manager: Invalid value: "nodomain": must be a '
                  'domain-prefixed path (such as "acme.io/foo")')
    apply_refused(env, ns, trainjob("mb", ctr, managedBy="me"),
                  'spec.managedBy: Invalid value: "string": ManagedBy must be '
                  'trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set')
    # updates: runtimeRef is immutable (the CRD's rule, v2.3.0's message); runtimePatches only
    # while suspended
    p = f"{TR_API}/namespaces/{ns}/trainjobs/mnist-jax"
    cur = expect(env.server.get(p), 200, "get")
    cur["spec"]["runtimeRef"]["name"] = "other"
    resp = env.server.put(p, cur)
    check(resp.status == 422 and "spec.runtimeRef: Invalid value: \"object\": field is "
          "immutable" in resp.json["message"], resp.raw[:500])
    r = env.kubectl("patch", "-n", ns, "trainjob", "mnist-jax", "--type=merge", "-p",
                    json.dumps({"spec": {"runtimePatches": [{"manager": "acme.io/x"}]}}))
    check(r.returncode != 0 and TJ_HOOK + "spec.runtimePatches: Forbidden: RuntimePatches can "
          "only be modified when the TrainJob is suspended before or after the update"
          in r.stderr, r.stdout + r.stderr)
    # a suspended TrainJob (no active JobSet) takes patches
    r = env.kubectl("apply", "-n", ns, "-f", "-", stdin=yaml_of(trainjob("held", ctr,
                                                                         suspend=True)))
    check(r.returncode == 0, r.stdout + r.stderr)
    r = env.kubectl("patch", "-n", ns, "trainjob", "held", "--type=merge", "-p",
                    json.dumps({"spec": {"runtimePatches": [{"manager": "acme.io/x"}]}}))
    check(r.returncode == 0, r.stdout + r.stderr)
    # Trainer's JobSet plugin applies the JobSet again while the TrainJob is suspended: a patch
    # of what a suspended JobSet may change (the pod template's nodeSelector) reaches it; one of
    # another field (a container's securityContext: a runtime patch has no image, Trainer's CRD
    # prunes it, and the TrainJob webhook refuses env for the node container) is refused by the
    # JobSet webhook, and the TrainJob says so (Failed, TrainJobResourcesCreationFailed;
    # upstream records the Event) until it is undone
    jp = f"{JS_API}/namespaces/{ns}/jobsets/held"
    tp = f"{TR_API}/namespaces/{ns}/trainjobs/held"

    def node_patch(**pod_spec):
        return [{"manager": "acme.io/x", "trainingRuntimeSpec": {"template": {"spec": {
            "replicatedJobs": [{"name": "node", "template": {"spec": {"template": {
                "spec": pod_spec}}}}]}}}}]

    def node_pod(js):
        return js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]

    def failed_reason():
        conds = (env.server.get(tp).json.get("status") or {}).get("conditions") or []
        return [(c["reason"], c["message"]) for c in conds if c["type"] == "Failed" and
                c["status"] == "True"]
    poll(lambda: env.server.get(jp).status == 200, "the held TrainJob's JobSet")
    r = env.kubectl("patch", "-n", ns, "trainjob", "held", "--type=merge", "-p", json.dumps(
        {"spec": {"runtimePatches": node_patch(nodeSelector={"zone": "b"})}}))
    check(r.returncode == 0, r.stdout + r.stderr)
    poll(lambda: node_pod(env.server.get(jp).json).get("nodeSelector") == {"zone": "b"},
         "the nodeSelector patch in the suspended JobSet")
    r = env.kubectl("patch", "-n", ns, "trainjob", "held", "--type=merge", "-p", json.dumps(
        {"spec": {"runtimePatches": node_patch(containers=[{
            "name": "node", "securityContext": {"runAsUser": 1234}}])}}))
    check(r.returncode == 0, r.stdout + r.stderr)
    got = poll(lambda: failed_reason() or None, "the refused rebuild on the TrainJob")
    check(got[0][0] == "TrainJobResourcesCreationFailed" and
          got[0][1].startswith("TrainJob resources reconciliation failed: ") and
          "spec.replicatedJobs: Invalid value" in got[0][1] and
          "field is immutable" in got[0][1], got)
    check("securityContext" not in node_pod(env.server.get(jp).json)["containers"][0],
          env.server.get(jp).json)
    r = env.kubectl("patch", "-n", ns, "trainjob", "held", "--type=merge", "-p", json.dumps(
        {"spec": {"runtimePatches": node_patch(nodeSelector={"zone": "c"})}}))
    check(r.returncode == 0, r.stdout + r.stderr)
    poll(lambda: not failed_reason() and
         node_pod(env.server.get(jp).json).get("nodeSelector") == {"zone": "c"},
         "the Failed condition cleared once the JobSet takes the patch")


def runtime(kind, name, replicas, labels=None):
    """A runtime whose trainer job has `replicas` (Trainer's runtime webhook wants 1; jaxset's
    admits more, multi-slice, and refuses 0)."""
    meta = {"name": name, "labels": dict({"trainer.kubeflow.org/framework": "jax"},
                                         **(labels or {}))}
    node = {"name": "node", "replicas": replicas, "template": {
        "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
        "spec": {"template": {"spec": {"containers": [{"name": "node", "image": "jax"}]}}}}}
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": kind, "metadata": meta,
            "spec": {"mlPolicy": {"numNodes": 1, "jax": {}},
                     "template": {"spec": {"replicatedJobs": [node]}}}}


OPT_OUT = {"trainer.kubeflow.org/webhook-validation": "disabled"}


@test
def runtimes_are_validated_unless_labelled_webhook_validation_disabled(env):
    """kubeflow/trainer v2.3.0 (#3683): the runtime webhooks validate a runtime's trainer and
    initializer jobs on create (and a ClusterTrainingRuntime's update); their configuration's
    objectSelector skips a runtime labelled trainer.kubeflow.org/webhook-validation:
    disabled, which is stored as it is."""
    trainer_crds(env)
    ns = env.namespace()
    for kind, hook, coll in (
            ("ClusterTrainingRuntime", "validator.clustertrainingruntime.trainer.kubeflow.org",
             f"{TR_API}/clustertrainingruntimes"),
            ("TrainingRuntime", "validator.trainingruntime.trainer.kubeflow.org",
             f"{TR_API}/namespaces/{ns}/trainingruntimes")):
        name = f"rt-{ns}-{kind.lower()}"
        r = env.server.post(coll, runtime(kind, name, 0))
        check(r.status == 403 and r.json["message"] ==
              f'admission webhook "{hook}" denied the request: spec.template.spec.'
              'replicatedJobs[0].replicas: Invalid value: 0: must be greater than or equal to 1',
              r.raw[:500])
        expect(env.server.post(coll, runtime(kind, name, 0, OPT_OUT)), 201, f"{kind} opted out")
        # an update keeps it out of the webhooks while it carries the label
        cur = expect(env.server.get(f"{coll}/{name}"), 200, "get")
        cur["spec"]["mlPolicy"]["numNodes"] = 2
        expect(env.server.put(f"{coll}/{name}", cur), 200, f"{kind} updated")
        # without it, Trainer's ClusterTrainingRuntime webhook checks the update (its
        # TrainingRuntime webhook admits every update)
        cur = expect(env.server.get(f"{coll}/{name}"), 200, "get")
        del cur["metadata"]["labels"]["trainer.kubeflow.org/webhook-validation"]
        cur["spec"]["mlPolicy"]["numNodes"] = 3
        r = env.server.put(f"{coll}/{name}", cur)
        if kind == "ClusterTrainingRuntime":
            check(r.status == 403 and "must be greater than or equal to 1" in r.json["message"],
                  r.raw[:500])
            env.server.delete(f"{coll}/{name}")
        else:
            check(r.status == 200, r.raw[:500])
        expect(env.server.post(coll, runtime(kind, name + "-ok", 1)), 201, f"a valid {kind}")
        env.server.delete(f"{coll}/{name}-ok")
        # a deliberate difference (README): a multi-slice trainer job is admitted
        expect(env.server.post(coll, runtime(kind, name + "-ms", 2)), 201, f"multi-slice {kind}")
        env.server.delete(f"{coll}/{name}-ms")
    # `jaxset validate --cluster` of the runtime alone says the same
    d = tempfile.mkdtemp(prefix="jaxset-rt-")
    try:
        for labels, rc in ((None, 2), (OPT_OUT, 0)):
            path = os.path.join(d, "rt.yaml")
            with open(path, "w", encoding="utf-8") as f:
                f.write(yaml_of(runtime("ClusterTrainingRuntime", "v", 0, labels)))
            p = subprocess.run([BIN, "validate", "--cluster", path], capture_output=True,
                               text=True)
            check(p.returncode == rc, p.stdout + p.stderr)
            check(("must be greater than or equal to 1" in p.stderr) == (rc == 2), p.stderr)
    finally:
        shutil.rmtree(d, ignore_errors=True)


# ---------------------------------------------------------------------------- process ids

ID_NAMES = {"jobset": ["JAX_PROCESS_ID"], "trainjob": ["JAX_PROCESS_ID"],
            "jaxjob": ["JAX_PROCESS_ID", "PROCESS_ID"],
            "aichor": ["JAX_PROCESS_ID", "JAXOPERATOR_PROCESS_ID"]}

ECHO = ["sh", "-c", 'echo "IDS $JAX_PROCESS_ID $PROCESS_ID $JAXOPERATOR_PROCESS_ID '
                    '$JAX_NUM_PROCESSES"']


def shapes():
    """(name, flavour, replicated jobs, extra spec, extra annotations): every shape of the
    local suite's JAX runs."""
    return [
        ("one", "jobset", [rj("w", 1, 4, ECHO)], {}, {}),
        ("reps", "jobset", [rj("w", 3, 2, ECHO)], {}, {}),
        ("multi", "jobset", [rj("a", 2, 2, ECHO), rj("b", 1, 3, ECHO)], {}, {}),
        ("coord", "jobset", [rj("a", 2, 2, ECHO), rj("b", 2, 3, ECHO)],
         {"coordinator": {"replicatedJob": "b", "jobIndex": 1, "podIndex": 1}}, {}),
        ("subset", "jobset", [rj("driver", 1, 1, ECHO), rj("w", 2, 2, ECHO)], {},
         {"jaxset.dev/jax-replicated-jobs": "w"}),
        ("kfjax", "jaxjob", [rj("worker", 3, 2, ECHO)], {}, {}),
        ("aichor", "aichor", [rj("worker", 2, 2, ECHO), rj("chief", 1, 1, ECHO)],
         {"coordinator": {"replicatedJob": "chief", "jobIndex": 0, "podIndex": 0}}, {}),
        ("train", "trainjob", [rj("node", 2, 2, ECHO)], {}, {}),
    ]


def rendered(example):
    """The JobSet `jaxset render` makes of examples/<example>.yaml (a JAXJob, a TrainJob and
    its runtime, an AIchor manifest), its containers made to print their ids."""
    r = subprocess.run([BIN, "render", "-o", "json", os.path.join(SRC, "examples", example)],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, r.stderr)
    (js,) = [d for d in json.loads(r.stdout)["items"] if d["kind"] == "JobSet"]
    js["metadata"] = {k: v for k, v in js["metadata"].items() if k in ("name", "annotations")}
    js["spec"].pop("volumeClaimPolicies", None)  # volumes are beside the point here
    # every pod runs to its end (a success policy on one job would stop the others early)
    js["spec"].pop("successPolicy", None)
    for r_ in js["spec"]["replicatedJobs"]:
        r_.pop("dependsOn", None)  # every Job at once (no Job controller completes the first)
        pod = r_["template"]["spec"]["template"]["spec"]
        pod.pop("volumes", None)
        for c in pod.get("containers", []) + pod.get("initContainers", []):
            for k in ("volumeMounts", "args", "envFrom", "resources"):
                c.pop(k, None)
            c["command"] = ECHO
    return js


def local_ids(js):
    """What `jaxset run` gives each pod: hostname -> [JAX_PROCESS_ID, PROCESS_ID,
    JAXOPERATOR_PROCESS_ID, JAX_NUM_PROCESSES] as printed."""
    d = tempfile.mkdtemp(prefix="jaxset-whrun-")
    try:
        path = os.path.join(d, "js.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(yaml_of(js))
        r = subprocess.run([BIN, "run", "--run-dir", os.path.join(d, "run"), "--no-color", path],
                           capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, JAXSET_HOME=d))
        check(r.returncode == 0, f"jaxset run: {r.returncode}\n{r.stdout}\n{r.stderr}")
        out = {}
        for ln in r.stdout.splitlines():
            # "[<pod>] IDS ..." or, in a pod of several containers, "[<pod>/<container>] ..."
            m = re.match(r"^\[([a-z0-9.-]+)(?:/[a-z0-9-]+)?\] IDS (.*)$", ln)
            if m:
                ids = m.group(2).split(" ")
                check(out.setdefault(m.group(1), ids) == ids,
                      f"{m.group(1)}: its containers printed {out[m.group(1)]} and {ids}")
        return out
    finally:
        shutil.rmtree(d, ignore_errors=True)


def make_pod(job, index):
    """The pod the Job controller would create for completion index `index` of `job`."""
    t = json.loads(json.dumps(job["spec"]["template"]))
    meta = t.setdefault("metadata", {})
    name = f"{job['metadata']['name']}-{index}-abcde"
    meta["name"] = name
    meta.setdefault("labels", {}).update({"batch.kubernetes.io/job-name": job["metadata"]["name"],
                                          "job-name": job["metadata"]["name"],
                                          COMPLETION_INDEX: str(index)})
    meta.setdefault("annotations", {})[COMPLETION_INDEX] = str(index)
    meta["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job",
                                "name": job["metadata"]["name"], "uid": job["metadata"]["uid"],
                                "controller": True, "blockOwnerDeletion": True}]
    t["apiVersion"], t["kind"] = "v1", "Pod"
    t["spec"]["hostname"] = f"{job['metadata']['name']}-{index}"
    return t


def env_value(pod, ctr, name):
    """A container's variable as the kubelet would give it (the completion index field
    reference resolved); None when absent."""
    v = None
    for e in ctr.get("env") or []:
        if e.get("name") != name:
            continue
        if "value" in e:
            v = e["value"]
        else:
            fp = e["valueFrom"]["fieldRef"]["fieldPath"]
            m = re.match(r"metadata\.(annotations|labels)\['(.*)'\]$", fp)
            check(m, f"unexpected fieldRef {fp}")
            v = (pod["metadata"].get(m.group(1)) or {}).get(m.group(2))
    return v


def all_shapes():
    for name, flavour, rjs, spec, ann in shapes():
        yield name, flavour, jobset(name, rjs, {"jaxset.dev/jax-runtime": flavour, **ann},
                                    **spec)
    # every example, as `jaxset render` makes it a JobSet: the converters' (JAXJob, TrainJob,
    # AIchor, whose coordinator is its first replica) and the JobSets (one without JAX)
    for example in sorted(os.listdir(os.path.join(SRC, "examples"))):
        if example.endswith(".yaml"):
            js = rendered(example)
            yield js["metadata"]["name"], (js["metadata"].get("annotations") or {}).get(
                "jaxset.dev/jax-runtime"), js


@test
def pod_webhook_numbers_every_shape_as_jaxset_run(env):
    for name, flavour, js in all_shapes():
        ns = env.namespace()
        rjs = js["spec"]["replicatedJobs"]
        want = local_ids(js)
        pods_total = sum(r.get("replicas", 1) * r["template"]["spec"].get("parallelism", 1)
                         for r in rjs)
        check(len(want) == pods_total, f"{name}: jaxset run printed {want}")
        expect(env.server.post(f"{JS_API}/namespaces/{ns}/jobsets", js), 201, name)
        n_jobs = sum(r.get("replicas", 1) for r in rjs)

        def jobs():
            r = env.server.get(f"/apis/batch/v1/namespaces/{ns}/jobs")
            items = r.json.get("items", []) if r.status == 200 else []
            return (len(items) == n_jobs and items) or (False, len(items))
        seen = {}
        for job in poll(jobs, f"{name}: the controller's {n_jobs} Jobs"):
            for i in range(job["spec"]["completions"]):
                pod = expect(env.server.post(f"/api/v1/namespaces/{ns}/pods",
                                             make_pod(job, i)), 201, "pod")
                host = f"{job['metadata']['name']}-{i}"
                got = []
                for ctr in pod["spec"]["containers"]:
                    got.append([env_value(pod, ctr, v) or "" for v in
                                ("JAX_PROCESS_ID", "PROCESS_ID", "JAXOPERATOR_PROCESS_ID",
                                 "JAX_NUM_PROCESSES")])
                check(all(g == got[0] for g in got), got)
                seen[host] = got[0]
                for var in ID_NAMES.get(flavour, []) if want.get(host, [""])[0] else ():
                    check(env_value(pod, pod["spec"]["containers"][0], var) is not None,
                          f"{name} {host}: no {var}")
                if got[0][0]:
                    check(pod["metadata"]["annotations"].get("jaxset.dev/jax-process-id") ==
                          got[0][0], pod["metadata"])
        # every pod, JAX or not, as `jaxset run` numbers it
        for host, vals in want.items():
            check(host in seen, f"{name}: no pod {host} (have {sorted(seen)})")
            check(seen[host] == vals + [""] * (4 - len(vals)),
                  f"{name} {host}: cluster {seen[host]} != jaxset run {vals}")
        ids = sorted(int(v[0]) for v in seen.values() if v[0])
        check(ids == list(range(len(ids))), f"{name}: ids {ids}")


@test
def jaxjob_pods_are_admitted_with_the_training_operators_labels(env):
    """The pod webhook gives each pod of a JAXJob's JobSet (`jaxset render` of
    examples/jaxjob.yaml: the converter's template carries job-name, operator-name and
    replica-type) its replica-index and, on index 0 only, job-role=master, as the Training
    Operator creates its pods (pkg/controller.v1/common/pod.go createNewPod): already in the
    pod the API server returns on create."""
    kf = "training.kubeflow.org/"
    ns = env.namespace()
    js = rendered("jaxjob.yaml")
    expect(env.server.post(f"{JS_API}/namespaces/{ns}/jobsets", js), 201, "jobset")
    (job,) = poll(lambda: env.server.get(f"/apis/batch/v1/namespaces/{ns}/jobs").json.get(
        "items") or False, "the Job")
    n = job["spec"]["completions"]
    check(n == 2, job["spec"])
    for i in range(n):
        pod = expect(env.server.post(f"/api/v1/namespaces/{ns}/pods", make_pod(job, i)), 201,
                     "pod")
        got = {k: v for k, v in pod["metadata"]["labels"].items() if k.startswith(kf)}
        want = {kf + "job-name": js["metadata"]["name"], kf + "operator-name":
                "jaxjob-controller", kf + "replica-type": "worker", kf + "replica-index": str(i)}
        if i == 0:
            want[kf + "job-role"] = "master"
        check(got == want, (i, got))


@test
def pods_of_other_jobs_are_left_alone(env):
    ns = env.namespace()
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "plain", "labels": {L_JOBSET: "nope"}},
           "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}
    got = expect(env.server.post(f"/api/v1/namespaces/{ns}/pods", pod), 201, "pod")
    check(not got["spec"]["containers"][0].get("env"), got)
    # a JAX pod whose JobSet the controller does not know is refused (the Job controller
    # retries): never a wrong number
    pod["metadata"]["name"] = "orphan"
    pod["metadata"]["annotations"] = {"jaxset.dev/jax-process-id-offset": "2"}
    pod["metadata"]["labels"].update({L_RJ: "w", L_JOB_INDEX: "0"})
    r = env.server.post(f"/api/v1/namespaces/{ns}/pods", pod)
    check(r.status >= 500 and 'admission webhook "mpod.kb.io" denied the request' in
          r.json.get("message", ""), r.raw[:400])


@test
def webhook_requests_are_counted_on_metrics(env):
    env.stop()
    mport = free_port()
    env.start("--metrics-bind-address", f"127.0.0.1:{mport}")
    ns = env.namespace()
    expect(env.server.post(f"{JS_API}/namespaces/{ns}/jobsets", jobset("m", [rj("w")])), 201,
           "create")
    import urllib.request
    with urllib.request.urlopen(f"http://127.0.0.1:{mport}/metrics", timeout=10) as r:
        text = r.read().decode()
    for hook in ("/mutate-jobset-x-k8s-io-v1alpha2-jobset",
                 "/validate-jobset-x-k8s-io-v1alpha2-jobset"):
        m = re.search(r'^controller_runtime_webhook_requests_total\{code="200",webhook="' +
                      re.escape(hook) + r'"\} (\d+)$', text, re.M)
        check(m and int(m.group(1)) >= 1, f"{hook} not counted:\n{text[:3000]}")
        m = re.search(r'^controller_runtime_webhook_latency_seconds_count\{webhook="' +
                      re.escape(hook) + r'"\} (\d+)$', text, re.M)
        check(m and int(m.group(1)) >= 1, f"{hook} not timed")
        check(f'controller_runtime_webhook_requests_in_flight{{webhook="{hook}"}} 0' in text,
              "in flight")
    # Pods that are not a JobSet's never reach the pod webhooks: the configurations'
    # objectSelector (jobset.sigs.k8s.io/jobset-name Exists) leaves them to the API server
    def pod_hook_count():
        with urllib.request.urlopen(f"http://127.0.0.1:{mport}/metrics", timeout=10) as r:
            t = r.read().decode()
        return sum(int(n) for n in re.findall(
            r'^controller_runtime_webhook_requests_total\{code="\d+",webhook="/(?:mutate|'
            r'validate)--v1-pod"\} (\d+)$', t, re.M))
    before = pod_hook_count()
    for i in range(5):
        plain = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"plain-{i}"},
                 "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}
        expect(env.server.post(f"/api/v1/namespaces/{ns}/pods", plain), 201, "plain pod")
    check(pod_hook_count() == before, f"plain pods reached the pod webhook: {before} -> "
          f"{pod_hook_count()}")
    labelled = {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "of-a-jobset", "labels": {L_JOBSET: "nope"}},
                "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}
    expect(env.server.post(f"/api/v1/namespaces/{ns}/pods", labelled), 201, "JobSet pod")
    check(pod_hook_count() > before, "a JobSet's pod did not reach the pod webhook")
    env.stop()
    env.start()


@test
def pods_are_admitted_while_the_pod_cache_lists(env):
    """The informers list page by page in the loop's stead; the webhooks are answered between
    the pages, or kube-apiserver's calls would wait for the whole list and time out
    (failurePolicy Fail: the pods of every JobSet refused while a large cluster's pods list).
    501 labelled pods make two pages of the pod cache's list, each made to take 3 s: a
    JobSet's pod created during the first is admitted at once, not once the list ended."""
    if not getattr(env.server, "has_admin", False):
        raise Skip("fault injection needs the test API server's /__admin")
    ns = env.namespace()
    env.stop()
    for kind, name in (("mutatingwebhookconfigurations", MWC),
                       ("validatingwebhookconfigurations", VWC)):
        env.server.delete(f"{ADMREG}/{kind}/{name}")  # the pods below need no webhook
    for i in range(501):
        expect(env.server.post(f"/api/v1/namespaces/{ns}/pods", {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"p-{i}", "labels": {L_JOBSET: "elsewhere"}},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}), 201, "pod")
    try:
        expect(env.server.admin("faults", [{"verb": "list", "resource": "pods",
                                            "latency": 3, "count": 0}]), 200, "faults")
        env.start()  # serving: its certificate is the Secret's, before any list
        ctl = env.controller
        t0 = time.monotonic()
        r = env.server.post(f"/api/v1/namespaces/{ns}/pods", {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "during-the-list", "labels": {L_JOBSET: "elsewhere"}},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}})
        took = time.monotonic() - t0
        expect(r, 201, "a JobSet's pod during the list")
        rules = env.server.admin("faults", method="GET").json["rules"]
        pages = [x["hits"] for x in rules if x["resource"] == "pods"]
        check(pages == [1], f"the pod was admitted once the list ended ({pages} pages asked "
              f"for, {took:.1f} s)")
        check(took < 3, f"the pod waited {took:.1f} s for the webhooks")
        check(ctl.alive(), "the controller exited")
    finally:
        env.server.admin("faults", method="DELETE")
        env.server.request("DELETE", f"/api/v1/namespaces/{ns}/pods")
    env.stop()
    env.start()


# ---------------------------------------------------------------------------- certificates


def log_count(ctl, text):
    return ctl.log().count(text)


@test
def certificates_are_reused_by_a_restarted_controller(env):
    before = secret(env)
    crt = secret_pem(env, "tls.crt")
    env.stop()
    d = tempfile.mkdtemp(prefix="jaxset-certdir-")
    try:
        certdir = os.path.join(d, "certs")
        ctl = env.start("--webhook-cert-dir", certdir)
        check(log_count(ctl, "making a new CA") == 0, ctl.log()[-2000:])
        after = secret(env)
        check(after["data"] == before["data"], "the Secret was rewritten")
        check(norm(served_cert(env, secret_pem(env, "ca.crt"))) == norm(crt), "not served")
        # --webhook-cert-dir: the files the operator asked for, private
        check(sorted(os.listdir(certdir)) == ["ca.crt", "tls.crt", "tls.key"],
              os.listdir(certdir))
        for f, key in (("ca.crt", "ca.crt"), ("tls.crt", "tls.crt"), ("tls.key", "tls.key")):
            p = os.path.join(certdir, f)
            check(os.stat(p).st_mode & 0o777 == 0o600, oct(os.stat(p).st_mode))
            with open(p, encoding="utf-8") as fh:
                check(norm(fh.read()) == norm(secret_pem(env, key)), f)
    finally:
        shutil.rmtree(d, ignore_errors=True)


@test
def a_secret_holding_garbage_is_replaced(env):
    env.stop()
    s = secret(env)
    s["data"]["tls.key"] = base64.b64encode(b"garbage").decode()
    expect(env.server.put(f"/api/v1/namespaces/{SECRET_NS}/secrets/{SECRET}", s), 200, "put")
    old = secret_pem(env, "tls.crt")
    ctl = env.start()
    check(log_count(ctl, "making a new CA") == 1, ctl.log()[-2000:])
    check(norm(secret_pem(env, "tls.crt")) != norm(old), "same certificate")
    # and the webhooks work with it
    r = env.kubectl("apply", "-n", env.namespace(), "-f",
                    os.path.join(INVALID, "dependson-first.yaml"))
    check(r.returncode != 0 and "DependsOn can't be set for the first ReplicatedJob" in r.stderr,
          r.stderr)


@test
def two_replicas_starting_together_share_one_certificate(env):
    env.stop()
    expect(env.server.delete(f"/api/v1/namespaces/{SECRET_NS}/secrets/{SECRET}"), 200, "delete")
    port_a, port_b = free_port(), free_port()
    # both register the same url (the Service's role), each serves on its own port
    args = ["--enable-webhooks", "--webhook-host", "127.0.0.1", "--webhook-url-base",
            f"https://127.0.0.1:{port_a}", "--webhook-secret-namespace", SECRET_NS]
    a = Controller(env.server, *args, "--webhook-port", str(port_a), tag="wha")
    b = Controller(env.server, *args, "--webhook-port", str(port_b), tag="whb")
    env.controllers += [a, b]
    try:
        def both():
            a.check_alive()
            b.check_alive()
            ca, crt = secret_pem(env, "ca.crt"), secret_pem(env, "tls.crt")
            if not crt:
                return False, "no Secret"
            got = []
            for port in (port_a, port_b):
                env.port = port
                got.append(norm(served_cert(env, ca)))
            return all(g == norm(crt) for g in got) or (False, "a replica serves another")
        poll(both, "both replicas serving the Secret's one certificate")
        made = a.log().count("making a new CA") + b.log().count("making a new CA")
        check(made >= 1, "nobody made the certificates")
    finally:
        a.stop()
        b.stop()
    env.start()


@test
def certificates_rotate_before_expiry(env):
    env.stop()
    expect(env.server.delete(f"/api/v1/namespaces/{SECRET_NS}/secrets/{SECRET}"), 200, "delete")
    # valid 12 s: replaced when 3 s are left
    ctl = env.start("--webhook-cert-validity", "12s")
    first = secret_pem(env, "tls.crt")

    def rotated():
        crt, ca = secret_pem(env, "tls.crt"), secret_pem(env, "ca.crt")
        if norm(crt) == norm(first):
            return False, "not yet"
        if any(norm(b) != norm(ca) for b in ca_bundles(env)):
            return False, "CA bundles not updated"
        return norm(served_cert(env, ca)) == norm(crt) or (False, "old certificate served")
    poll(rotated, "a new certificate in the Secret, the bundles and the server", timeout=40)
    check(log_count(ctl, "the certificates expire soon") >= 1, ctl.log()[-2000:])
    poll(lambda: log_count(ctl, "the certificates expire soon") >= 2, "a second rotation",
         timeout=40)
    # admission still answers after the swaps
    ns = env.namespace()
    r = env.kubectl("apply", "-n", ns, "-f", os.path.join(INVALID, "coordinator-missing.yaml"))
    check(r.returncode != 0 and "coordinator replicatedJob nope does not exist" in r.stderr,
          r.stderr)
    env.stop()
    expect(env.server.delete(f"/api/v1/namespaces/{SECRET_NS}/secrets/{SECRET}"), 200, "delete")
    env.start()  # back to long-lived certificates for what follows


# ---------------------------------------------------------------------------- harness


def setup():
    env = Env()
    env.start()
    return env


def teardown(env):
    try:
        env.stop()
    finally:
        for kind, name in (("mutatingwebhookconfigurations", MWC),
                           ("validatingwebhookconfigurations", VWC)):
            env.server.delete(f"{ADMREG}/{kind}/{name}")
        env.server.stop()
        if not os.environ.get("JAXSET_KEEP_LOGS"):
            for c in env.controllers:
                c.cleanup()


def on_failure(env, name):
    for c in env.controllers[-2:]:
        print(f"--- controller log ({c.log_path}):")
        print(c.log()[-4000:])


if __name__ == "__main__":
    main(setup, teardown, on_failure)
