"""Jobs run on this machine by the jaxset binary, started detached and read back from the run
directory.  Shared by TrainerClient and TrainingClient's local backends.

A job is started as ``jaxset run FILE... --run-dir DIR -q`` in a new session with its output
in files, so the caller returns at once; everything about it is then read from the run
directory the binary keeps current.  Deleting a job sends SIGTERM to the jaxset process (it
stops every pod the kubelet's way and exits once all are gone), waits for that, and removes the
record and the run directory.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from . import _binary, _layout
from .errors import NotFoundError
from .types import Event, LocalBackendConfig

DEFAULT_GRACE_S = 30  # a pod's terminationGracePeriodSeconds when unset
NAME_RE = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")

# Processes this Python process started, so that they are reaped (a zombie still answers
# kill(pid, 0)).
_children: Dict[int, subprocess.Popen] = {}
_children_lock = threading.Lock()


def now_rfc3339() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(s: Optional[str]) -> Optional[datetime]:
    if not s:
        return None
    try:
        return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return None


def _read_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _pid_alive(pid: int, run_dir: str) -> bool:
    with _children_lock:
        child = _children.get(pid)
    if child is not None:
        return child.poll() is None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # the pid may have been reused: is it still our jaxset run?
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return run_dir.encode() in f.read()
    except OSError:
        return True


@dataclass
class Record:
    """What the SDK keeps about a job it started (``<home>/sdk/jobs/<name>/job.json``)."""

    name: str
    kind: str
    namespace: str
    created: str
    run_dir: str
    record_dir: str
    pid: int = 0
    runtime: Optional[str] = None
    num_nodes: Optional[int] = None
    manifests: List[Dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> Dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "namespace": self.namespace,
                "created": self.created, "runDir": self.run_dir, "pid": self.pid,
                "runtime": self.runtime, "numNodes": self.num_nodes,
                "manifests": self.manifests}

    @classmethod
    def load(cls, record_dir: str) -> Optional["Record"]:
        d = _read_json(os.path.join(record_dir, _layout.RECORD))
        if not isinstance(d, dict) or "name" not in d:
            return None
        return cls(name=d["name"], kind=d.get("kind", ""), namespace=d.get("namespace", ""),
                   created=d.get("created", ""), run_dir=d.get("runDir", ""),
                   record_dir=record_dir, pid=int(d.get("pid") or 0),
                   runtime=d.get("runtime"), num_nodes=d.get("numNodes"),
                   manifests=d.get("manifests") or [])

    def save(self) -> None:
        path = os.path.join(self.record_dir, _layout.RECORD)
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(self.to_json(), f, indent=1)
        os.replace(tmp, path)


@dataclass
class View:
    """One reading of a job's state: the run directory's files and whether jaxset runs."""

    record: Record
    alive: bool
    run: Optional[Dict[str, Any]]
    jobset: Optional[Dict[str, Any]]
    jobs: List[Dict[str, Any]]
    pods: List[Dict[str, Any]]
    binary_error: str

    @property
    def jobset_status(self) -> Dict[str, Any]:
        return (self.jobset or {}).get("status") or {}

    def jobset_condition(self, ctype: str) -> Optional[Dict[str, Any]]:
        for c in self.jobset_status.get("conditions") or []:
            if c.get("type") == ctype and c.get("status") == "True":
                return c
        return None

    @property
    def terminal(self) -> Optional[str]:
        """Completed or Failed once the JobSet finished; Failed when jaxset ended without
        finishing it (interrupted, killed, refused to start); None while it runs."""
        if self.jobset_condition("Completed"):
            return "Completed"
        if self.jobset_condition("Failed"):
            return "Failed"
        if not self.alive:
            return "Failed"
        return None

    @property
    def failure_message(self) -> str:
        c = self.jobset_condition("Failed")
        if c:
            return str(c.get("message") or c.get("reason") or "")
        state = (self.run or {}).get("state")
        if self.binary_error:
            return self.binary_error
        if state and state != "Running":
            return f"jaxset run ended: {state}"
        return "jaxset run ended before the job finished"

    def job_template(self, pod: Mapping[str, Any]) -> Dict[str, Any]:
        job = ((pod.get("metadata") or {}).get("labels") or {}).get("job-name")
        for j in self.jobs:
            if (j.get("metadata") or {}).get("name") == job:
                return ((j.get("spec") or {}).get("template") or {})
        return {}


def _container_status(c: Mapping[str, Any], pod: Mapping[str, Any]) -> Dict[str, Any]:
    state = c.get("state")
    if state == "running":
        st: Dict[str, Any] = {"running": {}}
    elif state == "terminated" and pod.get("phase") == "Running":
        st = {"waiting": {"reason": "CrashLoopBackOff"}}  # an in-place restart is pending
    elif state == "terminated":
        st = {"terminated": {k: c[k] for k in ("exitCode", "reason", "signal") if k in c}}
    else:
        st = {"waiting": {}}
    return {"name": c.get("name"), "state": st, "restartCount": pod.get("restartCount", 0)}


def pod_object(p: Mapping[str, Any]) -> Dict[str, Any]:
    """A pods.json entry (see the binary's src/local/runner_pods.c) as the fields of a core/v1
    Pod the SDK reads: metadata.name and the Job/JobSet labels, status.phase and
    containerStatuses."""
    labels = {
        "job-name": p.get("job"),
        "batch.kubernetes.io/job-name": p.get("job"),
        "jobset.sigs.k8s.io/replicatedjob-name": p.get("replicatedJob"),
        "jobset.sigs.k8s.io/job-index": str(p.get("jobIndex", 0)),
        "jobset.sigs.k8s.io/restart-attempt": str(p.get("restartAttempt", 0)),
    }
    if "completionIndex" in p:
        labels["batch.kubernetes.io/job-completion-index"] = str(p["completionIndex"])
    status: Dict[str, Any] = {"phase": p.get("phase", "Pending"),
                              "containerStatuses": [_container_status(c, p)
                                                    for c in p.get("containers") or []
                                                    if not c.get("init")]}
    for key in ("startTime",):
        if key in p:
            status[key] = p[key]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": p.get("name"), "labels": labels},
            "spec": {"hostname": p.get("hostname")}, "status": status}


def pod_label(pod: Mapping[str, Any], key: str) -> Optional[str]:
    return ((pod.get("metadata") or {}).get("labels") or {}).get(key)


def pod_phase(pod: Mapping[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "Pending")


def pod_attempt(pod: Mapping[str, Any]) -> int:
    try:
        return int(pod_label(pod, "jobset.sigs.k8s.io/restart-attempt") or 0)
    except ValueError:
        return 0


def pod_index(pod: Mapping[str, Any]) -> int:
    try:
        return int(pod_label(pod, "batch.kubernetes.io/job-completion-index") or 0)
    except ValueError:
        return 0


class Store:
    """The jobs of one state home, and how to start, read and stop them."""

    def __init__(self, cfg: LocalBackendConfig):
        self.cfg = cfg
        self.binary = _binary.find_binary(cfg.jaxset_bin)
        self.home = _layout.home(cfg.home)

    # -- starting -------------------------------------------------------------------------

    def env(self) -> Dict[str, str]:
        env = dict(os.environ)
        env[_layout.HOME_ENV] = self.home
        return env

    def start(self, name: str, kind: str, docs: Sequence[Mapping[str, Any]],
              namespace: str, runtime: Optional[str] = None,
              num_nodes: Optional[int] = None) -> Record:
        """Validates `docs` (ValidationError, nothing started) and starts them detached.
        RuntimeError when a job of that name exists."""
        if not isinstance(name, str) or not NAME_RE.match(name) or len(name) > 63:
            raise ValueError(f"job name {name!r} must be a lowercase RFC 1035 label (a-z, 0-9, "
                             "'-', starting with a letter, at most 63 characters)")
        rdir = _layout.record_dir(self.home, name)
        os.makedirs(_layout.records_root(self.home), exist_ok=True)
        try:
            os.mkdir(rdir)
        except FileExistsError:
            raise RuntimeError(f"{kind} {namespace}/{name} already exists") from None
        try:
            return self._start_in(rdir, name, kind, docs, namespace, runtime, num_nodes)
        except BaseException:
            shutil.rmtree(rdir, ignore_errors=True)
            raise

    def _start_in(self, rdir: str, name: str, kind: str, docs: Sequence[Mapping[str, Any]],
                  namespace: str, runtime: Optional[str], num_nodes: Optional[int]) -> Record:
        files = _binary.ManifestFiles(list(docs), directory=rdir)
        _binary.validate_files(self.binary, files, env=self.env())
        run_dir = _layout.new_run_dir(self.home, name)
        rec = Record(name=name, kind=kind, namespace=namespace, created=now_rfc3339(),
                     run_dir=run_dir, record_dir=rdir, runtime=runtime, num_nodes=num_nodes,
                     manifests=[dict(d) for d in docs])
        args = [self.binary, "run", *files.paths, "--run-dir", run_dir, "-q", "--no-color"]
        for opt, val in (("--grace", self.cfg.grace_period_seconds),
                         ("--restart-backoff", self.cfg.restart_backoff_ms),
                         ("--gpus", self.cfg.gpus)):
            if val is not None:
                args += [opt, str(int(val))]
        proc = None
        try:
            with open(os.path.join(rdir, _layout.BIN_STDOUT), "wb") as out, \
                    open(os.path.join(rdir, _layout.BIN_STDERR), "wb") as err:
                proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                        cwd=self.cfg.cwd or None, env=self.env(),
                                        start_new_session=True, close_fds=True)
            with _children_lock:
                _children[proc.pid] = proc
            # reaped as soon as it exits, so that a finished job never lingers as a zombie
            threading.Thread(target=proc.wait, name=f"jaxset-{name}", daemon=True).start()
            rec.pid = proc.pid
            rec.save()
        except BaseException:
            if proc is not None:  # the record could not be kept: nothing may run without it
                rec.pid = proc.pid
                self.stop(rec)
            shutil.rmtree(run_dir, ignore_errors=True)
            _layout.forget_run(self.home, name, run_dir)
            raise
        _layout.mark_latest(self.home, name, run_dir)
        return rec

    # -- reading --------------------------------------------------------------------------

    def record(self, name: str, kind: Optional[str] = None,
               namespace: Optional[str] = None) -> Record:
        rec = Record.load(_layout.record_dir(self.home, name)) if name else None
        if rec is None or (kind and rec.kind != kind) or \
                (namespace and rec.namespace != namespace):
            what = kind or "job"
            where = f"{namespace}/{name}" if namespace else name
            raise NotFoundError(f"{what} {where} not found (in {self.home})")
        return rec

    def records(self, kind: Optional[str] = None,
                namespace: Optional[str] = None) -> List[Record]:
        root = _layout.records_root(self.home)
        try:
            names = sorted(os.listdir(root))
        except OSError:
            return []
        out = []
        for n in names:
            rec = Record.load(os.path.join(root, n))
            if rec and (not kind or rec.kind == kind) and \
                    (not namespace or rec.namespace == namespace):
                out.append(rec)
        out.sort(key=lambda r: (r.created, r.name))
        return out

    def view(self, rec: Record) -> View:
        # The binary writes pods.json, jobs.json, jobset.json, run.json in that order; read
        # them the other way round (after checking the process), so that the pods and Jobs
        # read are never older than the JobSet status read.
        alive = rec.pid > 0 and _pid_alive(rec.pid, rec.run_dir)
        d = rec.run_dir
        run = _read_json(os.path.join(d, _layout.RUN_JSON))
        jobset = _read_json(os.path.join(d, _layout.JOBSET_JSON))
        jobs = _read_json(os.path.join(d, _layout.JOBS_JSON))
        pods = _read_json(os.path.join(d, _layout.PODS_JSON))
        err = ""
        pods = [pod_object(p) for p in pods if isinstance(p, dict)] if isinstance(pods, list) \
            else []
        if not alive:
            err = _binary_error(os.path.join(rec.record_dir, _layout.BIN_STDERR))
            for p in pods:  # jaxset is gone, and with it (its watchdog sees to it) every pod
                if isinstance(p, dict) and pod_phase(p) in ("Pending", "Running"):
                    p.setdefault("status", {})["phase"] = "Failed"
        return View(record=rec, alive=alive, run=run, jobset=jobset,
                    jobs=jobs if isinstance(jobs, list) else [],
                    pods=pods,
                    binary_error=err)

    def events(self, rec: Record, kind: str = "JobSet") -> List[Event]:
        """events.log as Events about the job (the JobSet the binary runs for it), and the
        binary's own error when it could not run the job."""
        out = []
        try:
            with open(os.path.join(rec.run_dir, _layout.EVENTS_LOG), encoding="utf-8",
                      errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            lines = []
        for line in lines:
            m = _EVENT.match(line)
            if m:
                out.append(Event(involved_object_kind=kind, involved_object_name=rec.name,
                                 message=m.group(4), reason=m.group(3),
                                 event_time=parse_time(m.group(1)) or datetime.now(
                                     timezone.utc)))
        v = self.view(rec)
        if v.terminal == "Failed" and not v.jobset_condition("Failed"):
            out.append(Event(involved_object_kind=kind, involved_object_name=rec.name,
                             message=v.failure_message, reason="RunFailed",
                             event_time=datetime.now(timezone.utc)))
        return out

    # -- logs -----------------------------------------------------------------------------

    def log_path(self, v: View, pod: Mapping[str, Any], container: str) -> str:
        name = str((pod.get("metadata") or {}).get("name"))
        single = _layout.log_file(v.record.run_dir, name)
        if os.path.exists(single):
            return single
        return _layout.log_file(v.record.run_dir, name, container)

    def follow(self, rec: Record, pick: Callable[[View], Optional[Mapping[str, Any]]],
               container: str, poll: float = 0.1) -> Iterator[str]:
        """Lines of one pod's log as they are written, until that pod has finished (or is
        gone) and the file is read to its end.  Waits for the pod to start while the job
        runs (a job just created has none yet)."""
        pod = self.wait_for(rec, pick, poll)
        if pod is None:
            return
        pod_name = (pod.get("metadata") or {}).get("name")
        pos, buf = 0, b""
        while True:
            v = self.view(rec)
            # the file appears when the container first writes: look again until then
            path = self.log_path(v, pod, container)
            cur = next((p for p in v.pods
                        if (p.get("metadata") or {}).get("name") == pod_name), None)
            done = (not v.alive or cur is None or
                    pod_phase(cur) in ("Succeeded", "Failed"))
            chunk = b""
            try:
                with open(path, "rb") as f:
                    f.seek(pos)
                    chunk = f.read()
            except OSError:
                pass
            pos += len(chunk)
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                yield line.decode("utf-8", "replace")
            if done:
                if buf:
                    yield buf.decode("utf-8", "replace")
                return
            time.sleep(poll)

    def wait_for(self, rec: Record, pick: Callable[[View], Any], poll: float = 0.1) -> Any:
        """pick(view) once it returns something, or None once the job has finished
        without."""
        while True:
            v = self.view(rec)
            found = pick(v)
            if found or v.terminal:
                return found
            time.sleep(poll)

    def read_log(self, v: View, pod: Mapping[str, Any], container: str) -> str:
        try:
            with open(self.log_path(v, pod, container), encoding="utf-8",
                      errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    # -- stopping -------------------------------------------------------------------------

    def stop(self, rec: Record, timeout: Optional[float] = None) -> None:
        """SIGTERM to the jaxset process, then waits until it is gone (it exits once every
        pod is).  Past `timeout` (the grace period plus a margin) SIGKILL: jaxset's watchdog
        then kills every pod's process group."""
        if rec.pid <= 0 or not _pid_alive(rec.pid, rec.run_dir):
            self._reap(rec.pid)
            return
        grace = self.cfg.grace_period_seconds
        limit = timeout if timeout is not None else \
            (grace if grace is not None else DEFAULT_GRACE_S) + 15
        try:
            os.kill(rec.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        if not self._wait_gone(rec, limit):
            try:
                os.kill(rec.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._wait_gone(rec, 10)
        self._reap(rec.pid)

    def _wait_gone(self, rec: Record, limit: float) -> bool:
        end = time.monotonic() + limit
        while _pid_alive(rec.pid, rec.run_dir):
            if time.monotonic() > end:
                return False
            time.sleep(0.02)
        return True

    @staticmethod
    def _reap(pid: int) -> None:
        with _children_lock:
            child = _children.pop(pid, None)
        if child is not None:
            child.wait()

    def delete(self, rec: Record) -> None:
        """Stops the job and removes everything the SDK and the binary kept about it."""
        self.stop(rec)
        if rec.run_dir:
            shutil.rmtree(rec.run_dir, ignore_errors=True)
            _layout.forget_run(self.home, rec.name, rec.run_dir)
        shutil.rmtree(rec.record_dir, ignore_errors=True)


_EVENT = re.compile(r"^(\S+) (Normal|Warning) ([A-Za-z0-9_]+): (.*)$")


def _binary_error(path: str) -> str:
    """The last error line jaxset printed (for a run that could not start)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = [ln.strip() for ln in f if ln.strip()]
    except OSError:
        return ""
    errs = [ln for ln in lines if not ln.startswith("jaxset: ")]
    return errs[-1] if errs else ""


def select_pods(v: View, rjob: str) -> Dict[int, Dict[str, Any]]:
    """The newest pod (highest restart attempt, latest started) of each completion index of
    replicated job `rjob`."""
    out: Dict[int, Tuple[int, int, Dict[str, Any]]] = {}
    for order, p in enumerate(v.pods):
        if pod_label(p, "jobset.sigs.k8s.io/replicatedjob-name") != rjob:
            continue
        idx, key = pod_index(p), (pod_attempt(p), order)
        if idx not in out or key >= out[idx][:2]:
            out[idx] = (key[0], key[1], p)
    return {i: t[2] for i, t in sorted(out.items())}
