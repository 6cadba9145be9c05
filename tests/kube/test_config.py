"""config/: what `kubectl apply -k config/default` installs, checked as files and against the
test API server (tests/kube/apiserver.py) with the installed kubectl.

- `jaxset crds` prints the CRD files of config/crd byte for byte, and config/crd's
  kustomization names the same files;
- the controller's ClusterRole and leader-election Role hold exactly the rules written here
  (a change of verbs in config/rbac must change this list too, deliberately);
- the Deployment runs as non-root, read-only, with the probes, resources and arguments asked;
- `kubectl kustomize config/default` builds (offline), and its output passes
  `kubectl apply --dry-run=client`; client-side apply is refused (the CRDs exceed the
  last-applied annotation's 262144 bytes) and `--server-side --dry-run=server` passes; then
  `kubectl apply --server-side` applies it for real, twice (the second time unchanged); the
  CRDs applied from `jaxset crds` serve JobSets whose printer columns `kubectl get jobsets`
  shows; then `kubectl apply --server-side -k config/runtimes` installs the jax-distributed
  ClusterTrainingRuntime (a separate step: a first `apply -k` could not map a kind whose CRD
  it creates in the same run) and, from config/trainer, what Trainer's manifests install for
  its clients (the kubeflow-trainer-public ConfigMap in kubeflow-system,
  readable by every authenticated user).

The kubectl part is skipped, with a line saying so, when kubectl is not installed."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kubetest import SRC, Server, check, expect, main, test  # noqa: E402

BIN = os.environ.get("JAXSET_BIN", os.path.join(SRC, "build", "jaxset"))
CONFIG = os.path.join(SRC, "config")
CRD_DIR = os.path.join(CONFIG, "crd")
NS = "jaxset-system"
with open(os.path.join(SRC, "VERSION"), encoding="utf-8") as _f:
    VERSION = _f.readline().strip()

# The controller's ClusterRole (config/rbac/role.yaml), rule by rule, verbs in file order.
CLUSTER_RULES = [
    (["jobset.x-k8s.io"], ["jobsets"], ["get", "list", "watch", "create", "update", "patch",
                                        "delete"]),
    (["jobset.x-k8s.io"], ["jobsets/status"], ["get", "update", "patch"]),
    (["jobset.x-k8s.io"], ["jobsets/finalizers"], ["update"]),
    (["kubeflow.org"], ["jaxjobs"], ["get", "list", "watch", "delete"]),
    (["kubeflow.org"], ["jaxjobs/status"], ["update"]),
    (["kubeflow.org"], ["jaxjobs/finalizers"], ["update"]),
    (["trainer.kubeflow.org"], ["trainjobs", "trainingruntimes", "clustertrainingruntimes"],
     ["get", "list", "watch"]),
    (["trainer.kubeflow.org"], ["trainjobs/status", "trainjobs/finalizers"], ["update"]),
    (["batch"], ["jobs"], ["get", "list", "watch", "create", "update", "patch", "delete"]),
    (["batch"], ["jobs/status"], ["update", "patch"]),
    ([""], ["services"], ["get", "list", "watch", "create", "delete"]),
    ([""], ["pods"], ["get", "list", "watch", "patch", "delete"]),
    ([""], ["persistentvolumeclaims"], ["get", "list", "watch", "create"]),
    (["", "events.k8s.io"], ["events"], ["create", "patch"]),
    (["admissionregistration.k8s.io"],
     ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"], ["get", "update"]),
    ([""], ["pods/status"], ["update"]),
    ([""], ["nodes"], ["get", "list", "watch"]),
    (["scheduling.x-k8s.io", "scheduling.volcano.sh"], ["podgroups"],
     ["get", "list", "watch", "create", "update"]),
    (["trainer.kubeflow.org"], ["trainjobs/status"], ["patch"]),
    (["authentication.k8s.io"], ["tokenreviews"], ["create"]),
    ([""], ["configmaps"], ["get", "create", "update"]),
]
# The rules limited to named objects: rule index -> resourceNames.
CLUSTER_NAMES = {14: ["jaxset-mutating-webhook-configuration",
                      "jaxset-validating-webhook-configuration"]}
# The webhook certificates' Role in jaxset-system (config/rbac/webhook_role.yaml).
WEBHOOK_RULES = [([""], ["secrets"], ["get", "update"])]
WEBHOOK_NAMES = {0: ["jaxset-webhook-server-cert"]}
# The leader-election Role in jaxset-system (config/rbac/leader_election_role.yaml).
LEADER_RULES = [
    (["coordination.k8s.io"], ["leases"], ["get", "create", "update"]),
    (["", "events.k8s.io"], ["events"], ["create", "patch"]),
]
# What config/default holds: (kind, namespace, name).
OBJECTS = [
    ("Namespace", None, NS),
    ("CustomResourceDefinition", None, "jobsets.jobset.x-k8s.io"),
    ("CustomResourceDefinition", None, "jaxjobs.kubeflow.org"),
    ("CustomResourceDefinition", None, "clustertrainingruntimes.trainer.kubeflow.org"),
    ("CustomResourceDefinition", None, "trainingruntimes.trainer.kubeflow.org"),
    ("CustomResourceDefinition", None, "trainjobs.trainer.kubeflow.org"),
    ("ServiceAccount", NS, "jaxset-controller"),
    ("Role", NS, "jaxset-leader-election"),
    ("ClusterRole", None, "jaxset-controller"),
    ("RoleBinding", NS, "jaxset-leader-election"),
    ("ClusterRoleBinding", None, "jaxset-controller"),
    ("Service", NS, "jaxset-controller-metrics"),
    ("Deployment", NS, "jaxset-controller"),
    ("Role", NS, "jaxset-webhook-cert"),
    ("RoleBinding", NS, "jaxset-webhook-cert"),
    ("Service", NS, "jaxset-webhook-service"),
    ("Secret", NS, "jaxset-webhook-server-cert"),
    ("MutatingWebhookConfiguration", None, "jaxset-mutating-webhook-configuration"),
    ("ValidatingWebhookConfiguration", None, "jaxset-validating-webhook-configuration"),
]
# kubectl's "<resource>.<group>/<name>" for each of OBJECTS, in kubectl's apply order.
APPLIED = [
    "namespace/jaxset-system",
    "customresourcedefinition.apiextensions.k8s.io/clustertrainingruntimes.trainer.kubeflow.org",
    "customresourcedefinition.apiextensions.k8s.io/jaxjobs.kubeflow.org",
    "customresourcedefinition.apiextensions.k8s.io/jobsets.jobset.x-k8s.io",
    "customresourcedefinition.apiextensions.k8s.io/trainingruntimes.trainer.kubeflow.org",
    "customresourcedefinition.apiextensions.k8s.io/trainjobs.trainer.kubeflow.org",
    "serviceaccount/jaxset-controller",
    "role.rbac.authorization.k8s.io/jaxset-leader-election",
    "role.rbac.authorization.k8s.io/jaxset-webhook-cert",
    "clusterrole.rbac.authorization.k8s.io/jaxset-controller",
    "rolebinding.rbac.authorization.k8s.io/jaxset-leader-election",
    "rolebinding.rbac.authorization.k8s.io/jaxset-webhook-cert",
    "clusterrolebinding.rbac.authorization.k8s.io/jaxset-controller",
    "secret/jaxset-webhook-server-cert",
    "service/jaxset-controller-metrics",
    "service/jaxset-webhook-service",
    "deployment.apps/jaxset-controller",
    "mutatingwebhookconfiguration.admissionregistration.k8s.io/"
    "jaxset-mutating-webhook-configuration",
    "validatingwebhookconfiguration.admissionregistration.k8s.io/"
    "jaxset-validating-webhook-configuration",
]


def decode(path=None, text=None):
    """The documents of a YAML file (or text) as JSON, read by `jaxset decode`."""
    p = subprocess.run([BIN, "decode", path or "/dev/stdin"], input=text, capture_output=True,
                       text=True, timeout=30)
    check(p.returncode == 0, f"jaxset decode {path}: {p.stderr}")
    return json.loads(p.stdout)


def rules_of(obj):
    return [(r.get("apiGroups"), r.get("resources"), r.get("verbs")) for r in obj["rules"]]


def names_of(obj):
    return {i: r["resourceNames"] for i, r in enumerate(obj["rules"]) if "resourceNames" in r}


def crd_files():
    return sorted(f for f in os.listdir(CRD_DIR)
                  if f.endswith(".yaml") and f != "kustomization.yaml")


def kustomization(folder):
    return decode(os.path.join(CONFIG, folder, "kustomization.yaml"))[0]


# ====================================================================== files


@test
def crds_prints_the_crd_files():
    files = crd_files()
    check(files, "config/crd holds no CRD")
    check(kustomization("crd")["resources"] == files,
          f"config/crd/kustomization.yaml names {kustomization('crd')['resources']}, "
          f"the folder holds {files}")
    want = b""
    for i, f in enumerate(files):
        with open(os.path.join(CRD_DIR, f), "rb") as fh:
            data = fh.read()
        want += (b"---\n" if i else b"") + data + (b"" if data.endswith(b"\n") else b"\n")
    p = subprocess.run([BIN, "crds"], capture_output=True, timeout=30)
    check(p.returncode == 0 and p.stderr == b"", p)
    check(p.stdout == want, "jaxset crds differs from the files of config/crd: rebuild?")
    kinds = [d["kind"] for d in decode(text=p.stdout.decode())]
    check(kinds == ["CustomResourceDefinition"] * len(files), kinds)
    p = subprocess.run([BIN, "crds", "extra"], capture_output=True, text=True, timeout=30)
    check(p.returncode == 2 and "takes no argument" in p.stderr and p.stdout == "", p)


@test
def rbac_rules_are_the_listed_ones():
    role = decode(os.path.join(CONFIG, "rbac", "role.yaml"))[0]
    check(role["kind"] == "ClusterRole" and role["metadata"]["name"] == "jaxset-controller")
    got = rules_of(role)
    check(got == CLUSTER_RULES, "ClusterRole rules changed:\n" + "\n".join(map(str, got)))
    check(names_of(role) == CLUSTER_NAMES, names_of(role))
    wh = decode(os.path.join(CONFIG, "rbac", "webhook_role.yaml"))[0]
    check(wh["kind"] == "Role" and wh["metadata"]["namespace"] == NS, wh)
    check(rules_of(wh) == WEBHOOK_RULES and names_of(wh) == WEBHOOK_NAMES, wh["rules"])
    lead = decode(os.path.join(CONFIG, "rbac", "leader_election_role.yaml"))[0]
    check(lead["kind"] == "Role" and lead["metadata"]["namespace"] == NS)
    check(rules_of(lead) == LEADER_RULES, "leader-election Role rules changed:\n" +
          "\n".join(map(str, rules_of(lead))))
    sa = {"kind": "ServiceAccount", "name": "jaxset-controller", "namespace": NS}
    for f, kind, ref in (("role_binding.yaml", "ClusterRoleBinding", "ClusterRole"),
                         ("leader_election_role_binding.yaml", "RoleBinding", "Role"),
                         ("webhook_role_binding.yaml", "RoleBinding", "Role")):
        b = decode(os.path.join(CONFIG, "rbac", f))[0]
        check(b["kind"] == kind and b["roleRef"]["kind"] == ref and b["subjects"] == [sa], b)


@test
def deployment_is_hardened():
    with open(os.path.join(CONFIG, "default", "kustomization.yaml"), encoding="utf-8") as f:
        images = decode(text=f.read())[0]["images"]
    check(images == [{"name": "localhost/jaxset", "newName": "localhost/jaxset",
                      "newTag": VERSION}], f"config/default images {images}: not VERSION's")
    docs = decode(os.path.join(CONFIG, "manager", "manager.yaml"))
    d = docs[0]
    check(d["kind"] == "Deployment" and d["metadata"]["name"] == "jaxset-controller", d)
    spec, pod = d["spec"], d["spec"]["template"]["spec"]
    check(spec["replicas"] == 1)
    check(pod["serviceAccountName"] == "jaxset-controller")
    check(pod["terminationGracePeriodSeconds"] == 10)
    check(pod["securityContext"]["runAsNonRoot"] is True and
          pod["securityContext"]["runAsUser"] == 65532 and
          pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}, pod)
    (c,) = pod["containers"]
    check(c["image"] == f"localhost/jaxset:{VERSION}", f"{c['image']}: not the VERSION's image")
    check(c["args"] == ["controller", "--leader-elect", "--health-probe-bind-address=:8081",
                        "--metrics-bind-address=:8080", "--enable-webhooks",
                        "--webhook-port=9443"], c["args"])
    sc = c["securityContext"]
    check(sc["readOnlyRootFilesystem"] is True and sc["allowPrivilegeEscalation"] is False and
          sc["capabilities"] == {"drop": ["ALL"]} and sc["runAsNonRoot"] is True, sc)
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    check(ports == {"metrics": 8080, "health": 8081, "webhook": 9443, "status-server": 10443},
          ports)
    check(c["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "health"}, c)
    check(c["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "health"}, c)
    check(c["resources"] == {"requests": {"cpu": "50m", "memory": "32Mi"},
                             "limits": {"memory": "128Mi"}}, c["resources"])
    svc = decode(os.path.join(CONFIG, "manager", "metrics_service.yaml"))[0]
    check(svc["spec"]["selector"] == spec["selector"]["matchLabels"] ==
          d["spec"]["template"]["metadata"]["labels"], svc)
    check(svc["spec"]["ports"] == [{"name": "metrics", "port": 8080, "targetPort": "metrics",
                                    "protocol": "TCP"}], svc)
    check(kustomization("default")["namespace"] == NS)
    # the webhooks: the Service reaches the container's webhook port; each configuration
    # names it and the paths the controller serves (src/kube/webhook/wh_jobset.h)
    wsvc = decode(os.path.join(CONFIG, "webhook", "service.yaml"))[0]
    check(wsvc["spec"]["selector"] == spec["selector"]["matchLabels"], wsvc)
    check(wsvc["spec"]["ports"] == [{"name": "webhook", "port": 443, "targetPort": "webhook",
                                     "protocol": "TCP"},
                                    {"name": "status-server", "port": 10443,
                                     "targetPort": "status-server", "protocol": "TCP"}], wsvc)
    hooks = {}
    for cfg in decode(os.path.join(CONFIG, "webhook", "manifests.yaml")):
        for w in cfg["webhooks"]:
            svc = w["clientConfig"]["service"]
            check(svc["name"] == "jaxset-webhook-service" and svc["namespace"] == NS and
                  svc["port"] == 443, svc)
            check(w["failurePolicy"] == "Fail" and w["sideEffects"] == "None" and
                  w["admissionReviewVersions"] == ["v1"], w)
            hooks[w["name"]] = (cfg["kind"], svc["path"], w["rules"][0]["operations"])
            # kubeflow/trainer v2.3.0 charts/kubeflow-trainer/tests/webhook/
            # validating_webhook_configuration_test.yaml, "Should skip validation for runtimes
            # labeled trainer.kubeflow.org/webhook-validation=disabled": the two runtime
            # webhooks select NotIn [disabled], the TrainJob one has no objectSelector
            if "trainer.kubeflow.org" in w["name"]:
                want = [{"key": "trainer.kubeflow.org/webhook-validation", "operator": "NotIn",
                         "values": ["disabled"]}] if "runtime" in w["name"] else None
                check((w.get("objectSelector") or {}).get("matchExpressions") == want, w)
    check(hooks == {
        "mjobset.kb.io": ("MutatingWebhookConfiguration",
                          "/mutate-jobset-x-k8s-io-v1alpha2-jobset", ["CREATE"]),
        "mpod.kb.io": ("MutatingWebhookConfiguration", "/mutate--v1-pod", ["CREATE"]),
        "vjobset.kb.io": ("ValidatingWebhookConfiguration",
                          "/validate-jobset-x-k8s-io-v1alpha2-jobset", ["CREATE", "UPDATE"]),
        "vpod.kb.io": ("ValidatingWebhookConfiguration", "/validate--v1-pod", ["CREATE"]),
        "validator.jaxjob.training-operator.kubeflow.org": (
            "ValidatingWebhookConfiguration", "/validate-kubeflow-org-v1-jaxjob",
            ["CREATE", "UPDATE"]),
        "validator.trainjob.trainer.kubeflow.org": (
            "ValidatingWebhookConfiguration", "/validate-trainer-kubeflow-org-v1alpha1-trainjob",
            ["CREATE", "UPDATE"]),
        "validator.clustertrainingruntime.trainer.kubeflow.org": (
            "ValidatingWebhookConfiguration",
            "/validate-trainer-kubeflow-org-v1alpha1-clustertrainingruntime", ["CREATE", "UPDATE"]),
        "validator.trainingruntime.trainer.kubeflow.org": (
            "ValidatingWebhookConfiguration",
            "/validate-trainer-kubeflow-org-v1alpha1-trainingruntime", ["CREATE", "UPDATE"]),
    }, hooks)


# ====================================================================== kubectl


class Kubectl:
    def __init__(self, s):
        self.cache = tempfile.mkdtemp(prefix="jaxset-kubectl-")
        self.env = dict(os.environ, KUBECONFIG=s.kubeconfig, HOME=self.cache)

    def __call__(self, *args, stdin=None, timeout=60):
        p = subprocess.run(["kubectl", "--cache-dir", os.path.join(self.cache, "cache"), *args],
                           input=stdin, capture_output=True, text=True, env=self.env,
                           timeout=timeout, cwd=SRC)
        return p.returncode, p.stdout, p.stderr

    def ok(self, *args, **kw):
        rc, out, err = self(*args, **kw)
        if rc != 0:
            raise AssertionError(f"kubectl {' '.join(args)}: rc={rc}\n{out}\n{err}")
        return out

    def close(self):
        shutil.rmtree(self.cache, ignore_errors=True)


def applied(out, suffix):
    """The objects of kubectl apply's output, each line checked to end with `suffix`."""
    lines = out.strip().splitlines()
    bad = [line for line in lines if not line.endswith(" " + suffix)]
    check(not bad, f"lines not {suffix!r}: {bad}")
    return [line[:-len(suffix) - 1] for line in lines]


def versions(k):
    """{kind/name: resourceVersion} of what config/default installs."""
    out = {}
    for kind, ns, name in OBJECTS:
        args = ["-n", ns] if ns else []
        out[f"{kind}/{name}"] = k.ok("get", kind.lower(), name, *args, "-o",
                                     "jsonpath={.metadata.resourceVersion}")
    return out


JOBSET_YAML = """apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: train
  namespace: default
spec:
  suspend: false
  replicatedJobs:
  - name: workers
    template:
      spec:
        template:
          spec:
            restartPolicy: Never
            containers:
            - name: jax
              image: python:3.11
"""


def jobset_columns(k, s):
    """`kubectl get jobsets` shows upstream's printer columns, from the status the controller
    writes (here written over raw HTTP, as the test plays the controller)."""
    check(k.ok("apply", "-f", "-", stdin=JOBSET_YAML).strip() ==
          "jobset.jobset.x-k8s.io/train created")
    path = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/train/status"
    expect(s.patch(path, {"status": {"restarts": 2, "terminalState": "Completed",
                                     "conditions": [{
                                         "type": "Completed", "status": "True",
                                         "reason": "AllJobsCompleted", "message": "done",
                                         "lastTransitionTime": "2025-01-01T00:00:00Z"}]}}),
           200, "status")
    out = k.ok("get", "jobsets", "-n", "default")
    check(re.match(r"NAME\s+TERMINALSTATE\s+RESTARTS\s+COMPLETED\s+SUSPENDED\s+AGE\n"
                   r"train\s+Completed\s+2\s+True\s+false\s+\d+s\n$", out), out)
    check(k.ok("get", "jobsets", "-A", "-o", "name").strip() == "jobset.jobset.x-k8s.io/train")
    k.ok("delete", "jobset", "train", "-n", "default")


@test
def release_manifests_are_config_default():
    """scripts/release.sh: manifests.yaml is `kubectl kustomize config/default`, the
    Deployment naming localhost/jaxset:<VERSION> (or --image's reference), runtimes.yaml
    config/runtimes."""
    if shutil.which("kubectl") is None:
        print("skip release_manifests_are_config_default: kubectl is not installed")
        return
    out = tempfile.mkdtemp(prefix="jaxset-release-")
    try:
        script = os.path.join(SRC, "scripts", "release.sh")
        subprocess.run([script, "--out", out], check=True, capture_output=True)
        with open(os.path.join(out, "manifests.yaml"), encoding="utf-8") as f:
            text = f.read()
        want = subprocess.run(["kubectl", "kustomize", os.path.join(CONFIG, "default")],
                              check=True, capture_output=True, text=True).stdout
        check(text.split("\n", 1)[1] == want, "manifests.yaml is not config/default's build")
        deploy = [d for d in decode(text=text) if d["kind"] == "Deployment"]
        check([c["image"] for c in deploy[0]["spec"]["template"]["spec"]["containers"]] ==
              [f"localhost/jaxset:{VERSION}"], deploy)
        with open(os.path.join(out, "runtimes.yaml"), encoding="utf-8") as f:
            kinds = [d["kind"] for d in decode(text=f.read())]
        check("ClusterTrainingRuntime" in kinds, kinds)
        subprocess.run([script, "--out", out, "--image", "reg.example:5000/team/jaxset:v9"],
                       check=True, capture_output=True)
        with open(os.path.join(out, "manifests.yaml"), encoding="utf-8") as f:
            deploy = [d for d in decode(text=f.read()) if d["kind"] == "Deployment"]
        c = deploy[0]["spec"]["template"]["spec"]["containers"][0]
        check(c["image"] == "reg.example:5000/team/jaxset:v9", c["image"])
    finally:
        shutil.rmtree(out, ignore_errors=True)


@test
def kubectl_applies_config_default():
    if shutil.which("kubectl") is None:
        print("skip kubectl_applies_config_default: kubectl is not installed")
        return
    s = Server()
    k = Kubectl(s)
    try:
        stream = k.ok("kustomize", os.path.join(CONFIG, "default"))
        docs = decode(text=stream)
        got = [(d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"]) for d in docs]
        check(sorted(got, key=str) == sorted(OBJECTS, key=str), got)
        labels = {d["kind"]: d["metadata"].get("labels", {}) for d in docs}
        check(all(v.get("app.kubernetes.io/part-of") == "jaxset" for v in labels.values()),
              labels)
        # Client dry run: everything; server dry run once the namespace exists (as with a
        # real API server, whose NamespaceLifecycle refuses objects of a missing namespace).
        out = k.ok("apply", "--dry-run=client", "-f", "-", stdin=stream)
        check(applied(out, "created (dry run)") == APPLIED, out)
        check(k.ok("create", "namespace", NS).strip() == f"namespace/{NS} created")
        # Client-side apply cannot install the CRDs: the JobSet and runtime CRDs, with the
        # Kubernetes schemas of their templates, exceed the 262144 bytes of the
        # last-applied-configuration annotation (kube-apiserver's limit on annotations).
        rc, _, err = k("apply", "--dry-run=server", "-f", "-", stdin=stream)
        check(rc != 0 and 'CustomResourceDefinition.apiextensions.k8s.io '
              '"jobsets.jobset.x-k8s.io" is invalid: metadata.annotations: Too long: must have '
              'at most 262144 bytes' in err, err)
        out = k.ok("apply", "--server-side", "--dry-run=server", "-f", "-", stdin=stream)
        check(applied(out, "serverside-applied (server dry run)") == APPLIED, out)
        rc, _, err = k("get", "crd", "jobsets.jobset.x-k8s.io")
        check(rc == 1 and "NotFound" in err, f"a server dry run created the CRD: {err}")
        check(k.ok("get", "deployments,serviceaccounts", "-n", NS, "-o", "name") == "",
              "a server dry run created objects")
        # The CRD from `jaxset crds`, for real.
        crds = subprocess.run([BIN, "crds"], capture_output=True, text=True, timeout=30).stdout
        out = k.ok("apply", "--server-side", "-f", "-", stdin=crds)
        check(sorted(applied(out, "serverside-applied")) ==
              sorted(a for a in APPLIED if "customresourcedefinition" in a), out)
        k.ok("wait", "--for", "condition=Established", "--timeout", "10s",
             *[f"crd/{o[2]}" for o in OBJECTS if o[0] == "CustomResourceDefinition"])
        rc, out, err = k("get", "jobsets", "-A")
        check(rc == 0 and out == "" and "No resources found" in err, (rc, out, err))
        jobset_columns(k, s)
        # Everything, for real, then again: nothing changes (no object gets a new
        # resourceVersion).
        out = k.ok("apply", "--server-side", "-k", os.path.join(CONFIG, "default"))
        check(applied(out, "serverside-applied") == APPLIED, out)
        before = versions(k)
        out = k.ok("apply", "--server-side", "-k", os.path.join(CONFIG, "default"))
        check(applied(out, "serverside-applied") == APPLIED, out)
        check(versions(k) == before, (before, versions(k)))
        # The runtimes, once their CRD is established, with what Trainer's manifests install
        # for its clients (config/trainer): the ConfigMap kubeflow/sdk's TrainerClient reads.
        out = k.ok("apply", "--server-side", "-k", os.path.join(CONFIG, "runtimes"))
        check(applied(out, "serverside-applied") == [
            "namespace/kubeflow-system",
            "role.rbac.authorization.k8s.io/kubeflow-trainer-public",
            "rolebinding.rbac.authorization.k8s.io/kubeflow-trainer-public",
            "configmap/kubeflow-trainer-public",
            "clustertrainingruntime.trainer.kubeflow.org/jax-distributed"], out)
        cm = json.loads(k.ok("get", "configmap", "kubeflow-trainer-public", "-n",
                             "kubeflow-system", "-o", "json"))
        check(cm["data"] == {"kubeflow_trainer_version": "v2.3.0"}, cm)
        rb = json.loads(k.ok("get", "rolebinding", "kubeflow-trainer-public", "-n",
                             "kubeflow-system", "-o", "json"))
        check(rb["subjects"] == [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group",
                                  "name": "system:authenticated"}] and
              rb["roleRef"]["name"] == "kubeflow-trainer-public", rb)
        pub = json.loads(k.ok("get", "role", "kubeflow-trainer-public", "-n",
                              "kubeflow-system", "-o", "json"))
        check(rules_of(pub) == [([""], ["configmaps"], ["get", "list", "watch"])] and
              pub["rules"][0]["resourceNames"] == ["kubeflow-trainer-public"], pub)
        rt = json.loads(k.ok("get", "clustertrainingruntime", "jax-distributed", "-o", "json"))
        check(rt["spec"]["mlPolicy"] == {"numNodes": 1, "jax": {}} and
              rt["metadata"].get("namespace") is None, rt)
        role = json.loads(k.ok("get", "clusterrole", "jaxset-controller", "-o", "json"))
        check(rules_of(role) == CLUSTER_RULES, rules_of(role))
        out = k.ok("get", "deployment", "jaxset-controller", "-n", NS)
        check(re.match(r"NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\n"
                       r"jaxset-controller\s+0/1\s+0\s+0\s+\d+s\n$", out), out)
        out = k.ok("get", "rolebinding", "-n", NS)
        check(re.search(r"^jaxset-leader-election\s+Role/jaxset-leader-election\s", out, re.M),
              out)
    finally:
        k.close()
        s.stop()


if __name__ == "__main__":
    main()
