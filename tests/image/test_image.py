"""jaxset's image (scripts/image.sh, build/jaxset-image.tar) run the way a cluster runs it, by
podman, against the project's test API server over TLS (a real kube-apiserver when
KUBEBUILDER_ASSETS names one):

- the archive loads into podman as localhost/jaxset:<VERSION>; its config is entrypoint
  jaxset, default args controller, user 65532; it holds no shell; `jaxset version` in it
  prints the binary's version;
- a container as Kubernetes starts the Deployment of config/manager: user 65532, read-only
  root filesystem, every capability dropped, no new privileges, the service account's files
  mounted at /var/run/secrets/kubernetes.io/serviceaccount and KUBERNETES_SERVICE_HOST/PORT
  set, nothing else to find the API server by.  /healthz and /readyz answer; a JobSet is
  reconciled into its Jobs; the webhooks answer over TLS with the certificate the container
  made and stored in the Secret, and the API server's admission of a JobSet goes through
  them (the JobSet comes back defaulted);
- SIGTERM: the container releases the Lease and exits 0 within 5 s;
- two replicas: exactly one leads; SIGKILL of the leader's container and the other holds the
  Lease within its duration and goes on reconciling.

The containers share the host's network (the API server listens on 127.0.0.1).  Needs root,
podman and runc (scripts/setup.sh installs them) and the archive; Skipped (77), saying why,
without them.  podman runs with --storage-driver vfs --runtime runc and explicit --ulimit
values (docs/development.md, "Images")."""
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import types
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("JAXSET_SRC") or os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "tests", "kube"))
from ctltest import BIN, JS_API, crd, poll, test_jobset  # noqa: E402
from kubetest import Server, check, expect  # noqa: E402
from test_webhooks import norm, served_cert as webhooks_served_cert  # noqa: E402

ARCHIVE = os.environ.get("JAXSET_IMAGE_ARCHIVE") or os.path.join(SRC, "build",
                                                                  "jaxset-image.tar")
with open(os.path.join(SRC, "VERSION"), encoding="utf-8") as _f:
    VERSION = _f.readline().strip()
IMAGE = f"localhost/jaxset:{VERSION}"
PODMAN = ["podman", "--storage-driver", "vfs", "--runtime", "runc"]
ULIMITS = ["--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"]
NS = "jaxset-system"
SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
SECRET = "jaxset-webhook-server-cert"
LEASE = f"/apis/coordination.k8s.io/v1/namespaces/{NS}/leases/6d4f6a47.x-k8s.io"
ADMREG = "/apis/admissionregistration.k8s.io/v1"
TAG = f"jxt{os.getpid()}"


def skip(why):
    print(f"skipped: {why}")
    sys.exit(77)


def podman(*args, check_rc=True, timeout=120):
    r = subprocess.run([*PODMAN, *args], capture_output=True, text=True, timeout=timeout)
    if check_rc and r.returncode != 0:
        raise AssertionError(f"podman {' '.join(args)}: exit {r.returncode}\n{r.stderr}")
    return r


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- the API server

def start_api():
    """(server, CA file of its serving certificate); the JobSet CRD installed, the
    controller's namespace made."""
    sys.path.insert(0, os.path.join(SRC, "tests", "kube"))
    import envtest
    assets = envtest.assets_dir()
    if assets:
        s = envtest.KubeAPIServer(assets, crds=[crd()])
        ca = os.path.join(s.dir, "certs", "apiserver.crt")
    else:
        s = Server("--tls", "--token", "jaxset-image-test-token")
        ca = os.path.join(s.dir, "server.crt")
        expect(s.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd()), 201,
               "JobSet CRD")
        poll(lambda: s.get(f"{JS_API}/jobsets").status == 200, "JobSets served")
    expect(s.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                         "metadata": {"name": NS}}), 201, "namespace")
    return s, ca


def service_account_dir(server, ca):
    """What the kubelet mounts for the pod's service account: token, ca.crt, namespace,
    readable by user 65532."""
    d = tempfile.mkdtemp(prefix="jaxset-sa-")
    os.chmod(d, 0o755)
    for name, text in (("token", server.token), ("namespace", NS)):
        with open(os.path.join(d, name), "w", encoding="utf-8") as f:
            f.write(text)
    shutil.copy(ca, os.path.join(d, "ca.crt"))
    for name in ("token", "namespace", "ca.crt"):
        os.chmod(os.path.join(d, name), 0o644)
    return d


# ---------------------------------------------------------------- containers

class Container:
    """`podman run -d` of the image as config/manager's Deployment runs it."""

    def __init__(self, env, name, *ctl_args):
        self.name = f"{TAG}-{name}"
        self.health = free_port()
        podman("rm", "-f", self.name, check_rc=False)
        args = ["run", "-d", "--name", self.name, "--network", "host", "--user", "65532:65532",
                "--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
                *ULIMITS, "-v", f"{env.sa_dir}:{SA_DIR}:ro",
                "-e", "KUBERNETES_SERVICE_HOST=127.0.0.1",
                "-e", f"KUBERNETES_SERVICE_PORT={env.server.port}",
                IMAGE, "controller", "--leader-elect", "--identity", self.name,
                "--leader-election-namespace", NS,
                f"--health-probe-bind-address=127.0.0.1:{self.health}",
                "--metrics-bind-address=0", *ctl_args]
        podman(*args)
        env.containers.append(self)

    def logs(self):
        r = podman("logs", self.name, check_rc=False)
        return r.stdout + r.stderr

    def running(self):
        r = podman("inspect", "--format", "{{.State.Running}}", self.name, check_rc=False)
        return r.stdout.strip() == "true"

    def exit_code(self):
        r = podman("inspect", "--format", "{{.State.ExitCode}}", self.name)
        return int(r.stdout.strip())

    def probe(self, path):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.health}{path}",
                                        timeout=2) as r:
                return r.status
        except OSError:
            return None

    def remove(self):
        podman("rm", "-f", "-t", "0", self.name, check_rc=False)


class Env:
    def __init__(self):
        self.server, self.ca = start_api()
        self.sa_dir = service_account_dir(self.server, self.ca)
        self.containers = []
        self.n = 0

    def namespace(self):
        self.n += 1
        ns = f"img-{self.n}"
        expect(self.server.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                       "metadata": {"name": ns}}), 201, ns)
        return ns

    def close(self):
        for c in self.containers:
            c.remove()
        self.server.stop()
        shutil.rmtree(self.sa_dir, ignore_errors=True)


def holder(env):
    r = env.server.get(LEASE)
    return (r.json.get("spec") or {}).get("holderIdentity") if r.status == 200 else None


def jobs_of(env, ns, name):
    r = env.server.get(f"/apis/batch/v1/namespaces/{ns}/jobs"
                       f"?labelSelector=jobset.sigs.k8s.io/jobset-name%3D{name}")
    return [j["metadata"]["name"] for j in r.json.get("items", [])] if r.status == 200 else []


def submit(env, name):
    ns = env.namespace()
    js = test_jobset(name)
    r = env.server.post(f"{JS_API}/namespaces/{ns}/jobsets", js)
    expect(r, 201, f"JobSet {name}")
    return ns, r.json


def reconciled(env, ns, name, container):
    want = sorted([f"{name}-replicated-job-a-0"] + [f"{name}-replicated-job-b-{i}"
                                                     for i in range(3)])

    def done():
        check(container.running(), f"{container.name} exited:\n{container.logs()[-3000:]}")
        got = sorted(jobs_of(env, ns, name))
        return got == want or (False, got)
    poll(done, f"the Jobs of {ns}/{name}", timeout=30)


# ---------------------------------------------------------------- checks

def check_image_config():
    r = podman("image", "inspect", IMAGE)
    cfg = json.loads(r.stdout)[0]["Config"]
    check(cfg.get("Entrypoint") == ["/usr/bin/jaxset"], f"entrypoint {cfg.get('Entrypoint')}")
    check(cfg.get("Cmd") == ["controller"], f"cmd {cfg.get('Cmd')}")
    check(cfg.get("User") == "65532:65532", f"user {cfg.get('User')}")
    sh = podman("run", "--rm", *ULIMITS, "--entrypoint", "/bin/sh", IMAGE, "-c", "true",
                check_rc=False)
    check(sh.returncode != 0, "the image has a shell")
    got = podman("run", "--rm", *ULIMITS, IMAGE, "version").stdout.strip()
    want = subprocess.run([BIN, "version"], capture_output=True, text=True).stdout.strip()
    check(got == want == f"jaxset {VERSION}", f"version in the image {got!r}, binary {want!r}")
    print(f"ok   image config, no shell, {got}", flush=True)


def secret_pem(env, key):
    r = env.server.get(f"/api/v1/namespaces/{NS}/secrets/{SECRET}")
    v = ((r.json.get("data") or {}) if r.status == 200 else {}).get(key)
    return base64.b64decode(v).decode() if v else None


def served_cert(port, ca_pem):
    """The webhook server's certificate at 127.0.0.1:port, verified against ca_pem."""
    return webhooks_served_cert(types.SimpleNamespace(port=port), ca_pem)


def check_one_container(env):
    port = free_port()
    c = Container(env, "a", "--enable-webhooks", f"--webhook-port={port}",
                  "--webhook-host=127.0.0.1", f"--webhook-url-base=https://127.0.0.1:{port}",
                  f"--webhook-secret-namespace={NS}")
    poll(lambda: (c.probe("/healthz") == 200 and c.probe("/readyz") == 200) or
         (False, c.logs()[-2000:]), "/healthz and /readyz", timeout=30)
    print("ok   /healthz and /readyz answer", flush=True)

    def serving():
        ca, crt = secret_pem(env, "ca.crt"), secret_pem(env, "tls.crt")
        if not ca or not crt:
            return False, "no Secret yet"
        return norm(served_cert(port, ca)) == norm(crt) or (False, "served certificate differs")
    poll(serving, "the webhook server presenting the Secret's certificate", timeout=30)
    ca = secret_pem(env, "ca.crt")
    for kind in ("mutatingwebhookconfigurations", "validatingwebhookconfigurations"):
        r = env.server.get(f"{ADMREG}/{kind}?labelSelector=")
        bundles = [base64.b64decode(w["clientConfig"].get("caBundle", "")).decode()
                   for item in r.json.get("items", []) for w in item.get("webhooks") or []]
        check(bundles and all(norm(b) == norm(ca) for b in bundles), f"{kind}: CA bundles")
    print("ok   webhooks over TLS with the Secret's certificate", flush=True)
    poll(lambda: holder(env) == c.name, "the Lease held by the container")
    ns, created = submit(env, "js-a")
    mode = created["spec"]["replicatedJobs"][0]["template"]["spec"].get("completionMode")
    check(mode == "Indexed", f"JobSet not defaulted by the webhook: {created['spec']}")
    reconciled(env, ns, "js-a", c)
    print("ok   a JobSet defaulted at admission and reconciled into its Jobs", flush=True)

    t0 = time.monotonic()
    podman("kill", "--signal", "TERM", c.name)
    poll(lambda: not c.running(), "the container stopping after SIGTERM", timeout=10)
    took = time.monotonic() - t0
    rc = c.exit_code()
    check(rc == 0, f"exit {rc} after SIGTERM:\n{c.logs()[-3000:]}")
    check(took <= 5, f"{took:.1f}s to stop after SIGTERM")
    lease = env.server.get(LEASE).json["spec"]
    check(not lease.get("holderIdentity"), f"the Lease is not released: {lease}")
    print(f"ok   SIGTERM: Lease released, exit 0 in {took:.2f}s", flush=True)
    c.remove()
    for kind in ("mutatingwebhookconfigurations", "validatingwebhookconfigurations"):
        for item in env.server.get(f"{ADMREG}/{kind}").json.get("items", []):
            env.server.delete(f"{ADMREG}/{kind}/{item['metadata']['name']}")


LEASE_ARGS = ("--leader-elect-lease-duration=6s", "--leader-elect-renew-deadline=4s",
              "--leader-elect-retry-period=1s")


def check_two_replicas(env):
    a = Container(env, "r1", *LEASE_ARGS)
    b = Container(env, "r2", *LEASE_ARGS)
    both = {a.name: a, b.name: b}
    leader = both[poll(lambda: holder(env) in both and holder(env), "one replica leading")]
    follower = b if leader is a else a
    ns, _ = submit(env, "js-b")
    reconciled(env, ns, "js-b", leader)
    check("successfully acquired lease" not in follower.logs(),
          f"the follower acquired the Lease too:\n{follower.logs()[-2000:]}")
    print(f"ok   two replicas: {leader.name} leads, {follower.name} waits", flush=True)
    t0 = time.monotonic()
    podman("kill", "--signal", "KILL", leader.name)
    poll(lambda: holder(env) == follower.name or (False, holder(env)),
         "the follower taking the Lease", timeout=6 + 3)
    took = time.monotonic() - t0
    ns, _ = submit(env, "js-c")
    reconciled(env, ns, "js-c", follower)
    print(f"ok   leader killed: {follower.name} leads after {took:.2f}s (lease 6s) and "
          f"reconciles", flush=True)


def main():
    if os.geteuid() != 0:
        skip("podman's vfs store and runc need root here")
    for tool in ("podman", "runc"):
        if not shutil.which(tool):
            skip(f"{tool} is not installed (scripts/setup.sh installs it)")
    if not os.path.exists(ARCHIVE):
        skip(f"{ARCHIVE} is missing: build it with scripts/image.sh")
    out = podman("load", "-i", ARCHIVE).stdout
    check(IMAGE in out, f"podman load: {out!r}")
    print(f"ok   {ARCHIVE} loads as {IMAGE}", flush=True)
    check_image_config()
    env = Env()
    failed = False
    try:
        check_one_container(env)
        check_two_replicas(env)
    except Exception:
        failed = True
        for c in env.containers:
            print(f"--- {c.name}\n{c.logs()[-4000:]}")
        raise
    finally:
        env.close()
    print("image checks passed" if not failed else "")


if __name__ == "__main__":
    main()
