"""The kubelet stand-in of kubelet.py, running the pods bound to its Nodes for real: each
container's command and args run as a local process group (its literal env, and the
downward-API fields metadata.name/namespace/labels/annotations, status.podIP resolved from the
pod), its output kept as the container's log; the pod is Running while they run, then
Succeeded when every container exited 0, else Failed (restartPolicy Never) or the failed
container runs again (OnFailure/Always, restartCount counted, at most MAX_RESTARTS times).
A deleted pod's processes get SIGTERM, then SIGKILL, before kubelet.py removes the pod.

Its logs are served as a kubelet serves them to kube-apiserver: the Nodes it registers carry
the address 127.0.0.1 and the port of an HTTPS server (a self-signed certificate made by the
openssl CLI; kube-apiserver started without --kubelet-certificate-authority does not verify
it) answering `GET /containerLogs/{namespace}/{pod}/{container}` (with `follow`,
`tailLines`), so `kubectl logs` and clients' read_namespaced_pod_log work on a real
kube-apiserver. The commands must run on this machine: images are ignored."""
import http.server
import os
import shutil
import signal
import socketserver
import ssl
import subprocess
import tempfile
import threading
import time
import urllib.parse

from kubelet import Kubelet, cond, container_states, now

MAX_RESTARTS = 3


def field_value(pod, path):
    """A downward-API fieldPath of the pod, or None for one not resolved here."""
    m = pod["metadata"]
    simple = {"metadata.name": m.get("name"), "metadata.namespace": m.get("namespace"),
              "metadata.uid": m.get("uid"), "status.podIP": "127.0.0.1",
              "status.hostIP": "127.0.0.1", "spec.nodeName": pod["spec"].get("nodeName")}
    if path in simple:
        return simple[path]
    for key in ("labels", "annotations"):
        pre = f"metadata.{key}['"
        if path.startswith(pre) and path.endswith("']"):
            return (m.get(key) or {}).get(path[len(pre):-2])
    return None


def container_env(pod, c):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp",
           "HOSTNAME": pod["metadata"]["name"]}
    for e in c.get("env") or []:
        ref = ((e.get("valueFrom") or {}).get("fieldRef") or {}).get("fieldPath")
        v = e.get("value") if ref is None else field_value(pod, ref)
        if v is not None:
            env[e["name"]] = v
    return env


class Container:
    """One container's process and log."""

    def __init__(self, pod, spec, workdir):
        self.pod, self.spec = pod, spec
        self.log_path = os.path.join(workdir, f"{spec['name']}.log")
        open(self.log_path, "w", encoding="utf-8").close()
        self.workdir = workdir
        self.proc = None
        self.restarts = 0
        self.exit_code = None

    def start(self):
        argv = list(self.spec.get("command") or []) + list(self.spec.get("args") or [])
        self.exit_code = None
        with open(self.log_path, "a", encoding="utf-8") as log:
            self.proc = subprocess.Popen(argv or ["true"], stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, cwd=self.workdir,
                                         env=container_env(self.pod, self.spec),
                                         start_new_session=True)

    def kill(self):
        p = self.proc
        if p is None or p.poll() is not None:
            return
        for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                return
            try:
                p.wait(grace)
                return
            except subprocess.TimeoutExpired:
                continue


class PodRunner(Kubelet):
    def __init__(self, server, workers=16):
        super().__init__(server, run_pods=True, workers=workers)
        self.dir = tempfile.mkdtemp(prefix="jaxset-pods-")
        self.pods = {}  # uid -> [Container]
        self.names = {}  # (namespace, pod name) -> uid, the newest
        self.log_server = LogServer(self)

    # ------------------------------------------------------------------ Nodes and logs

    def add_node(self, name, labels=None, taints=None, **capacity):
        node = super().add_node(name, labels, taints, **capacity)
        st = {"addresses": [{"type": "InternalIP", "address": "127.0.0.1"}],
              "daemonEndpoints": {"kubeletEndpoint": {"Port": self.log_server.port}}}
        r = self.server.patch(f"/api/v1/nodes/{name}/status", {"status": st})
        if r.status != 200:
            raise AssertionError(f"node {name}'s addresses: {r}")
        return node

    def log_of(self, ns, pod, container):
        with self.lock:
            uid = self.names.get((ns, pod))
            cs = self.pods.get(uid) or []
        for c in cs:
            if container in (None, c.spec["name"]):
                return c
        return None

    # ------------------------------------------------------------------ pods

    def run(self, pod):
        m = pod["metadata"]
        workdir = os.path.join(self.dir, m["namespace"], m["name"])
        os.makedirs(workdir, exist_ok=True)
        cs = [Container(pod, c, workdir) for c in pod["spec"].get("containers") or []]
        with self.lock:
            self.pods[m["uid"]] = cs
            self.names[(m["namespace"], m["name"])] = m["uid"]
        for c in cs:
            c.start()
        super().run(pod)
        threading.Thread(target=self._guarded, args=(self._supervise, pod),
                         name=f"pod {m['name']}", daemon=True).start()

    def _supervise(self, pod):
        uid = pod["metadata"]["uid"]
        policy = pod["spec"].get("restartPolicy", "Always")
        while not self.stopping.is_set():
            with self.lock:
                cs = self.pods.get(uid)
                removing = uid in self.removing
            if cs is None or removing:
                return
            for c in cs:
                if c.exit_code is None and c.proc.poll() is not None:
                    c.exit_code = c.proc.returncode
                    if c.exit_code != 0 and policy != "Never" and c.restarts < MAX_RESTARTS:
                        c.restarts += 1
                        c.start()
                        self._restarted(pod, cs)
            if all(c.exit_code is not None for c in cs):
                self._ended(pod, cs)
                return
            time.sleep(0.05)

    def _restarted(self, pod, cs):
        st = container_states(pod, {"running": {"startedAt": now()}})
        for s, c in zip(st, cs):
            s["restartCount"] = c.restarts
        self._status(pod, {"containerStatuses": st})

    def _ended(self, pod, cs):
        ok = all(c.exit_code == 0 for c in cs)
        st = container_states(pod, {})
        for s, c in zip(st, cs):
            s["state"] = {"terminated": {"exitCode": c.exit_code,
                                         "reason": "Completed" if c.exit_code == 0 else "Error",
                                         "finishedAt": now()}}
            s["restartCount"] = c.restarts
        reason = "PodCompleted" if ok else "PodFailed"
        self._status(pod, {"phase": "Succeeded" if ok else "Failed",
                           "conditions": [cond("ContainersReady", "False", reason),
                                          cond("Ready", "False", reason)],
                           "containerStatuses": st})

    def remove(self, pod):
        with self.lock:
            cs = self.pods.get(pod["metadata"]["uid"]) or []
        for c in cs:
            c.kill()
        return super().remove(pod)

    def start(self):
        self.log_server.start()
        return super().start()

    def stop(self):
        super().stop()
        with self.lock:
            every = [c for cs in self.pods.values() for c in cs]
        for c in every:
            c.kill()
        self.log_server.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------------- the log endpoint


class LogHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):  # noqa: N802 - http.server's name
        url = urllib.parse.urlsplit(self.path)
        parts = url.path.strip("/").split("/")
        if len(parts) != 4 or parts[0] != "containerLogs":
            return self._reply(404, f"no such path {url.path}\n")
        q = urllib.parse.parse_qs(url.query)
        c = self.server.runner.log_of(parts[1], parts[2], parts[3])
        if c is None:
            return self._reply(404, f"container {parts[3]} of {parts[1]}/{parts[2]} not found\n")
        with open(c.log_path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        tail = q.get("tailLines", [None])[0]
        if tail is not None:
            lines = text.splitlines(keepends=True)
            text = "".join(lines[-int(tail):]) if int(tail) else ""
        if q.get("follow", ["false"])[0] != "true":
            return self._reply(200, text)
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self._follow(c, text)

    def _follow(self, c, text):
        with open(c.log_path, encoding="utf-8", errors="replace") as f:
            f.seek(0, os.SEEK_END)
            while True:
                if text:
                    data = text.encode()
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                    self.wfile.flush()
                done = c.proc is None or c.proc.poll() is not None
                text = f.read()
                if done and not text:
                    break
                if not text:
                    time.sleep(0.05)
        self.wfile.write(b"0\r\n\r\n")

    def _reply(self, code, text):
        data = text.encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class LogServer(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

    def __init__(self, runner):
        super().__init__(("127.0.0.1", 0), LogHandler)
        self.runner = runner
        self.port = self.server_address[1]
        key, crt = os.path.join(runner.dir, "kubelet.key"), os.path.join(runner.dir, "kubelet.crt")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                        key, "-out", crt, "-days", "1", "-subj", "/CN=127.0.0.1"],
                       check=True, capture_output=True)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(crt, key)
        self.socket = ctx.wrap_socket(self.socket, server_side=True)
        self.thread = None

    def start(self):
        self.thread = threading.Thread(target=self.serve_forever, name="kubelet logs",
                                       daemon=True)
        self.thread.start()

    def stop(self):
        self.shutdown()
        self.server_close()
