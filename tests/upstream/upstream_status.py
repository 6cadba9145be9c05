"""The "status" cases of tests/upstream (Kubeflow Trainer's status server, pkg/statusserver and
test/integration/statusserver): each case runs its TrainJob locally (`jaxset run`, whose
`jaxset statusserver` serves the endpoint for it), sends the case's requests in order to the
URL, CA and token the run gives its trainer pods, and compares each answer (HTTP code, the
metav1.Status fields or the echoed body) and the TrainJob's status.trainerStatus after it, as
`jaxset get trainjob/NAME -o json` shows it, with upstream's expectations.

A request: "body" (a string, or JSON), "auth" ("Bearer {token}" with the run's token put in,
default; or any other header value; null: no header), "path" (default: the run's own route;
{ns} and {name} are the run's), "chunked" (no Content-Length), and the expectations "code",
"status" (the metav1.Status fields that must match), "echo" (the body of a 200),
"message_has" (substrings of the message), "trainer_status" (the TrainJob's afterwards: an
object, or null for none)."""
import http.client
import json
import os
import ssl
import subprocess
import tempfile
import time
import urllib.parse

RUNTIME = {
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
    "metadata": {"name": "jax-distributed"},
    "spec": {"mlPolicy": {"numNodes": 1, "jax": {}}, "template": {"spec": {"replicatedJobs": [{
        "name": "node",
        "template": {"metadata": {"labels": {
            "trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
            "spec": {"template": {"spec": {"containers": [{"name": "node"}]}}}}}]}}}}


def trainjob(name, ns):
    """A TrainJob whose one trainer pod keeps running until the case is over."""
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"runtimeRef": {"name": "jax-distributed"}, "trainer": {
                "numNodes": 1, "command": ["sh", "-c", "sleep 60"]}}}


def wait_for(fn, what, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(0.05)
    raise TimeoutError(what)


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


class LocalRun:
    """`jaxset run` of one TrainJob in its own run directory, until close()."""

    def __init__(self, bin_path, d, name, ns):
        self.bin, self.dir, self.name = bin_path, os.path.join(d, "run"), name
        path = os.path.join(d, "job.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(RUNTIME) + "\n---\n" + json.dumps(trainjob(name, ns)) + "\n")
        self.home = os.path.join(d, "home")
        self.env = dict(os.environ, JAXSET_HOME=self.home)
        self.p = subprocess.Popen([bin_path, "run", "-q", "--run-dir", self.dir, path],
                                  env=self.env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        run = wait_for(lambda: (read_json(os.path.join(self.dir, "run.json")) or {})
                       .get("statusServer"), "the run's status server")
        self.url = urllib.parse.urlsplit(run["url"])
        with open(os.path.join(run["dir"], "token"), encoding="utf-8") as f:
            self.token = f.read().strip()
        self.ctx = ssl.create_default_context(cafile=os.path.join(run["dir"], "ca.crt"))

    def post(self, path, body, auth, chunked):
        c = http.client.HTTPSConnection(self.url.hostname, self.url.port, context=self.ctx,
                                        timeout=20)
        headers = {"Content-Type": "application/json"}
        if auth is not None:
            headers["Authorization"] = auth.replace("{token}", self.token)
        data = body.encode()
        if chunked:
            headers["Transfer-Encoding"] = "chunked"
            data = iter([data[i:i + 8192] for i in range(0, len(data), 8192)])
        c.request("POST", path, body=data, headers=headers, encode_chunked=chunked)
        r = c.getresponse()
        out = r.status, r.read().decode()
        c.close()
        return out

    def trainer_status(self):
        p = subprocess.run([self.bin, "get", f"trainjob/{self.name}", "-o", "json"],
                           env=self.env, capture_output=True, text=True, timeout=30)
        if p.returncode != 0:
            raise RuntimeError(p.stderr)
        return json.loads(p.stdout).get("status", {}).get("trainerStatus")

    def close(self):
        self.p.terminate()
        try:
            self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def body_text(req):
    b = req.get("body", "")
    return b if isinstance(b, str) else json.dumps(b)


def check_answer(req, code, text, problems, i):
    if code != req["code"]:
        problems.append(f"request {i}: code {code}, want {req['code']}: {text.strip()}")
        return
    try:
        got = json.loads(text)
    except ValueError:
        problems.append(f"request {i}: not JSON: {text!r}")
        return
    for k, v in req.get("status", {}).items():
        if got.get(k) != v:
            problems.append(f"request {i}: {k} {got.get(k)!r}, want {v!r}")
    if "echo" in req and got != req["echo"]:
        problems.append(f"request {i}: answered {got}, want {req['echo']}")
    for s in req.get("message_has", []):
        if s not in got.get("message", ""):
            problems.append(f"request {i}: message {got.get('message')!r} lacks {s!r}")


def check_kept(run, want, problems, i):
    """The TrainJob's trainerStatus comes to be `want` within 5 s (the run writes its state at
    most every 200 ms), and stays so for the last 0.5 s of it (upstream's Consistently)."""
    deadline, same_since, got = time.monotonic() + 5, None, None
    while time.monotonic() < deadline:
        got = run.trainer_status()
        same_since = (same_since or time.monotonic()) if got == want else None
        if same_since and time.monotonic() - same_since >= 0.5:
            return
        time.sleep(0.1)
    problems.append(f"request {i}: trainerStatus {got}, want {want}")


def run_status(bin_path, case):
    """The case's problems (empty: it passed)."""
    ns, name = case.get("namespace", "default"), case.get("trainjob", "test-job")
    problems = []
    with tempfile.TemporaryDirectory() as d:
        run = LocalRun(bin_path, d, name, ns)
        try:
            own = run.url.path
            for i, req in enumerate(case["requests"]):
                path = req.get("path", own).replace("{ns}", ns).replace("{name}", name)
                code, text = run.post(path, body_text(req), req.get("auth", "Bearer {token}"),
                                      req.get("chunked", False))
                check_answer(req, code, text, problems, i)
                if "trainer_status" in req:
                    check_kept(run, req["trainer_status"], problems, i)
        finally:
            run.close()
    return problems
