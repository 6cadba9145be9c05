"""Harness for tests against an API server: start the test API server (tests/kube/apiserver.py)
on loopback, talk to it with raw HTTP (http.client), read watch streams, run kubectl, and
count passes and failures ('N passed, N failed')."""
import http.client
import json
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "apiserver.py")
SRC = os.path.abspath(os.environ.get("JAXSET_SRC", os.path.join(HERE, "..", "..")))


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.raw = body
        try:
            self.json = json.loads(body) if body else None
        except ValueError:
            self.json = None

    def warnings(self):
        return [v for k, v in self.headers if k.lower() == "warning"]

    def header(self, name):
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return None

    def __repr__(self):
        return f"<{self.status} {self.raw[:400]!r}>"


class Client:
    """HTTP verbs against an API server: a subclass sets port, tls, ctx (an ssl context or
    None) and token."""

    port = 0
    tls = False
    ctx = None
    token = None
    kind = "server"

    def connection(self, timeout=30):
        if self.tls:
            return http.client.HTTPSConnection("127.0.0.1", self.port, timeout=timeout,
                                               context=self.ctx)
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, path, body=None, ctype="application/json", headers=None,
                token=None):
        conn = self.connection()
        h = dict(headers or {})
        data = None
        if body is not None:
            data = body if isinstance(body, (bytes, str)) else json.dumps(body)
            h["Content-Type"] = ctype
        tok = token if token is not None else self.token
        if tok:
            h["Authorization"] = f"Bearer {tok}"
        try:
            conn.request(method, path, body=data, headers=h)
            r = conn.getresponse()
            return Response(r.status, r.getheaders(), r.read())
        finally:
            conn.close()

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body, **kw):
        return self.request("POST", path, body, **kw)

    def put(self, path, body, **kw):
        return self.request("PUT", path, body, **kw)

    def patch(self, path, body, ctype="application/merge-patch+json", **kw):
        return self.request("PATCH", path, body, ctype=ctype, **kw)

    def delete(self, path, body=None, **kw):
        return self.request("DELETE", path, body, **kw)

    def watch(self, path, timeout=10):
        return Watch(self, path, timeout)


class Server(Client):
    """One test API server process (tests/kube/apiserver.py)."""

    kind = "testapi"
    has_gc = True     # its garbage collector runs unless --no-controllers
    has_admin = True  # /__admin: faults, watches, stats

    def __init__(self, *args):
        self.dir = tempfile.mkdtemp(prefix="jaxset-kube-")
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        if "--tls" in args:
            args = (*args, "--cert-dir", self.dir)
        # The server's stderr goes to a file: a pipe nobody reads would block it when full.
        self.stderr_path = os.path.join(self.dir, "stderr")
        self.stderr = open(self.stderr_path, "w", encoding="utf-8")
        self.proc = subprocess.Popen([sys.executable, SERVER, "--port", "0", "--print-port",
                                      "--kubeconfig", self.kubeconfig, *args],
                                     stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        line = self.proc.stdout.readline()
        if not line.strip().isdigit():
            raise RuntimeError(f"the test API server did not start: {line!r} {self.log()}")
        self.port = int(line)
        self.has_gc = "--no-controllers" not in args
        self.tls = "--tls" in args
        self.token = None
        if "--token" in args:
            self.token = args[list(args).index("--token") + 1]
        self.ctx = None
        if self.tls:
            self.ctx = ssl.create_default_context(cafile=os.path.join(self.dir, "server.crt"))

    def admin(self, what, body=None, method="POST"):
        return self.request(method, f"/__admin/{what}", body)

    def pod_log(self, ns, pod, text="", container=None, close=False, restart=False):
        """Appends lines to a pod container's log (what GET .../pods/NAME/log serves):
        `container` defaults to the pod's first; `restart` first moves the log to the
        previous instance (previous=true); `close` ends follow streams once they sent it.
        Returns the admin answer ({"container", "lines", "total", "closed"})."""
        body = {"namespace": ns, "pod": pod, "text": text}
        if container is not None:
            body["container"] = container
        if close:
            body["close"] = True
        if restart:
            body["restart"] = True
        r = self.admin("podlogs", body)
        if r.status != 200:
            raise AssertionError(f"podlogs {ns}/{pod}: {r}")
        return r.json

    def settle(self):
        r = self.get("/__admin/settle?timeout=10")
        assert r.status == 200, r

    def log(self):
        """What the server wrote on stderr so far."""
        with open(self.stderr_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self.stderr.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Watch:
    """A watch stream, read one event (line) at a time."""

    def __init__(self, server, path, timeout):
        self.conn = server.connection(timeout)
        h = {"Authorization": f"Bearer {server.token}"} if server.token else {}
        self.conn.request("GET", path, headers=h)
        self.resp = self.conn.getresponse()
        self.status = self.resp.status
        self.headers = self.resp.getheaders()

    def next(self):
        """The next event as a dict, or None at the end of the stream."""
        line = self.resp.readline()
        if not line:
            return None
        return json.loads(line)

    def until(self, pred, limit=100):
        """Events up to and including the first for which pred(event) holds."""
        seen = []
        for _ in range(limit):
            ev = self.next()
            if ev is None:
                raise AssertionError(f"watch ended before the expected event; saw {seen}")
            seen.append(ev)
            if pred(ev):
                return seen
        raise AssertionError(f"no expected event in {limit}: {seen}")

    def close(self):
        self.conn.close()


def q(**params):
    return "?" + urllib.parse.urlencode(params)


def wait_for(cond, timeout=5, what="condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def check(cond, msg="check failed"):
    if not cond:
        raise AssertionError(msg)


def expect(resp, status, what=""):
    if resp.status != status:
        raise AssertionError(f"{what}: expected HTTP {status}, got {resp.status}: "
                             f"{resp.raw[:600]!r}")
    return resp.json


class Skip(Exception):
    """Raised by a test that cannot run here (what it needs is missing); main() reports it
    as skipped with the message."""


TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def main(setup=None, teardown=None, on_failure=None, before_each=None):
    """Runs the tests (those named on the command line, else all); before_each(ctx, name)
    is called before each, on_failure(ctx, name) after one failed (to print a log)."""
    only = sys.argv[1:] or None
    passed = failed = skipped = 0
    ctx = setup() if setup else None
    try:
        for fn in TESTS:
            if only and fn.__name__ not in only:
                continue
            t0 = time.monotonic()
            if before_each:
                before_each(ctx, fn.__name__)
            try:
                fn(ctx) if setup else fn()
                passed += 1
                print(f"ok   {fn.__name__} ({time.monotonic() - t0:.2f}s)", flush=True)
            except Skip as e:
                skipped += 1
                print(f"skip {fn.__name__}: {e}", flush=True)
            except Exception as e:  # noqa: BLE001 - report every failure and go on
                failed += 1
                import traceback
                print(f"FAIL {fn.__name__}: {e}", flush=True)
                traceback.print_exc()
                if on_failure:
                    on_failure(ctx, fn.__name__)
    finally:
        if teardown:
            teardown(ctx)
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    sys.exit(1 if failed or not passed else 0)
