"""A TrainJob's progress reported by its training code (Kubeflow Trainer's TrainJobStatus, v2.2+):
``report(progress=, metrics=, eta=)``, and kubeflow/sdk's ``update_trainjob_status`` with its
name and arguments.  Inside a TrainJob (jaxset's local runs and Trainer on a cluster set
KUBEFLOW_TRAINER_SERVER_URL, _CA_CERT and _TOKEN) a report is a POST of ``{"trainerStatus":
{...}}`` to that URL, TLS verified with that CA, the bearer token read from its file at every
POST (it rotates); outside one a report does nothing.  Standard library only: a training
process imports it with nothing else installed (docs/sdk.md, "Progress")."""
from __future__ import annotations

import atexit
import json
import logging
import math
import os
import ssl
import threading
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone
from typing import Any, Dict, Mapping, Optional, Set

logger = logging.getLogger(__name__)

URL_ENV = "KUBEFLOW_TRAINER_SERVER_URL"
CA_ENV = "KUBEFLOW_TRAINER_SERVER_CA_CERT"
TOKEN_ENV = "KUBEFLOW_TRAINER_SERVER_TOKEN"
INTERVAL_ENV = "JAXSET_REPORT_INTERVAL"  # seconds between two POSTs (a float), for tests
INTERVAL = 5.0   # kubeflow/sdk's: at most one update every 5 seconds
TIMEOUT = 5.0    # seconds a POST may take
MAX_METRICS = 256  # the API's limit (kubeflow/sdk truncates to it too)


def interval() -> float:
    """The seconds between two POSTs: $JAXSET_REPORT_INTERVAL, else 5."""
    try:
        value = float(os.environ.get(INTERVAL_ENV, INTERVAL))
    except ValueError:
        return INTERVAL
    return max(value, 0.0) if math.isfinite(value) else INTERVAL


def _whole(what: str, v: Any, low: int, high: Optional[int] = None) -> int:
    """`v` (a number, a NumPy or JAX scalar) as a whole number, a fraction cut towards 0,
    within low..high as kubeflow/sdk clamps it; ValueError when it is no finite number."""
    try:
        f = math.nan if isinstance(v, (bool, str, bytes)) else float(v)
    except (TypeError, ValueError):
        f = math.nan
    if not math.isfinite(f):
        raise ValueError(f"{what} must be a finite number, got {v!r}")
    n = max(int(f), low)
    return n if high is None else min(n, high)


def fields_of(progress: Any, eta: Any, metrics: Any) -> Dict[str, Any]:
    """The trainerStatus fields a report sets (metrics as a dict of strings, the first
    MAX_METRICS of them); ValueError for an argument of the wrong kind."""
    out: Dict[str, Any] = {}
    if progress is not None:
        out["progressPercentage"] = _whole("progress", progress, 0, 100)
    if eta is not None:
        out["estimatedRemainingSeconds"] = _whole("the estimated remaining seconds", eta, 0)
    if metrics is not None:
        if not isinstance(metrics, Mapping):
            raise ValueError(f"metrics must be a dict of names to values, got "
                             f"{type(metrics).__name__}")
        out["metrics"] = {str(k): str(v) for k, v in list(metrics.items())[:MAX_METRICS]}
    return out


def now_rfc3339() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _refusal(e: urllib.error.HTTPError) -> str:
    """What the server said of a refused POST: its metav1.Status's reason and message."""
    try:
        st = json.loads(e.read() or b"{}")
    except (ValueError, OSError):
        st = {}
    st = st if isinstance(st, dict) else {}
    said = ": ".join(str(st[k]) for k in ("reason", "message") if st.get(k))
    return f"HTTP {e.code}" + (f" {said}" if said else f" {e.reason}")


class Reporter:
    """One process's reports.  A report inside the interval after the last POST is kept
    (merged into what is pending: the newest value of each field, metrics by name) and sent
    with the first report after the interval; a report of progress 100, and whatever is
    pending when the process exits, is sent at once.  Failures are logged once per kind."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._posted: Optional[float] = None  # time.monotonic() of the last POST
        self._pending: Dict[str, Any] = {}
        self._warned: Set[str] = set()

    def report(self, progress: Any = None, eta: Any = None, metrics: Any = None) -> bool:
        """Whether this report reached the server (a 200); False outside a TrainJob, while
        throttled, or when it failed.  Never raises."""
        try:
            if not os.environ.get(URL_ENV):
                return False
            fields = fields_of(progress, eta, metrics)
            if metrics is not None and len(metrics) > MAX_METRICS:
                self._warn("metrics", f"{len(metrics)} metrics: only the first {MAX_METRICS} "
                           "are sent")
            with self._lock:
                self._merge(fields)
                due = self._posted is None or fields.get("progressPercentage") == 100 or \
                    time.monotonic() - self._posted >= interval()
                return self._send() if due else False
        except Exception as e:  # noqa: BLE001 - nothing may reach the training loop
            self._warn(type(e).__name__, f"the report is dropped: {e}")
            return False

    def flush(self) -> bool:
        """Sends what is pending now (atexit: the last reports of a process are not lost)."""
        try:
            with self._lock:
                return self._send() if self._pending and os.environ.get(URL_ENV) else False
        except Exception as e:  # noqa: BLE001
            self._warn(type(e).__name__, f"the last report is dropped: {e}")
            return False

    def _merge(self, fields: Mapping[str, Any]) -> None:
        metrics = {**self._pending.get("metrics", {}), **fields.get("metrics", {})}
        self._pending.update(fields)
        if metrics:
            self._pending["metrics"] = metrics

    def _send(self) -> bool:
        """POSTs what is pending, which is then gone whatever the answer (a report the server
        refuses is not retried); the interval starts now, also when the POST failed."""
        status = {k: v for k, v in self._pending.items() if k != "metrics"}
        if self._pending.get("metrics"):
            status["metrics"] = [{"name": k, "value": v}
                                 for k, v in self._pending["metrics"].items()]
        status["lastUpdatedTime"] = now_rfc3339()
        self._pending, self._posted = {}, time.monotonic()
        return self._post(json.dumps({"trainerStatus": status}).encode())

    def _post(self, body: bytes) -> bool:
        token = self._token()
        if token is None:
            return False
        req = urllib.request.Request(os.environ[URL_ENV], data=body, method="POST", headers={
            "Authorization": f"Bearer {token}", "Content-Type": "application/json",
            "Accept": "application/json"})
        ca = os.environ.get(CA_ENV) or None
        try:
            ctx = ssl.create_default_context(cafile=ca)
        except OSError as e:  # ssl.SSLError too: not a PEM file
            self._warn("ca", f"the CA file {ca} cannot be read: {e}")
            return False
        # no proxy: the server is the cluster's controller, or this machine's jaxset
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}),
                                             urllib.request.HTTPSHandler(context=ctx))
        try:
            with opener.open(req, timeout=TIMEOUT) as resp:
                if resp.status == 200:
                    return True
                self._warn(f"HTTP {resp.status}", f"the server answered HTTP {resp.status}")
        except urllib.error.HTTPError as e:
            self._warn(f"HTTP {e.code}", f"the server refused the report: {_refusal(e)}")
        except OSError as e:  # URLError: refused, a timeout, a TLS failure
            why = getattr(e, "reason", None) or e
            self._warn(type(why).__name__, f"the report did not reach {req.full_url}: {why}")
        return False

    def _token(self) -> Optional[str]:
        """The bearer token, read from its file now; None (and a warning) when unreadable."""
        path = os.environ.get(TOKEN_ENV)
        try:
            if not path:
                raise OSError(f"{TOKEN_ENV} is not set")
            with open(path, encoding="utf-8") as f:
                token = f.read().strip()
            if not token:
                raise OSError(f"{path} is empty")
            return token
        except OSError as e:
            self._warn("token", f"no token to report with: {e}")
            return None

    def _warn(self, kind: str, message: str) -> None:
        """A warning, the first time a failure of this kind happens in the process."""
        if kind not in self._warned:
            self._warned.add(kind)
            logger.warning("jaxset.report: %s", message)


_REPORTER = Reporter()
atexit.register(_REPORTER.flush)


def report(progress: Any = None, metrics: Optional[Mapping[str, Any]] = None,
           eta: Any = None) -> bool:
    """Reports the TrainJob's progress (percent, 0..100), metrics (name -> value, sent as
    strings) and estimated remaining seconds (`eta`), each optional; True when the server
    took it.  Outside a TrainJob it does nothing and returns False; it never raises."""
    return _REPORTER.report(progress, eta, metrics)


def update_trainjob_status(progress_percent: Any = None,
                           estimated_remaining_seconds: Any = None,
                           metrics: Optional[Mapping[str, Any]] = None) -> bool:
    """kubeflow/sdk's ``kubeflow.trainer.update_trainjob_status``: report() under its name."""
    return _REPORTER.report(progress_percent, estimated_remaining_seconds, metrics)
