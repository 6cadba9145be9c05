"""Jobs run on this machine by the jaxset binary, and everything about them read back through
it.  Shared by TrainerClient and TrainingClient's local backends.

A job is started as ``jaxset run FILE... -q`` in a new session, so the caller returns at once
(once ``jaxset get NAME`` shows the run).  Its state, pods and their specs come from
``jaxset get NAME -o json --local`` and ``get pods -l ...`` (the run's state as the annotation
jaxset.dev/run-state, its directory as jaxset.dev/run-dir), its logs from ``jaxset logs``, and ``jaxset delete
--force`` stops it the kubelet's way and removes it.  What the SDK adds (the kind asked for,
its manifests, the runtime) is kept beside the run, in ``<run dir>/sdk-job.json``.
"""
from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from . import _binary
from .errors import NotFoundError, failure_line
from .types import Event, LocalBackendConfig

NAME_RE = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
RECORD = "sdk-job.json"
RUN_STATE = "jaxset.dev/run-state"
RUN_DIR = "jaxset.dev/run-dir"
GOING = ("Starting", "Running")

# Processes this Python process started, reaped as soon as they end.
_children: Dict[int, subprocess.Popen] = {}
_children_lock = threading.Lock()


def now_rfc3339() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(s: Optional[str]) -> Optional[datetime]:
    try:
        return datetime.strptime(s or "", "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return None


def annotation(obj: Optional[Mapping[str, Any]], key: str) -> str:
    return str((((obj or {}).get("metadata") or {}).get("annotations") or {}).get(key) or "")


@dataclass
class Record:
    """What the SDK keeps about a job it started, beside its run."""

    name: str
    kind: str
    namespace: str
    created: str
    run_dir: str
    pid: int = 0
    runtime: Optional[str] = None
    num_nodes: Optional[int] = None
    manifests: List[Dict[str, Any]] = field(default_factory=list)

    def save(self) -> None:
        d = {k: getattr(self, k) for k in ("name", "kind", "namespace", "created", "pid",
                                           "runtime", "num_nodes", "manifests")}
        path = os.path.join(self.run_dir, RECORD)
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(d, f, indent=1)
        os.replace(path + ".tmp", path)

    @classmethod
    def load(cls, jobset: Mapping[str, Any]) -> Optional["Record"]:
        run_dir = annotation(jobset, RUN_DIR)
        try:
            with open(os.path.join(run_dir, RECORD), encoding="utf-8") as f:
                return cls(run_dir=run_dir, **json.load(f))
        except (OSError, ValueError, TypeError):
            return None


@dataclass
class View:
    """One reading of a job: the JobSet and Pods `jaxset get NAME -o json` prints."""

    record: Record
    jobset: Dict[str, Any]
    pods: List[Dict[str, Any]]
    jaxjob: Optional[Dict[str, Any]] = None  # a JAXJob's run: the JAXJob with its status

    @property
    def state(self) -> str:
        return annotation(self.jobset, RUN_STATE)

    @property
    def alive(self) -> bool:
        return self.state in GOING

    @property
    def jobset_status(self) -> Dict[str, Any]:
        return self.jobset.get("status") or {}

    def jobset_condition(self, ctype: str) -> Optional[Dict[str, Any]]:
        for c in self.jobset_status.get("conditions") or []:
            if c.get("type") == ctype and c.get("status") == "True":
                return c
        return None

    @property
    def terminal(self) -> Optional[str]:
        """Completed or Failed once the JobSet finished; Failed when jaxset ended without
        finishing it (interrupted, killed); None while it runs."""
        for t in ("Completed", "Failed"):
            if self.jobset_condition(t):
                return t
        return None if self.alive else "Failed"

    @property
    def failure(self) -> Dict[str, Any]:
        """The first failed pod of the last failure, as jaxset attributed it (run.json's
        "failure"); {} when none."""
        try:
            with open(os.path.join(self.record.run_dir, "run.json"), encoding="utf-8") as f:
                return dict(json.load(f).get("failure") or {})
        except (OSError, ValueError, TypeError, AttributeError):
            return {}

    @property
    def failure_message(self) -> str:
        c = self.jobset_condition("Failed")
        if not c:
            return f"jaxset run ended: {self.state or 'gone'}"
        why = str(c.get("message") or c.get("reason") or "")
        first = failure_line(self.failure)
        return f"{why}; first failed: {first}" if first else why


def pod_label(pod: Mapping[str, Any], key: str) -> Optional[str]:
    return ((pod.get("metadata") or {}).get("labels") or {}).get(key)


def pod_name(pod: Mapping[str, Any]) -> str:
    return str((pod.get("metadata") or {}).get("name"))


def pod_phase(pod: Mapping[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "Pending")


def _int_label(pod: Mapping[str, Any], key: str) -> int:
    try:
        return int(pod_label(pod, key) or 0)
    except ValueError:
        return 0


def pod_attempt(pod: Mapping[str, Any]) -> int:
    return _int_label(pod, "jobset.sigs.k8s.io/restart-attempt")


def pod_index(pod: Mapping[str, Any]) -> int:
    return _int_label(pod, "batch.kubernetes.io/job-completion-index")


class Store:
    """The jobs of one state home, through the binary."""

    def __init__(self, cfg: LocalBackendConfig):
        self.cfg = cfg
        self.binary = _binary.find_binary(cfg.jaxset_bin)
        self.home = os.path.abspath(os.path.expanduser(cfg.home)) if cfg.home else None

    def env(self) -> Dict[str, str]:
        env = dict(os.environ)
        if self.home:
            env["JAXSET_HOME"] = self.home
        return env

    def jaxset(self, *args: str) -> subprocess.CompletedProcess:
        return _binary.call(self.binary, [*args, "--local"], env=self.env())

    def _get(self, *name: str) -> Optional[List[Dict[str, Any]]]:
        """Without NAME, `jaxset get -o json`'s items (every run's JobSet); with NAME, its
        JobSet (`get NAME -o json`), its Pods (`get pods -l jobset-name=NAME`) and, for a
        JAXJob's run, the JAXJob (`get jaxjob/NAME`).  None when there is no such run."""
        p = self.jaxset("get", *name, "-o", "json")
        if p.returncode != 0 or not name:
            return json.loads(p.stdout)["items"] if p.returncode == 0 else None
        items = [json.loads(p.stdout)]
        p = self.jaxset("get", "pods", "-l", f"jobset.sigs.k8s.io/jobset-name={name[0]}",
                        "-o", "json")
        items += json.loads(p.stdout)["items"] if p.returncode == 0 else []
        p = self.jaxset("get", f"jaxjob/{name[0]}", "-o", "json")
        return items + [json.loads(p.stdout)] if p.returncode == 0 else items

    # -- starting -------------------------------------------------------------------------

    def start(self, name: str, kind: str, docs: Sequence[Mapping[str, Any]],
              namespace: str, runtime: Optional[str] = None,
              num_nodes: Optional[int] = None) -> Record:
        """Validates `docs` (ValidationError, nothing started) and starts them detached.
        RuntimeError when a job of that name exists."""
        if not isinstance(name, str) or not NAME_RE.match(name) or len(name) > 63:
            raise ValueError(f"job name {name!r} must be a lowercase RFC 1035 label (a-z, 0-9, "
                             "'-', starting with a letter, at most 63 characters)")
        if self._get(name) is not None:
            raise RuntimeError(f"{kind} {namespace}/{name} already exists")
        rec = Record(name=name, kind=kind, namespace=namespace, created=now_rfc3339(),
                     run_dir="", runtime=runtime, num_nodes=num_nodes,
                     manifests=[dict(d) for d in docs])
        with tempfile.TemporaryDirectory(prefix="jaxset-sdk-") as tmp:
            files = _binary.ManifestFiles(list(docs), directory=tmp)
            _binary.validate_files(self.binary, files, env=self.env())
            with open(os.path.join(tmp, "stderr"), "w+b") as err:
                proc = self._spawn(files.paths, err)
                rec.pid = proc.pid
                try:
                    rec.run_dir = self._started(name, proc, err)
                    rec.save()
                except BaseException:  # nothing may run without its record
                    if self._get(name) is not None:
                        self.delete(rec)
                    proc.terminate()
                    proc.wait()
                    raise
        return rec

    def _spawn(self, paths: List[str], err: Any) -> subprocess.Popen:
        args = [self.binary, "run", *paths, "-q", "--no-color"]
        for opt, val in (("--grace", self.cfg.grace_period_seconds),
                         ("--restart-backoff", self.cfg.restart_backoff_ms),
                         ("--gpus", self.cfg.gpus)):
            if val is not None:
                args += [opt, str(int(val))]
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=err, cwd=self.cfg.cwd or None, env=self.env(),
                                start_new_session=True, close_fds=True)
        with _children_lock:
            _children[proc.pid] = proc
        threading.Thread(target=proc.wait, daemon=True).start()
        return proc

    def _started(self, name: str, proc: subprocess.Popen, err: Any) -> str:
        """The run directory once `jaxset get NAME` shows the run; RuntimeError with jaxset's
        last line when it ended before."""
        while True:
            items = self._get(name)
            if items:
                return annotation(items[0], RUN_DIR)
            if proc.poll() is not None:
                err.seek(0)
                lines = [ln for ln in err.read().decode("utf-8", "replace").splitlines()
                         if ln.strip()]
                raise RuntimeError(f"jaxset run of {name} ended at once: "
                                   f"{lines[-1] if lines else proc.returncode}")
            time.sleep(0.02)

    # -- reading --------------------------------------------------------------------------

    def record(self, name: str, kind: Optional[str] = None,
               namespace: Optional[str] = None) -> Record:
        items = self._get(name) if name else None
        rec = Record.load(items[0]) if items else None
        if rec is None or (kind and rec.kind != kind) or \
                (namespace and rec.namespace != namespace):
            where = f"{namespace}/{name}" if namespace else name
            raise NotFoundError(f"{kind or 'job'} {where} not found")
        return rec

    def records(self, kind: Optional[str] = None,
                namespace: Optional[str] = None) -> List[Record]:
        recs = [Record.load(js) for js in self._get() or []]
        out = [r for r in recs if r and (not kind or r.kind == kind) and
               (not namespace or r.namespace == namespace)]
        return sorted(out, key=lambda r: (r.created, r.name))

    def view(self, rec: Record) -> View:
        items = self._get(rec.name)
        if not items or annotation(items[0], RUN_DIR) != rec.run_dir:
            raise NotFoundError(f"{rec.kind} {rec.namespace}/{rec.name} not found")
        return View(record=rec, jobset=items[0],
                    pods=[i for i in items[1:] if i.get("kind") == "Pod"],
                    jaxjob=next((i for i in items if i.get("kind") == "JAXJob"), None))

    def events(self, rec: Record, kind: str = "JobSet") -> List[Event]:
        """The run's events (events.log) as Events about the job, and why jaxset ended when
        it ended without finishing the job."""
        try:
            with open(os.path.join(rec.run_dir, "events.log"), encoding="utf-8",
                      errors="replace") as f:
                found = [_EVENT.match(line) for line in f.read().splitlines()]
        except OSError:
            found = []
        out = [Event(involved_object_kind=kind, involved_object_name=rec.name,
                     message=m.group(4), reason=m.group(3),
                     event_time=parse_time(m.group(1)) or datetime.now(timezone.utc))
               for m in found if m]
        v = self.view(rec)
        if v.terminal == "Failed" and not v.jobset_condition("Failed"):
            out.append(Event(involved_object_kind=kind, involved_object_name=rec.name,
                             message=v.failure_message, reason="RunFailed",
                             event_time=datetime.now(timezone.utc)))
        return out

    # -- logs -----------------------------------------------------------------------------

    def read_log(self, rec: Record, pod: Mapping[str, Any]) -> str:
        """`jaxset logs NAME POD`: the pod's log ("" before it wrote any)."""
        p = self.jaxset("logs", rec.name, pod_name(pod))
        return p.stdout if p.returncode == 0 else ""

    def follow(self, rec: Record, pick: Callable[[View], Optional[Mapping[str, Any]]],
               poll: float = 0.1) -> Iterator[str]:
        """`jaxset logs -f NAME POD` of the pod pick(view) finds, once there is one (a job
        just created has none yet), until the run ends."""
        pod = self.wait_for(rec, pick, poll)
        while pod is not None:
            proc = subprocess.Popen([self.binary, "logs", "-f", rec.name, pod_name(pod),
                                     "--local"], stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, env=self.env())
            got = False
            try:
                for raw in proc.stdout:  # type: ignore[union-attr]
                    got = True
                    yield raw.decode("utf-8", "replace").rstrip("\n")
            finally:
                proc.kill()
                proc.wait()
            if got or proc.returncode == 0 or not self.view(rec).alive:
                return
            time.sleep(poll)  # no log written yet

    def wait_for(self, rec: Record, pick: Callable[[View], Any], poll: float = 0.1) -> Any:
        """pick(view) once it returns something, or None once the job has finished
        without."""
        while True:
            v = self.view(rec)
            found = pick(v)
            if found or v.terminal:
                return found
            time.sleep(poll)

    # -- stopping -------------------------------------------------------------------------

    def delete(self, rec: Record) -> None:
        """`jaxset delete --force`: stops the run (SIGTERM, every pod the kubelet's way) and
        removes it, record included."""
        p = self.jaxset("delete", rec.name, "--force")
        if p.returncode not in (0, 2):
            raise RuntimeError(f"jaxset delete {rec.name}: {p.stderr.strip()}")
        with _children_lock:
            child = _children.pop(rec.pid, None)
        if child is not None:
            child.wait()


_EVENT = re.compile(r"^(\S+) (Normal|Warning) ([A-Za-z0-9_]+): (.*)$")


def select_pods(v: View, rjob: str) -> Dict[int, Dict[str, Any]]:
    """The newest pod (highest restart attempt, latest listed) of each completion index of
    replicated job `rjob`."""
    out: Dict[int, Tuple[int, int, Dict[str, Any]]] = {}
    for order, p in enumerate(v.pods):
        if pod_label(p, "jobset.sigs.k8s.io/replicatedjob-name") != rjob:
            continue
        idx, key = pod_index(p), (pod_attempt(p), order)
        if idx not in out or key >= out[idx][:2]:
            out[idx] = (key[0], key[1], p)
    return {i: t[2] for i, t in sorted(out.items())}


def poll_until(check: Callable[[], Any], timeout: float, interval: float) -> Any:
    """check() every `interval` seconds until it returns something other than None (returned)
    or `timeout` seconds pass (None)."""
    end = time.monotonic() + timeout
    while True:
        out = check()
        left = end - time.monotonic()
        if out is not None or left <= 0:
            return out
        time.sleep(min(interval, left))


def follow_pods(streams: Mapping[str, Callable[[], Iterator[str]]]) -> Dict[str, str]:
    """Reads every pod's stream (`streams`: pod name -> its lines) at once, printing
    ``[Pod <name>]: <line>`` as lines come; returns every pod's text once every stream ended
    (the first stream's error raised then)."""
    out: "queue.Queue[Tuple[str, Optional[str], Optional[BaseException]]]" = queue.Queue()

    def pump(pod: str) -> None:
        try:
            for line in streams[pod]():
                out.put((pod, line, None))
            out.put((pod, None, None))
        except Exception as e:  # noqa: BLE001 - handed to the caller
            out.put((pod, None, e))
    for p in streams:
        threading.Thread(target=pump, args=(p,), daemon=True).start()
    logs: Dict[str, List[str]] = {p: [] for p in streams}
    left, err = len(logs), None
    while left:
        pod, line, e = out.get()
        if line is None:
            left, err = left - 1, err or e
            continue
        print(f"[Pod {pod}]: {line}", flush=True)
        logs[pod].append(line)
    if err is not None:
        raise err
    return {p: "".join(f"{ln}\n" for ln in lines) for p, lines in logs.items()}
