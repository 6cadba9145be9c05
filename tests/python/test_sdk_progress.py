"""A TrainJob's progress (Kubeflow Trainer's TrainJobStatus): jaxset.report and kubeflow's
update_trainjob_status (python/jaxset/progress.py) against an HTTPS status server of the test's
(http.server over ssl, its certificate made by openssl) as Trainer's serves it: nothing outside
a job, the POST's headers, body and TLS, the token re-read at each POST, the throttle (its
interval from $JAXSET_REPORT_INTERVAL) keeping the newest values and sending progress 100 at
once and what is pending at exit, refusals and a server down or silent (False, one warning,
never an exception); TrainerStatus read from TrainJobs (dicts, the cluster's through the API
server with watch_progress's bar, the local runs'); and a local TrainJob's function that
imports jaxset without PYTHONPATH and reports."""
import contextlib
import http.server
import io
import json
import logging
import os
import re
import socket
import ssl
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone

sys.path.insert(0, os.path.dirname(__file__))
import kubesdk  # noqa: E402
import sdktest  # noqa: E402
from kubesdk import CLUSTER_RUNTIMES, TRAINJOBS, KubeTest, jax_runtime, ok  # noqa: E402
from sdktest import SRC  # noqa: E402

from jaxset import (CustomTrainer, CustomTrainerContainer, TrainerClient,  # noqa: E402
                    TrainerStatus)
from jaxset import progress  # noqa: E402
from jaxset._notebook import progress_line  # noqa: E402
from jaxset.trainer_client import trainer_status_of  # noqa: E402

ENV = (progress.URL_ENV, progress.CA_ENV, progress.TOKEN_ENV, progress.INTERVAL_ENV)
TIMEOUT = 30.0  # seconds any awaited condition may take on a loaded machine
STATUS_PATH = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/{}/status"


def make_cert(folder, name):
    """A self-signed certificate for 127.0.0.1 (its own CA) and its key, made by openssl."""
    cert, key = (os.path.join(folder, f"{name}.{ext}") for ext in ("crt", "key"))
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj",
                    "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key,
                    "-out", cert], check=True, capture_output=True, timeout=60)
    return cert, key


class StatusServer:
    """The TrainJob status endpoint as Trainer serves it, over TLS: each POST recorded (path,
    headers lower-cased, body), answered 200 echoing it, or `answer` = (code, Status)."""

    def __init__(self, folder):
        self.cert, key = make_cert(folder, "server")
        self.requests, self.answer = [], None
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                owner.requests.append({"path": self.path, "body": json.loads(body),
                                       "headers": {k.lower(): v for k, v in
                                                   self.headers.items()}})
                code, out = owner.answer or (200, body)
                out = out if isinstance(out, bytes) else json.dumps(out).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(self.cert, key)
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, name="job"):
        return f"https://127.0.0.1:{self.httpd.server_address[1]}{STATUS_PATH.format(name)}"

    def statuses(self):
        return [r["body"]["trainerStatus"] for r in self.requests]

    def wait_requests(self, n, timeout=TIMEOUT):
        end = time.monotonic() + timeout
        while len(self.requests) < n and time.monotonic() < end:
            time.sleep(0.02)
        return list(self.requests)

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@contextlib.contextmanager
def warnings_logged():
    """The records jaxset.progress logs in the block (none reach stderr meanwhile)."""
    records = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = records.append
    logger = logging.getLogger("jaxset.progress")
    logger.addHandler(handler)
    try:
        yield records
    finally:
        logger.removeHandler(handler)


def messages(records):
    return [r.getMessage() for r in records]


def recent(stamp):
    """An RFC 3339 UTC time with Z of the last minute."""
    t = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    return abs(datetime.now(timezone.utc) - t) < timedelta(minutes=1)


def run_python(code, **env):
    """`code` run by this interpreter with the tree's package, in this environment without
    the status variables, then `env`."""
    full = {k: v for k, v in os.environ.items() if k not in ENV}
    full.update(PYTHONPATH=os.path.join(SRC, "python"), **env)
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True,
                          text=True, timeout=120)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def reporting(url: str, ca: str, token: str):
    """A training function: reports to the status server it is given (over what jaxset may
    have set), from the jaxset the SDK shipped on its PYTHONPATH."""
    import os
    os.environ.update(KUBEFLOW_TRAINER_SERVER_URL=url, KUBEFLOW_TRAINER_SERVER_CA_CERT=ca,
                      KUBEFLOW_TRAINER_SERVER_TOKEN=token)
    import jaxset
    print("jaxset from", os.path.dirname(os.path.dirname(jaxset.__file__)))
    rank = os.environ["JAX_PROCESS_ID"]
    print("sent", jaxset.report(progress=100, metrics={"loss": "0.5", "rank": rank}), flush=True)


def reporting_to_jaxset():
    """A training function: reports to the status server jaxset's run serves, when it set
    one."""
    import os
    print("url", os.environ.get("KUBEFLOW_TRAINER_SERVER_URL", "none"))
    from jaxset import report, update_trainjob_status
    print("sent", update_trainjob_status(progress_percent=50, estimated_remaining_seconds=9),
          report(progress=100, metrics={"loss": "0.5", "step": 3}, eta=0), flush=True)


class ReportTest(sdktest.SdkTest):
    """report() in this process (a fresh Reporter per test) and in child processes."""

    def setUp(self):
        super().setUp()
        self._saved = {k: os.environ.get(k) for k in ENV}
        self.server = StatusServer(self.tmp)
        self.token = os.path.join(self.tmp, "token")
        self.write_token("tok-1")
        os.environ.update({progress.URL_ENV: self.server.url(),
                           progress.CA_ENV: self.server.cert, progress.TOKEN_ENV: self.token,
                           progress.INTERVAL_ENV: "0"})

    def tearDown(self):
        self.server.stop()
        for k, v in self._saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        super().tearDown()

    def write_token(self, text):
        with open(self.token, "w", encoding="utf-8") as f:
            f.write(text + "\n")

    def child_env(self, **kw):
        env = {progress.URL_ENV: self.server.url(), progress.CA_ENV: self.server.cert,
               progress.TOKEN_ENV: self.token}
        env.update(kw)
        return {k: v for k, v in env.items() if v is not None}

    def test_outside_a_job_nothing_is_sent(self):
        out = run_python("import jaxset\nprint(jaxset.report(progress=50, metrics={'l': 1}), "
                         "jaxset.update_trainjob_status(progress_percent=100))",
                         **self.child_env(KUBEFLOW_TRAINER_SERVER_URL=None))
        self.assertEqual((out.returncode, out.stdout, out.stderr), (0, "False False\n", ""))
        os.environ.pop(progress.URL_ENV)
        with warnings_logged() as logged:
            self.assertFalse(progress.Reporter().report(progress=100, eta=1))
            self.assertFalse(progress.Reporter().flush())
        self.assertEqual((logged, self.server.requests), ([], []))

    def test_post_headers_body_and_tls(self):
        code = ("import jaxset\n"
                "print(jaxset.update_trainjob_status(progress_percent=42, "
                "estimated_remaining_seconds=90, metrics={'loss': 0.25, 'step': 7}))\n"
                "print(jaxset.report(progress=43.9, eta=-5, metrics={'acc': '0.9'}))\n"
                "print(jaxset.report(progress=150))\n")
        out = run_python(code, **self.child_env(JAXSET_REPORT_INTERVAL="0"))
        self.assertEqual((out.returncode, out.stdout, out.stderr),
                         (0, "True\nTrue\nTrue\n", ""))
        reqs = self.server.requests
        self.assertEqual(len(reqs), 3)
        for r in reqs:
            self.assertEqual(r["path"], STATUS_PATH.format("job"))
            self.assertEqual(r["headers"]["authorization"], "Bearer tok-1")
            self.assertEqual(r["headers"]["content-type"], "application/json")
            self.assertEqual(list(r["body"]), ["trainerStatus"])
            self.assertTrue(recent(r["body"]["trainerStatus"].pop("lastUpdatedTime")), r)
        self.assertEqual(self.server.statuses(), [
            {"progressPercentage": 42, "estimatedRemainingSeconds": 90,
             "metrics": [{"name": "loss", "value": "0.25"}, {"name": "step", "value": "7"}]},
            {"progressPercentage": 43, "estimatedRemainingSeconds": 0,  # cut, clamped
             "metrics": [{"name": "acc", "value": "0.9"}]},
            {"progressPercentage": 100}])

    def test_tls_is_verified_with_the_ca_file(self):
        other, _ = make_cert(self.tmp, "other")
        os.environ[progress.CA_ENV] = other
        r = progress.Reporter()
        with warnings_logged() as logged:
            self.assertFalse(r.report(progress=1))
            self.assertFalse(r.report(progress=2))
        self.assertEqual(len(logged), 1, messages(logged))  # once per kind of failure
        self.assertIn("CERTIFICATE_VERIFY_FAILED", logged[0].getMessage())
        self.assertEqual(self.server.requests, [])
        os.environ[progress.CA_ENV] = os.path.join(self.tmp, "missing.crt")
        with warnings_logged() as logged:
            self.assertFalse(r.report(progress=3))
        self.assertIn("missing.crt", " ".join(messages(logged)))
        os.environ[progress.CA_ENV] = self.server.cert
        self.assertTrue(r.report(progress=4))
        self.assertEqual([s["progressPercentage"] for s in self.server.statuses()], [4])

    def test_token_is_read_at_every_post(self):
        r = progress.Reporter()
        self.assertTrue(r.report(progress=10))
        self.write_token("tok-2")
        self.assertTrue(r.report(progress=20))
        self.assertEqual([q["headers"]["authorization"] for q in self.server.requests],
                         ["Bearer tok-1", "Bearer tok-2"])
        os.remove(self.token)
        with warnings_logged() as logged:
            self.assertFalse(r.report(progress=30))
        self.assertEqual(len(self.server.requests), 2)
        self.assertIn("no token", " ".join(messages(logged)))

    def test_throttle_keeps_the_newest_and_sends_100_at_once(self):
        os.environ[progress.INTERVAL_ENV] = "0.6"
        r = progress.Reporter()
        first = time.monotonic()
        self.assertTrue(r.report(progress=10, metrics={"loss": 3}))
        self.assertFalse(r.report(progress=20, metrics={"loss": 2, "acc": 0.5}))
        self.assertFalse(r.report(metrics={"loss": 1}, eta=30))
        self.assertEqual(len(self.server.requests), 1)  # the others are pending
        time.sleep(max(0.0, first + 0.65 - time.monotonic()))
        self.assertTrue(r.report(eta=20))  # after the interval: with the newest pending ones
        self.assertTrue(r.report(progress=100, metrics={"loss": 0.5}))  # at once
        self.assertFalse(r.report(progress=99))
        self.assertTrue(r.flush())  # as at exit
        self.assertFalse(r.flush())  # nothing pending
        for s in self.server.statuses():
            self.assertTrue(recent(s.pop("lastUpdatedTime")), s)
        self.assertEqual(self.server.statuses(), [
            {"progressPercentage": 10, "metrics": [{"name": "loss", "value": "3"}]},
            {"progressPercentage": 20, "estimatedRemainingSeconds": 20,
             "metrics": [{"name": "loss", "value": "1"}, {"name": "acc", "value": "0.5"}]},
            {"progressPercentage": 100, "metrics": [{"name": "loss", "value": "0.5"}]},
            {"progressPercentage": 99}])

    def test_default_interval_and_pending_reports_sent_at_exit(self):
        code = ("import jaxset\n"
                "print(jaxset.report(progress=10), jaxset.report(progress=20), "
                "jaxset.report(metrics={'loss': 3}))\n")
        out = run_python(code, **self.child_env())  # 5 s, kubeflow/sdk's interval
        self.assertEqual((out.returncode, out.stdout, out.stderr), (0, "True False False\n", ""))
        for s in self.server.statuses():
            s.pop("lastUpdatedTime")
        self.assertEqual(self.server.statuses(), [
            {"progressPercentage": 10},
            {"progressPercentage": 20, "metrics": [{"name": "loss", "value": "3"}]}])

    def test_refusals_warn_once_per_kind_and_never_raise(self):
        r = progress.Reporter()
        forbidden = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 403,
                     "reason": "Forbidden", "message": "the token is not for TrainJob job"}
        invalid = dict(forbidden, code=422, reason="Invalid",
                       message="trainerStatus.metrics[0].name: Too long: may not be more "
                               "than 64 bytes")
        with warnings_logged() as logged:
            self.server.answer = (403, forbidden)
            self.assertFalse(r.report(progress=5))
            self.assertFalse(r.report(progress=6))
            self.server.answer = (422, invalid)
            self.assertFalse(r.report(metrics={"x" * 65: 1}))
            self.server.answer = (413, b"too large")
            self.assertFalse(r.report(progress=7))
            self.assertFalse(r.report(progress="half"))     # not sent: no number
            self.assertFalse(r.report(metrics=[("loss", 1)]))  # nor this, warned already
            self.assertFalse(r.report(eta=float("nan")))
        said = messages(logged)
        self.assertEqual(len(said), 4, said)
        self.assertIn("HTTP 403 Forbidden: the token is not for TrainJob job", said[0])
        self.assertIn("HTTP 422 Invalid: trainerStatus.metrics[0].name: Too long", said[1])
        self.assertIn("HTTP 413", said[2])
        self.assertIn("progress must be a finite number, got 'half'", said[3])
        self.assertEqual(len(self.server.requests), 4)
        self.server.answer = None
        self.assertTrue(r.report(progress=8))

    def test_server_down_or_silent(self):
        os.environ[progress.URL_ENV] = f"https://127.0.0.1:{free_port()}/status"
        r = progress.Reporter()
        with warnings_logged() as logged:
            self.assertFalse(r.report(progress=1))
        self.assertIn("did not reach", " ".join(messages(logged)))
        self.assertIn("refused", " ".join(messages(logged)).lower())
        silent = socket.socket()  # takes connections, never answers the TLS handshake
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        try:
            os.environ[progress.URL_ENV] = f"https://127.0.0.1:{silent.getsockname()[1]}/s"
            start = time.monotonic()
            with warnings_logged() as logged:
                self.assertFalse(r.report(progress=2))
            took = time.monotonic() - start
        finally:
            silent.close()
        self.assertGreaterEqual(took, progress.TIMEOUT - 0.5)
        self.assertLess(took, progress.TIMEOUT + 5)
        self.assertIn("timed out", " ".join(messages(logged)))


class TrainerStatusTest(sdktest.SdkTest):
    """TrainerStatus from a TrainJob's status, and how a TrainJob shows it."""

    def test_parsing(self):
        tj = {"status": {"conditions": [], "trainerStatus": {
            "progressPercentage": 45, "estimatedRemainingSeconds": 65,
            "metrics": [{"name": "loss", "value": "0.12"}, {"name": "acc", "value": "0.9"},
                        {"name": "lr", "value": "1e-3"}, {"name": "epoch", "value": "2"}],
            "lastUpdatedTime": "2025-06-01T10:20:30Z"}}}
        ts = trainer_status_of(tj)
        self.assertEqual(ts, TrainerStatus(
            45, 65, {"loss": "0.12", "acc": "0.9", "lr": "1e-3", "epoch": "2"},
            datetime(2025, 6, 1, 10, 20, 30, tzinfo=timezone.utc)))
        self.assertEqual(list(ts.metrics), ["loss", "acc", "lr", "epoch"])
        self.assertEqual(ts.summary(),
                         "progress 45%, eta 1m05s, loss=0.12, acc=0.9, lr=1e-3, +1 metrics")
        for absent in ({}, {"status": {}}, {"status": {"conditions": []}},
                       {"status": {"trainerStatus": None}}):
            self.assertIsNone(trainer_status_of(absent), absent)
        only_time = trainer_status_of({"status": {"trainerStatus": {
            "lastUpdatedTime": "2025-06-01T10:20:30Z"}}})
        self.assertEqual(only_time, TrainerStatus(
            last_updated_time=datetime(2025, 6, 1, 10, 20, 30, tzinfo=timezone.utc)))
        self.assertEqual(only_time.summary(), "")
        odd = trainer_status_of({"status": {"trainerStatus": {
            "progressPercentage": "45", "estimatedRemainingSeconds": True,
            "metrics": [{"value": "x"}, {"name": "ok", "value": 1}, "bad"],
            "lastUpdatedTime": "yesterday"}}})
        self.assertEqual(odd, TrainerStatus(None, None, {"ok": "1"}, None))

    def test_repr_and_progress_line(self):
        from jaxset import Runtime, RuntimeTrainer, TrainerType, TrainJob
        rt = Runtime("jax-distributed", RuntimeTrainer(TrainerType.CUSTOM_TRAINER, "jax", "i"))
        job = TrainJob("j1", rt, [], 2, datetime.now(timezone.utc), "Running")
        self.assertRegex(repr(job), r"^<TrainJob j1: Running, 2 nodes, age \ds, runtime "
                                    r"jax-distributed>$")
        self.assertEqual(progress_line(job),
                         f"j1 [{'-' * 30}]   ?% Running, no progress reported")
        job.trainer_status = TrainerStatus(40, 3700, {"loss": "0.5"})
        self.assertRegex(repr(job), r"^<TrainJob j1: Running, 2 nodes, age \ds, runtime "
                                    r"jax-distributed, progress 40%, eta 1h01m, loss=0.5>$")
        self.assertEqual(progress_line(job),
                         f"j1 [{'#' * 12}{'-' * 18}]  40% Running, eta 1h01m, loss=0.5")


class LocalProgressTest(sdktest.SdkTest):
    """Local TrainJobs (the binary under test) whose function reports."""

    def setUp(self):
        super().setUp()
        self._pythonpath = os.environ.pop("PYTHONPATH", None)  # the SDK must ship its own

    def tearDown(self):
        if self._pythonpath is not None:
            os.environ["PYTHONPATH"] = self._pythonpath
        super().tearDown()

    def test_function_imports_jaxset_and_reports(self):
        server = StatusServer(self.tmp)
        token = os.path.join(self.tmp, "token")
        with open(token, "w", encoding="utf-8") as f:
            f.write("pod-token")
        try:
            c = TrainerClient(backend_config=self.config())
            name = c.train(trainer=CustomTrainer(func=reporting, num_nodes=2, func_args={
                "url": server.url("local"), "ca": server.cert, "token": token}))
            job = c.wait_for_job_status(name, timeout=TIMEOUT, polling_interval=0.05)
            reqs = server.wait_requests(2)
        finally:
            server.stop()
        self.assertEqual(job.status, "Complete")
        for i in range(2):
            self.assertEqual(list(c.get_job_logs(name, step=f"node-{i}")),
                             [f"jaxset from {os.path.join(SRC, 'python')}", "sent True"])
        self.assertEqual(len(reqs), 2)
        self.assertEqual({r["headers"]["authorization"] for r in reqs}, {"Bearer pod-token"})
        self.assertEqual(sorted(s["metrics"][1]["value"] for s in server.statuses()),
                         ["0", "1"])
        c.delete_job(name)

    def test_trainer_status_of_a_local_run(self):
        c = TrainerClient(backend_config=self.config())
        name = c.train(trainer=CustomTrainer(func=reporting_to_jaxset, num_nodes=1))
        job = c.wait_for_job_status(name, timeout=TIMEOUT, polling_interval=0.05)
        logs = list(c.get_job_logs(name))
        env = dict(os.environ, JAXSET_HOME=self.home)
        got = json.loads(subprocess.run([sdktest.BIN, "get", f"trainjob/{name}", "-o", "json"],
                                        env=env, capture_output=True, text=True,
                                        check=True).stdout)
        described = subprocess.run([sdktest.BIN, "describe", f"trainjob/{name}"], env=env,
                                   capture_output=True, text=True, check=True).stdout
        c.delete_job(name)
        self.assertRegex(logs[0], rf"^url https://127\.0\.0\.1:\d+"
                                  rf"{re.escape(STATUS_PATH.format(name))}$")
        # the same report in `get -o json` and `describe` as in the SDK
        self.assertEqual(got["status"]["trainerStatus"]["metrics"],
                         [{"name": "loss", "value": "0.5"}, {"name": "step", "value": "3"}])
        self.assertIn("Progress Percentage:          100", described)
        self.assertRegex(described, r"step +3")
        self.assertEqual(logs[1:], ["sent True True"])
        ts = job.trainer_status
        self.assertIsNotNone(ts, "the run's TrainJob has no status.trainerStatus")
        self.assertEqual((ts.progress_percentage, ts.estimated_remaining_seconds, ts.metrics),
                         (100, 0, {"loss": "0.5", "step": "3"}))
        self.assertLess(abs(datetime.now(timezone.utc) - ts.last_updated_time),
                        timedelta(minutes=1))
        self.assertIn(", progress 100%, eta 0s, loss=0.5, step=3>", repr(job))


class ClusterProgressTest(KubeTest):
    """TrainerStatus of a TrainJob on the API server, the test writing its trainerStatus as
    Trainer's status server does, and watch_progress's bar on stdout."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        ok(cls.server.post(CLUSTER_RUNTIMES, jax_runtime()), 201, 409)

    def set_status(self, name, trainer_status, conditions=None):
        """The TrainJob's trainerStatus, then its conditions (kept with it)."""
        path = TRAINJOBS.format(ns=self.ns) + f"/{name}"
        obj = ok(self.server.get(path))
        obj["status"] = dict(obj.get("status") or {}, trainerStatus=dict(
            trainer_status, lastUpdatedTime=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())))
        ok(self.server.put(path + "/status", obj))
        if conditions:
            self.set_conditions(TRAINJOBS.format(ns=self.ns), name, conditions)

    def test_trainer_status_and_watch_progress(self):
        c = TrainerClient(backend_config=self.config())
        name = c.train(runtime="jax-distributed", trainer=CustomTrainerContainer(image="i:1"))
        job = c.get_job(name)
        self.assertIsNone(job.trainer_status)
        self.assertTrue(repr(job).endswith(", runtime jax-distributed>"), repr(job))
        self.set_status(name, {"progressPercentage": 30, "estimatedRemainingSeconds": 120,
                               "metrics": [{"name": "loss", "value": "0.9"},
                                           {"name": "acc", "value": "0.4"}]})
        ts = c.get_job(name).trainer_status
        self.assertEqual((ts.progress_percentage, ts.estimated_remaining_seconds, ts.metrics),
                         (30, 120, {"loss": "0.9", "acc": "0.4"}))
        self.assertLess(abs(datetime.now(timezone.utc) - ts.last_updated_time),
                        timedelta(minutes=1))
        self.assertEqual(c.list_jobs()[0].trainer_status, ts)

        out, errors = io.StringIO(), []

        def controller():  # each step once the bar showed the one before
            try:
                kubesdk.wait(lambda: "30% Created, eta 2m00s, loss=0.9, acc=0.4" in
                             out.getvalue(), "the bar at 30%", TIMEOUT)
                self.set_status(name, {"progressPercentage": 60,
                                       "metrics": [{"name": "loss", "value": "0.5"}]})
                kubesdk.wait(lambda: "60% Created, loss=0.5" in out.getvalue(),
                             "the bar at 60%", TIMEOUT)
                self.set_status(name, {"progressPercentage": 100, "metrics": [
                    {"name": "loss", "value": "0.1"}]}, [{"type": "Complete"}])
            except Exception as e:  # noqa: BLE001 - failed in the test's thread below
                errors.append(e)
        t = threading.Thread(target=controller, daemon=True)
        t.start()
        with contextlib.redirect_stdout(out):
            job = c.watch_progress(name, interval=0.05, timeout=TIMEOUT * 3)
        t.join(TIMEOUT)
        self.assertEqual(errors, [])
        self.assertEqual((job.status, job.trainer_status.progress_percentage), ("Complete", 100))
        lines = out.getvalue()
        self.assertTrue(lines.startswith("\r") and lines.endswith("\n"), repr(lines))
        self.assertEqual(lines.count("\n"), 1, repr(lines))  # one line, rewritten
        last = lines.rstrip().rsplit("\r", 1)[1]
        self.assertEqual(last.rstrip(), f"{name} [{'#' * 30}] 100% Complete, loss=0.1")
        with self.assertRaises(ValueError):
            c.watch_progress(name, interval=0)
        other = c.train(runtime="jax-distributed", trainer=CustomTrainerContainer(image="i:1"))
        with contextlib.redirect_stdout(io.StringIO()) as quiet, self.assertRaises(TimeoutError):
            c.watch_progress(other, interval=0.05, timeout=0.3)
        self.assertIn(f"\r{other} [{'-' * 30}]   ?% Created, no progress reported\n",
                      quiet.getvalue())


if __name__ == "__main__":
    sdktest.main()
