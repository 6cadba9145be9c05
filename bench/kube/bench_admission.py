"""Admission latency of pod creations through kube-apiserver with jaxset's pod webhooks, beside
two floors measured in the same run against the same API server (issue: the pod webhook is on
every pod creation of the cluster):

  none     no webhook configuration at all: what a pod creation costs by itself
  noop     a mutating and a validating webhook for pods that answer "allowed" at once (a
           Python HTTPS server: a floor for the round trip kube-apiserver pays per webhook)
  noop-c   the same over jaxset's HTTP and TLS stack (bench/kube/noop_webhook.c, built here
           with cc: libmicrohttpd with GnuTLS, one thread polling with epoll), the floor of
           what jaxset's webhooks cost beyond their round trips
  jaxset   `jaxset controller --enable-webhooks`: its mpod/vpod webhooks (the pods carry
           jobset.sigs.k8s.io/jobset-name, so the objectSelector sends them to jaxset)

At each rate (pods/s, default 50, 200, 1000) the pods are created open-loop by a pool of
client threads for --seconds; each creation's latency (request to response) is kept, and
p50/p99 printed with the rate actually reached.  Needs KUBEBUILDER_ASSETS (etcd and
kube-apiserver); nothing else runs beside it (no scheduler: the pods stay Pending).

  KUBEBUILDER_ASSETS=DIR python3 bench/kube/bench_admission.py [--rates 50,200,1000]
      [--seconds 6] [--threads 32] [--rounds 1] [--bin build/jaxset]"""
import argparse
import base64
import http.client
import http.server
import json
import os
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "tests", "kube"))
import envtest  # noqa: E402

sys.path.insert(0, os.path.join(SRC, "bench"))
import history  # noqa: E402

ADMREG = "/apis/admissionregistration.k8s.io/v1"
MODES = ("none", "noop", "noop-c", "jaxset")
L_JOBSET = "jobset.sigs.k8s.io/jobset-name"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ------------------------------------------------------------------ the no-op webhook

class NoopHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else headers and body wait on delayed ACKs (40 ms)

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        out = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                          "response": {"uid": body["request"]["uid"], "allowed": True}})
        data = out.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *a):
        pass


def noop_server(workdir):
    """A threaded HTTPS no-op webhook on 127.0.0.1: (server, port, CA PEM)."""
    crt, key = os.path.join(workdir, "noop.crt"), os.path.join(workdir, "noop.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", crt, "-days",
                    "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    port = free_port()
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", port), NoopHandler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(crt, key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    with open(crt, encoding="utf-8") as f:
        return srv, port, f.read()


def noop_c_server(workdir):
    """noop_webhook.c built and started with noop_server's certificate: (process, port)."""
    exe = os.path.join(workdir, "noop_webhook")
    subprocess.run(["cc", "-O2", "-Wall", "-o", exe, os.path.join(HERE, "noop_webhook.c"),
                    "-lmicrohttpd"], check=True)
    port = free_port()
    p = subprocess.Popen([exe, str(port), os.path.join(workdir, "noop.crt"),
                          os.path.join(workdir, "noop.key")], stdout=subprocess.PIPE)
    if p.stdout.readline().strip() != b"serving":
        sys.exit("bench_admission.py: noop_webhook did not start")
    return p, port


def noop_configs(port, ca, tag="noop"):
    bundle = base64.b64encode(ca.encode()).decode()

    def hook(name, path):
        return {"name": name, "admissionReviewVersions": ["v1"], "sideEffects": "None",
                "failurePolicy": "Fail", "timeoutSeconds": 10,
                "clientConfig": {"url": f"https://127.0.0.1:{port}{path}", "caBundle": bundle},
                "objectSelector": {"matchExpressions": [{"key": L_JOBSET,
                                                         "operator": "Exists"}]},
                "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                           "resources": ["pods"]}]}
    m = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
         "metadata": {"name": f"bench-{tag}-m"}, "webhooks": [hook(f"m.{tag}.bench", "/m")]}
    v = {"apiVersion": "admissionregistration.k8s.io/v1",
         "kind": "ValidatingWebhookConfiguration",
         "metadata": {"name": f"bench-{tag}-v"}, "webhooks": [hook(f"v.{tag}.bench", "/v")]}
    return m, v


# ------------------------------------------------------------------ the load

class Load:
    """Creates pods open-loop at `rate` for `seconds` from `threads` connections."""

    def __init__(self, server, ns, rate, seconds, threads):
        self.server, self.ns, self.rate = server, ns, rate
        self.n = int(rate * seconds)
        self.lat, self.errors = [], 0
        self.lock = threading.Lock()
        self.next = 0
        self.threads = threads

    def take(self):
        with self.lock:
            if self.next >= self.n:
                return None
            i = self.next
            self.next += 1
            return i

    def worker(self, t0):
        conn = http.client.HTTPSConnection("127.0.0.1", self.server.port,
                                           context=self.server.ctx, timeout=30)
        hdr = {"Authorization": f"Bearer {self.server.token}",
               "Content-Type": "application/json"}
        while (i := self.take()) is not None:
            due = t0 + i / self.rate
            now = time.monotonic()
            if due > now:
                time.sleep(due - now)
            pod = {"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": f"p-{i}", "labels": {L_JOBSET: "bench"}},
                   "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}
            start = time.monotonic()
            try:
                conn.request("POST", f"/api/v1/namespaces/{self.ns}/pods", json.dumps(pod), hdr)
                r = conn.getresponse()
                r.read()
                ok = r.status == 201
            except (OSError, http.client.HTTPException):
                ok = False
                conn.close()
                conn = http.client.HTTPSConnection("127.0.0.1", self.server.port,
                                                   context=self.server.ctx, timeout=30)
            end = time.monotonic()
            with self.lock:
                if ok:
                    self.lat.append((end - start, start - due))
                else:
                    self.errors += 1
        conn.close()

    def run(self):
        t0 = time.monotonic() + 0.05
        ts = [threading.Thread(target=self.worker, args=(t0,)) for _ in range(self.threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        took = time.monotonic() - t0
        lat = sorted(x[0] for x in self.lat)
        late = sorted(x[1] for x in self.lat)

        def pct(v, q):
            return v[min(len(v) - 1, int(q * len(v)))] * 1000 if v else float("nan")
        return {"p50": pct(lat, 0.5), "p99": pct(lat, 0.99), "reached": len(lat) / took,
                "errors": self.errors, "late_p50": pct(late, 0.5)}


def med(xs):
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] + xs[(n - 1) // 2]) / 2 if xs else float("nan")


def namespace(server, name):
    server.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                       "metadata": {"name": name}})
    return name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rates", default="50,200,1000")
    ap.add_argument("--seconds", type=float, default=6)
    ap.add_argument("--threads", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=1,
                    help="interleaved rounds of every rate and mode; medians printed, and the "
                         "p99 differences taken within a round")
    ap.add_argument("--bin", default=os.path.join(SRC, "build", "jaxset"))
    ap.add_argument("--save", action="store_true",
                    help="write the figures to bench/history/ as JSON (bench/history.py)")
    a = ap.parse_args()
    hist = history.History("admission", [x for x in sys.argv[1:] if x != "--save"]) \
        if a.save else None
    assets = envtest.assets_dir()
    if not assets:
        sys.exit("bench_admission.py: KUBEBUILDER_ASSETS must name etcd and kube-apiserver")
    work = tempfile.mkdtemp(prefix="jaxset-bench-adm-")
    from ctltest import crd
    server = envtest.KubeAPIServer(assets, crds=[crd()], gc=False)
    noop, noop_port, noop_ca = noop_server(work)
    noop_c, noop_c_port = noop_c_server(work)
    ctl, log = None, open(os.path.join(work, "controller.log"), "w")
    results = {}
    try:
        wport = free_port()
        names = ("jaxset-mutating-webhook-configuration",
                 "jaxset-validating-webhook-configuration")
        kinds = ("mutatingwebhookconfigurations", "validatingwebhookconfigurations")
        m_noop, v_noop = noop_configs(noop_port, noop_ca)
        m_noopc, v_noopc = noop_configs(noop_c_port, noop_ca, "noop-c")
        rates = [float(x) for x in a.rates.split(",")]
        round_no = 0

        def set_mode(mode):
            nonlocal ctl
            for k, n in zip(kinds, names):
                server.delete(f"{ADMREG}/{k}/{n}")
            for tag in ("noop", "noop-c"):
                server.delete(f"{ADMREG}/mutatingwebhookconfigurations/bench-{tag}-m")
                server.delete(f"{ADMREG}/validatingwebhookconfigurations/bench-{tag}-v")
            if ctl and ctl.poll() is None:
                ctl.terminate()
                ctl.wait(10)
            if mode in ("noop", "noop-c"):
                m, v = (m_noop, v_noop) if mode == "noop" else (m_noopc, v_noopc)
                server.post(f"{ADMREG}/mutatingwebhookconfigurations", m)
                server.post(f"{ADMREG}/validatingwebhookconfigurations", v)
            if mode == "jaxset":
                ctl = subprocess.Popen(
                    [a.bin, "controller", "--kubeconfig", server.kubeconfig,
                     "--metrics-bind-address", "0", "--health-probe-bind-address", "0",
                     "--enable-webhooks", "--webhook-port", str(wport), "--webhook-host",
                     "127.0.0.1", "--webhook-url-base", f"https://127.0.0.1:{wport}",
                     "--webhook-secret-namespace", "default"],
                    stdout=log, stderr=subprocess.STDOUT)
                end = time.monotonic() + 30
                while time.monotonic() < end and any(
                        server.get(f"{ADMREG}/{k}/{n}").status != 200
                        for k, n in zip(kinds, names)):
                    time.sleep(0.2)
            time.sleep(2)  # kube-apiserver's webhook configuration cache catches up

        for _ in range(a.rounds):
            for rate in rates:
                for mode in MODES:  # interleaved, per rate
                    set_mode(mode)
                    round_no += 1
                    ns = namespace(server, f"adm-{round_no}")
                    results.setdefault((rate, mode), []).append(
                        Load(server, ns, rate, a.seconds, a.threads).run())
                    # the pods first: no namespace controller runs here, and pods left
                    # over from earlier rounds (40,000 a round at these rates) made the
                    # controller's list of them, and so its start, take minutes
                    try:
                        server.delete(f"/api/v1/namespaces/{ns}/pods")
                    except TimeoutError:  # 10,000 pods outlast the client; the server goes on
                        pass
                    server.delete(f"/api/v1/namespaces/{ns}")
        print(f"kube-apiserver {envtest.describe(server)}; {a.seconds:g} s per rate, "
              f"{a.threads} client connections; latency of each pod creation (ms)"
              + (f"; medians of {a.rounds} interleaved rounds (range)" if a.rounds > 1 else ""))
        print(f"{'rate/s':>7} {'mode':7} {'reached/s':>9} {'p50':>7} {'p99':>7} {'errors':>6}"
              + ("  p99 range" if a.rounds > 1 else ""))
        for rate in rates:
            for mode in MODES:
                rs = results[(rate, mode)]
                r = {k: med([x[k] for x in rs]) for k in ("reached", "p50", "p99")}
                rng = f"  {min(x['p99'] for x in rs):.2f}-{max(x['p99'] for x in rs):.2f}" \
                    if a.rounds > 1 else ""
                print(f"{rate:7.0f} {mode:7} {r['reached']:9.1f} {r['p50']:7.2f} {r['p99']:7.2f} "
                      f"{sum(x['errors'] for x in rs):6d}{rng}")
            # the differences of the same round (the modes of one rate run one after the
            # other), their median over the rounds
            base, jx, nop, nopc = (results[(rate, m)]
                                   for m in ("none", "jaxset", "noop", "noop-c"))

            def diff(x, y, q):
                return med([xi[q] - yi[q] for xi, yi in zip(x, y)])
            over_c = [xi["p99"] - yi["p99"] for xi, yi in zip(jx, nopc)]
            print(f"{'':7} jaxset adds p50 {diff(jx, base, 'p50'):+.2f} ms, p99 "
                  f"{diff(jx, base, 'p99'):+.2f} ms over none; p99 {diff(jx, nop, 'p99'):+.2f}"
                  f" ms over noop, {diff(jx, nopc, 'p99'):+.2f} ms over noop-c (p50 "
                  f"{diff(jx, nopc, 'p50'):+.2f})"
                  + (f"; p99 over noop-c by round: {' '.join(f'{d:+.2f}' for d in over_c)}"
                     if a.rounds > 1 else ""))
            for mode in MODES:
                if hist:  # latencies are load-sensitive "time" rows, read beside "none"
                    for q in ("p50", "p99"):
                        hist.record(f"admission/{rate:.0f}/{mode}/{q}", "time", "ms",
                                    [x[q] for x in results[(rate, mode)]])
            if hist:
                hist.record(f"admission/{rate:.0f}/jaxset-p99-added", "time", "ms",
                            [xi["p99"] - yi["p99"] for xi, yi in
                             zip(results[(rate, "jaxset")], results[(rate, "none")])])
                hist.record(f"admission/{rate:.0f}/jaxset-p99-over-noop-c", "time", "ms",
                            over_c)
        if hist:
            print(f"bench history: {hist.save()}")
    finally:
        if ctl and ctl.poll() is None:
            ctl.terminate()
            ctl.wait(10)
        noop.shutdown()
        noop_c.kill()
        server.stop()
        log.close()


if __name__ == "__main__":
    main()
