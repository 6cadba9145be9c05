"""A real kube-apiserver for the tests, started as controller-runtime's envtest starts it: the
`etcd` and `kube-apiserver` binaries of the folder named by KUBEBUILDER_ASSETS, on loopback,
with a throwaway data directory, a self-signed serving certificate (kube-apiserver makes it in
its --cert-dir) and a bearer token of the system:masters group. When the folder also holds
`kube-controller-manager`, it runs with the garbage collector only (no Job controller: the
tests play it), so that Foreground deletion behaves as on a cluster; without it, nothing
removes the foregroundDeletion finalizer and a test strips it by hand, as JobSet's own
integration suite does (has_gc says which).

A scenario that checks placement asks for more (scheduler=True, needs scheduler_assets()):
`kube-scheduler` beside kube-apiserver (its own kubeconfig in the throwaway folder, no leader
election, no serving port), and kube-controller-manager with the Job controller too, so that
Jobs create real pods. Nothing runs the node lifecycle controller: Nodes that a test registers
(tests/kube/kubelet.py) stay Ready without heartbeats.

The object has the same HTTP methods as kubetest.Server (kubetest.Client), so one scenario
runs against either; the test server's /__admin controls (faults, watch drops) are absent
(has_admin False)."""
import os
import secrets
import shutil
import socket
import ssl
import subprocess
import tempfile
import time

from kubetest import Client

BINARIES = ("kube-apiserver", "etcd")
SCHEDULING = ("kube-scheduler", "kube-controller-manager")


def assets_dir():
    """KUBEBUILDER_ASSETS when it names a folder holding kube-apiserver and etcd, else None."""
    d = os.environ.get("KUBEBUILDER_ASSETS")
    if d and all(os.access(os.path.join(d, b), os.X_OK) for b in BINARIES):
        return d
    return None


def scheduler_assets():
    """assets_dir() when it also holds kube-scheduler and kube-controller-manager, else None;
    why_no_scheduler() says what is missing."""
    d = assets_dir()
    if d and all(os.access(os.path.join(d, b), os.X_OK) for b in SCHEDULING):
        return d
    return None


def why_no_scheduler():
    d = assets_dir()
    if not d:
        return "KUBEBUILDER_ASSETS names no folder with kube-apiserver and etcd"
    missing = [b for b in SCHEDULING if not os.access(os.path.join(d, b), os.X_OK)]
    return f"{d} has no {' or '.join(missing)}"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class KubeAPIServer(Client):
    kind = "kube-apiserver"
    has_admin = False

    def __init__(self, assets, crds=(), gc=True, scheduler=False, timeout=60, kcm_args=()):
        """`kcm_args`: more flags for kube-controller-manager (its client's --kube-api-qps and
        --kube-api-burst, 20 and 30 by default, bound how fast its controllers write)."""
        self.assets = assets
        self.kcm_args = list(kcm_args)
        self.dir = tempfile.mkdtemp(prefix="jaxset-envtest-")
        self.procs = []
        self.logs = {}
        self.tls = True
        self.ctx = ssl.create_default_context()
        self.ctx.check_hostname = False
        self.ctx.verify_mode = ssl.CERT_NONE
        self.token = secrets.token_hex(16)
        self.has_gc = False
        self.has_scheduler = False
        try:
            self._start_etcd(timeout)
            self._start_apiserver(timeout)
            self._write_kubeconfig()
            for crd in crds:
                self.install_crd(crd, timeout)
            kcm = os.path.join(assets, "kube-controller-manager")
            if (gc or scheduler) and os.access(kcm, os.X_OK):
                self._start_gc(kcm, timeout, jobs=scheduler)
            if scheduler:
                self._start_scheduler(timeout)
        except BaseException:
            self.stop()
            raise

    # ------------------------------------------------------------------ processes

    def _spawn(self, name, argv):
        path = os.path.join(self.dir, f"{name}.log")
        f = open(path, "w", encoding="utf-8")
        self.logs[name] = (path, f)
        p = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL)
        self.procs.append((name, p))
        return p

    def _wait(self, what, cond, timeout, proc):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if proc.poll() is not None:
                raise RuntimeError(f"{what} exited with {proc.returncode}:\n{self.log(what)}")
            try:
                if cond():
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{what} not ready after {timeout}s:\n{self.log(what)[-3000:]}")

    def _start_etcd(self, timeout):
        client, peer = free_port(), free_port()
        self.etcd_url = f"http://127.0.0.1:{client}"
        p = self._spawn("etcd", [
            os.path.join(self.assets, "etcd"), "--name", "envtest",
            "--data-dir", os.path.join(self.dir, "etcd"),
            "--listen-client-urls", self.etcd_url, "--advertise-client-urls", self.etcd_url,
            "--listen-peer-urls", f"http://127.0.0.1:{peer}",
            "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}",
            "--initial-cluster", f"envtest=http://127.0.0.1:{peer}", "--unsafe-no-fsync"])

        def healthy():
            import urllib.request
            with urllib.request.urlopen(f"{self.etcd_url}/health", timeout=2) as r:
                return b'"true"' in r.read()
        self._wait("etcd", healthy, timeout, p)

    def _start_apiserver(self, timeout):
        key, pub = os.path.join(self.dir, "sa.key"), os.path.join(self.dir, "sa.pub")
        subprocess.run(["openssl", "genrsa", "-out", key, "2048"], check=True,
                       capture_output=True)
        subprocess.run(["openssl", "rsa", "-in", key, "-pubout", "-out", pub], check=True,
                       capture_output=True)
        tokens = os.path.join(self.dir, "tokens.csv")
        with open(tokens, "w", encoding="utf-8") as f:
            f.write(f"{self.token},admin,admin,system:masters\n")
        self.port = free_port()
        p = self._spawn("kube-apiserver", [
            os.path.join(self.assets, "kube-apiserver"), f"--etcd-servers={self.etcd_url}",
            f"--cert-dir={os.path.join(self.dir, 'certs')}", "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1", f"--secure-port={self.port}",
            "--service-cluster-ip-range=10.0.0.0/24",
            "--service-account-issuer=https://localhost",
            f"--service-account-key-file={pub}", f"--service-account-signing-key-file={key}",
            "--authorization-mode=RBAC", f"--token-auth-file={tokens}",
            "--allow-privileged=true", "--disable-admission-plugins=ServiceAccount"])
        self._wait("kube-apiserver", lambda: self.get("/readyz").status == 200, timeout, p)

    def _write_kubeconfig(self):
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        with open(self.kubeconfig, "w", encoding="utf-8") as f:
            f.write(f"""apiVersion: v1
kind: Config
clusters:
- name: envtest
  cluster:
    server: https://127.0.0.1:{self.port}
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    token: {self.token}
contexts:
- name: envtest
  context: {{cluster: envtest, user: admin}}
current-context: envtest
""")

    def _start_gc(self, kcm, timeout, jobs=False):
        """kube-controller-manager with the garbage collector (and the Job controller when
        `jobs`), checked by a Foreground deletion that only it can finish."""
        p = self._spawn("kube-controller-manager", [
            kcm, f"--kubeconfig={self.kubeconfig}", "--leader-elect=false",
            "--bind-address=127.0.0.1", "--secure-port=0",
            "--controllers=garbagecollector" + (",job" if jobs else ""), *self.kcm_args])
        ns = "envtest-gc-probe"
        self.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                         "metadata": {"name": ns}})
        cms = f"/api/v1/namespaces/{ns}/configmaps"
        owner = self.post(cms, {"apiVersion": "v1", "kind": "ConfigMap",
                                "metadata": {"name": "owner"}}).json
        ref = {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner",
               "uid": owner["metadata"]["uid"], "blockOwnerDeletion": True}
        self.post(cms, {"apiVersion": "v1", "kind": "ConfigMap",
                        "metadata": {"name": "dep", "ownerReferences": [ref]}})
        self.delete(f"{cms}/owner", {"propagationPolicy": "Foreground"})
        self._wait("kube-controller-manager", lambda: self.get(f"{cms}/owner").status == 404,
                   timeout, p)
        self.has_gc = True

    def _start_scheduler(self, timeout):
        """kube-scheduler, checked by a probe pod it must judge: one whose node selector no
        Node will match, so that it is marked Unschedulable whatever Nodes exist."""
        path = os.path.join(self.assets, "kube-scheduler")
        p = self._spawn("kube-scheduler", [
            path, f"--kubeconfig={self.kubeconfig}", "--leader-elect=false",
            "--bind-address=127.0.0.1", "--secure-port=0"])
        ns = "envtest-scheduler-probe"
        self.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                         "metadata": {"name": ns}})
        pods = f"/api/v1/namespaces/{ns}/pods"
        self.post(pods, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "probe"},
                         "spec": {"nodeSelector": {"envtest.jaxset.dev/probe": "none"},
                                  "containers": [{"name": "c", "image": "none"}]}})

        def judged():
            st = (self.get(f"{pods}/probe").json or {}).get("status") or {}
            return any(c.get("type") == "PodScheduled" and c.get("reason") == "Unschedulable"
                       for c in st.get("conditions") or [])
        self._wait("kube-scheduler", judged, timeout, p)
        self.delete(f"{pods}/probe", {"gracePeriodSeconds": 0})
        self.has_scheduler = True

    def install_crd(self, crd, timeout=30):
        r = self.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
        if r.status not in (201, 409):
            raise RuntimeError(f"installing {crd['metadata']['name']}: {r}")
        group = crd["spec"]["group"]
        version = crd["spec"]["versions"][0]["name"]
        plural = crd["spec"]["names"]["plural"]
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.get(f"/apis/{group}/{version}/{plural}").status == 200:
                return
            time.sleep(0.1)
        raise RuntimeError(f"{plural} not served after {timeout}s")

    # ------------------------------------------------------------------ logs and stop

    def log(self, name="kube-apiserver"):
        if name not in self.logs:
            return ""
        with open(self.logs[name][0], encoding="utf-8", errors="replace") as f:
            return f.read()

    def stop(self):
        for name, p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        for _, f in self.logs.values():
            f.close()
        self.procs = []
        if os.environ.get("JAXSET_KEEP_ENVTEST"):
            print(f"envtest logs kept in {self.dir}")
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


def describe(server):
    """One line naming the server a run used (for the test output)."""
    if server.kind != "kube-apiserver":
        return f"server: jaxset's test API server (tests/kube/apiserver.py), port {server.port}"
    v = server.get("/version").json or {}
    extra = ", kube-scheduler and the Job controller" if server.has_scheduler else ""
    return (f"server: kube-apiserver {v.get('gitVersion', '?')} from {server.assets}"
            f" ({'with' if server.has_gc else 'without'} the garbage collector{extra})")


