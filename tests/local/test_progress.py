"""Training progress on one machine (docs/local.md, "Training progress"): Kubeflow Trainer's
status endpoint (TrainJobStatus) served for a local run by `jaxset statusserver`:

- a TrainJob's trainer reports progress, an ETA and a metric with the variables Trainer gives
  it; the report is the TrainJob's status.trainerStatus in `get trainjob/NAME -o json`, the
  PROGRESS column of `get`, `describe`'s Trainer Status and run.json, and the live line;
- a wrong token is refused 403 with Trainer's metav1.Status and changes nothing; a body past
  64 KiB without a Content-Length (chunked) is 422, as http.MaxBytesReader cuts it upstream;
- only the trainer's containers get the variables: not an initContainer, not an initializer;
  a JobSet gets them with the annotation jaxset.dev/trainer-status: "true" only, a TrainJob
  loses them with "false";
- `get -w` shows the progress as it changes;
- SIGKILL of jaxset leaves no status server behind.
The upstream tables of the endpoint (tests/upstream/trainer/*statusserver*) run through the same
server."""
import http.client
import json
import os
import signal
import ssl
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(__file__))
from localtest import BIN, Run, main, marked_pids, test, wait_for  # noqa: E402

RUNTIME = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: jax-distributed
spec:
  mlPolicy:
    numNodes: 1
    jax: {}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata:
            labels:
              trainer.kubeflow.org/trainjob-ancestor-step: trainer
          spec:
            template:
              spec:
                initContainers:
                - name: prep
                  command: ["sh", "-c", "env | grep KUBEFLOW_TRAINER_ > /dev/null && exit 3; exit 0"]
                containers:
                - name: node
"""

# What a training script does with Trainer's variables (docs/user-guides/trainjob-progress.md,
# "Raw HTTP"): process 0 reports twice, then waits for the file the test writes.
REPORTER = r"""
import json, os, ssl, sys, time, urllib.request
url = os.environ["KUBEFLOW_TRAINER_SERVER_URL"]
ctx = ssl.create_default_context(cafile=os.environ["KUBEFLOW_TRAINER_SERVER_CA_CERT"])
token = open(os.environ["KUBEFLOW_TRAINER_SERVER_TOKEN"]).read().strip()
def report(pct, loss):
    body = {"trainerStatus": {"progressPercentage": pct, "estimatedRemainingSeconds": 90,
            "metrics": [{"name": "loss", "value": loss}],
            "lastUpdatedTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}}
    req = urllib.request.Request(url, json.dumps(body).encode(),
                                 {"Authorization": "Bearer " + token})
    return json.load(urllib.request.urlopen(req, context=ctx, timeout=10))
if os.environ["JAX_PROCESS_ID"] == "0":
    report(10, "2.5")
    print("echo", json.dumps(report(45, "0.2347")), flush=True)
while not os.path.exists(sys.argv[1]):
    time.sleep(0.05)
"""


def trainjob(name, command, nodes=2, annotations=""):
    return f"""{RUNTIME}---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
{annotations}spec:
  runtimeRef:
    name: jax-distributed
  trainer:
    numNodes: {nodes}
    command: {json.dumps(command)}
"""


def jaxset(r, *args):
    p = subprocess.run([BIN, *args], env=r.env, capture_output=True, text=True, timeout=30)
    return p.returncode, p.stdout, p.stderr


def run_json(r, name):
    try:
        with open(os.path.join(r.run_dir(name), "run.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def trainer_status(r, name):
    """The TrainJob's status.trainerStatus; None before the run is recorded."""
    rc, out, _ = jaxset(r, "get", f"trainjob/{name}", "-o", "json")
    return json.loads(out).get("status", {}).get("trainerStatus") if rc == 0 else None


def reporter_run(name, *args):
    script = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"jx-report-{os.getpid()}.py")
    with open(script, "w", encoding="utf-8") as f:
        f.write(REPORTER)
    r = Run("", *args)
    done = os.path.join(r.home, "done")
    with open(r.path, "w", encoding="utf-8") as f:
        f.write(trainjob(name, ["python3", script, done]))
    return r, done


@test
def a_report_is_the_trainjobs_trainer_status_everywhere():
    r, done = reporter_run("prog")
    r.start()
    try:
        want = {"progressPercentage": 45, "estimatedRemainingSeconds": 90,
                "metrics": [{"name": "loss", "value": "0.2347"}]}
        got = wait_for(lambda: (lambda ts: ts if ts and ts.get("progressPercentage") == 45
                                else None)(trainer_status(r, "prog")), 30,
                       "the second report")
        assert {k: got[k] for k in want} == want and got["lastUpdatedTime"].endswith("Z"), got
        rc, out, _ = jaxset(r, "get")
        head, row = out.splitlines()[0].split(), out.splitlines()[1].split()
        assert head[-1] == "PROGRESS" and row[0] == "prog" and row[-1] == "45%", out
        rc, out, _ = jaxset(r, "describe", "trainjob/prog")
        assert rc == 0 and "Trainer Status:" in out and "Progress Percentage:          45" in out
        assert "Estimated Remaining Seconds:  90" in out and "loss  0.2347" in out, out
        assert run_json(r, "prog")["trainerStatus"] == got
        open(done, "w").close()
        r.wait(60)
        assert r.rc == 0, r.describe()
        assert 'echo {"trainerStatus": {"progressPercentage": 45' in r.out, r.describe()
        assert trainer_status(r, "prog") == got  # kept once the run is over
    finally:
        open(done, "w").close()
        if r.proc.poll() is None:
            r.proc.kill()
            r.proc.wait()


def post(url, ca, token, body, headers=None):
    u = urllib.parse.urlsplit(url)
    c = http.client.HTTPSConnection(u.hostname, u.port,
                                    context=ssl.create_default_context(cafile=ca), timeout=10)
    h = {"Authorization": f"Bearer {token}", **(headers or {})}
    chunked = h.get("Transfer-Encoding") == "chunked"
    data = iter([body[i:i + 4096] for i in range(0, len(body), 4096)]) if chunked else body
    c.request("POST", u.path, body=data, headers=h, encode_chunked=chunked)
    resp = c.getresponse()
    out = resp.status, json.loads(resp.read())
    c.close()
    return out


@test
def a_wrong_token_is_refused_with_trainers_code():
    r = Run(trainjob("guard", ["sleep", "60"], nodes=1))
    r.start()
    try:
        srv = wait_for(lambda: run_json(r, "guard").get("statusServer"), 30, "the server")
        ca = os.path.join(srv["dir"], "ca.crt")
        with open(os.path.join(srv["dir"], "token"), encoding="utf-8") as f:
            token = f.read().strip()
        assert len(token) == 64, token
        ok = {"trainerStatus": {"progressPercentage": 5,
                                "lastUpdatedTime": "2026-12-03T10:00:00Z"}}
        code, body = post(srv["url"], ca, token[::-1], json.dumps(ok).encode())
        assert (code, body) == (403, {"status": "Failure", "message": "Forbidden",
                                      "reason": "Forbidden", "code": 403}), (code, body)
        big = json.dumps({"trainerStatus": {"metrics": [{"name": "m", "value": "1"}] * 5000}})
        code, body = post(srv["url"], ca, token, big.encode(),
                          {"Transfer-Encoding": "chunked"})
        assert (code, body["message"]) == (422, "Invalid payload"), (code, body)
        time.sleep(0.5)  # two state writes: nothing was kept
        assert trainer_status(r, "guard") is None
        code, body = post(srv["url"], ca, token, json.dumps(ok).encode())
        assert code == 200 and body == ok, (code, body)
        wait_for(lambda: trainer_status(r, "guard") == ok["trainerStatus"], 10, "the report")
    finally:
        r.proc.send_signal(signal.SIGTERM)
        r.wait(30)


def env_of(r):
    """What the trainer printed of its KUBEFLOW_TRAINER_ variables, by process id."""
    out = {}
    for line in r.out.splitlines():
        if "KUBEFLOW_TRAINER_" in line:
            out.setdefault(line.split("]")[0].lstrip("["), []).append(line.split("] ", 1)[1])
    return out


@test
def only_trainer_containers_get_the_variables():
    r = Run(trainjob("envs", ["sh", "-c", "env | grep ^KUBEFLOW_TRAINER_ | sort"], nodes=1))
    r.run(60)
    assert r.rc == 0, r.describe()  # the initContainer exits 3 if it has them
    lines = env_of(r)["envs-node-0-0/node"]
    d = run_json(r, "envs")
    assert [x.split("=")[0] for x in lines] == [
        "KUBEFLOW_TRAINER_SERVER_CA_CERT", "KUBEFLOW_TRAINER_SERVER_TOKEN",
        "KUBEFLOW_TRAINER_SERVER_URL"], lines
    url = dict(x.split("=", 1) for x in lines)["KUBEFLOW_TRAINER_SERVER_URL"]
    assert url.startswith("https://127.0.0.1:") and url.endswith(
        "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/envs/status"), url
    assert "statusServer" not in d or d["statusServer"]["url"] == url


JOBSET = """apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: {name}
{ann}spec:
  replicatedJobs:
  - name: w
    template:
      spec:
        template:
          spec:
            restartPolicy: Never
            containers:
            - name: c
              command: ["sh", "-c", "env | grep -c ^KUBEFLOW_TRAINER_ || true"]
"""


@test
def a_jobset_asks_for_it_and_a_trainjob_may_decline():
    on = Run(JOBSET.format(name="js-on", ann='  annotations:\n    jaxset.dev/trainer-status: '
                                              '"true"\n'))
    off = Run(JOBSET.format(name="js-off", ann=""))
    declined = Run(trainjob("tj-off", ["sh", "-c", "env | grep -c ^KUBEFLOW_TRAINER_ || true"],
                            nodes=1, annotations='  annotations:\n    jaxset.dev/trainer-status:'
                                                 ' "false"\n'))
    for r, want in ((on, "3"), (off, "0"), (declined, "0")):
        r.run(60)
        assert r.rc == 0, r.describe()
        counts = [l.split("] ", 1)[1] for l in r.out.splitlines() if l.startswith("[")]
        assert counts == [want], (want, r.describe())
    assert "statusServer" in run_json(on, "js-on")
    assert "statusServer" not in run_json(off, "js-off")


@test
def get_watch_shows_progress_as_it_changes():
    r, done = reporter_run("watched")
    w = None
    try:
        r.start()
        wait_for(lambda: run_json(r, "watched").get("statusServer"), 30, "the server")
        w = subprocess.Popen([BIN, "get", "watched", "-w"], env=r.env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        seen = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and "45%" not in seen:
            words = w.stdout.readline().split()
            if not words:
                break
            seen.append(words[-1])
        assert "45%" in seen, seen
    finally:
        open(done, "w").close()
        if w:
            w.kill()
            w.wait()
        r.wait(60)


@test
def sigkill_leaves_no_status_server():
    r = Run(trainjob("killed", ["sleep", "60"], nodes=1))
    r.start()
    srv = wait_for(lambda: run_json(r, "killed").get("statusServer"), 30, "the server")
    assert srv
    servers = lambda: [p for p in marked_pids(r.marker, workers_only=False)  # noqa: E731
                       if "statusserver" in open(f"/proc/{p}/cmdline").read()]
    assert len(servers()) == 1
    r.proc.send_signal(signal.SIGKILL)
    r.proc.wait()
    wait_for(lambda: not servers(), 10, "the status server to go with jaxset")
    wait_for(lambda: not r.leftovers(), 20, "every process of the run to go")


if __name__ == "__main__":
    main()
