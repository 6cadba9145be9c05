"""The local backend, with the Kubernetes backend's methods (_kube.py): a job is ``jaxset run
FILE... -q`` in its own session, read back with ``jaxset get NAME -o json --local``, ``jaxset
logs`` and its run.json, removed by ``jaxset delete --force``.  Runs of ``jaxset run`` outside
the SDK are jobs too, of the kind their JobSet's jaxset.dev/source-kind names."""
from __future__ import annotations

import copy
import json
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
from datetime import datetime, timezone
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Union

from . import _binary, runtimes
from ._obj import (JOBSET_NAME, Obj, annotation, attempt, condition, created, dig, name_of,
                   parse_time, poll)
from .errors import NotFoundError
from .types import UNKNOWN, Event, LocalBackendConfig

NAME_RE = re.compile(r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")
RUN_STATE, RUN_DIR = "jaxset.dev/run-state", "jaxset.dev/run-dir"
SOURCE_KIND = "jaxset.dev/source-kind"
JAX_RJOBS = "jaxset.dev/jax-replicated-jobs"
GOING = ("Starting", "Running")
NOTE = "sdk-trainjob.json"  # the TrainJob the SDK created, kept beside its run
_EVENT = re.compile(r"^(\S+) (Normal|Warning) ([A-Za-z0-9_]+): (.*)$")


def _run_file(js: Obj, file: str) -> str:
    """A file of the run's directory ("" when there is no run)."""
    run_dir = annotation(js, RUN_DIR)
    return os.path.join(run_dir, file) if run_dir else ""


def _read_json(js: Obj, file: str) -> Dict[str, Any]:
    try:
        with open(_run_file(js, file), encoding="utf-8") as f:
            out = json.load(f)
        return out if isinstance(out, dict) else {}
    except (OSError, ValueError):
        return {}


def _ended(js: Obj) -> Optional[Obj]:
    """The condition a run ended with: the JobSet's Completed or Failed, else Failed when
    jaxset ended without finishing it (interrupted, killed); None while it runs."""
    found = condition(js, "Completed") or condition(js, "Failed")
    state = annotation(js, RUN_STATE)
    if found or state in GOING:
        return found
    return {"type": "Failed", "status": "True", "reason": "RunFailed",
            "message": f"jaxset run ended: {state or 'gone'}"}


class Local:
    """The jobs of one state home."""

    def __init__(self, cfg: LocalBackendConfig, namespace: Optional[str] = None):
        self.cfg = cfg
        self.binary = _binary.find_binary(cfg.jaxset_bin)
        self.namespace = namespace or cfg.namespace
        files = list(cfg.runtime_files)
        docs = _binary.decode_files(self.binary, files) if files else []
        self._runtimes = {(str(cr["kind"]), name_of(cr)): cr for cr in
                          [runtimes.jax_distributed(), *docs]
                          if cr.get("kind") in runtimes.RUNTIME_KINDS and name_of(cr)}

    def _env(self) -> Dict[str, str]:
        env = dict(os.environ)
        if self.cfg.home:
            env["JAXSET_HOME"] = os.path.abspath(os.path.expanduser(self.cfg.home))
        return env

    def _jaxset(self, *args: str) -> subprocess.CompletedProcess:
        return _binary.call(self.binary, [*args, "--local"], env=self._env())

    def _get(self, *args: str) -> Optional[Obj]:
        """`jaxset get ARGS -o json`'s object or List; None when there is none."""
        p = self._jaxset("get", *args, "-o", "json")
        return json.loads(p.stdout) if p.returncode == 0 else None

    def jobset(self, name: str) -> Optional[Obj]:
        """The JobSet of NAME's latest run, its state (_ended) and directory as annotations."""
        return self._get(name) if isinstance(name, str) and NAME_RE.match(name) else None

    def pods(self, name: str, ns: Optional[str] = None, label: str = "") -> List[Obj]:
        """The pods of NAME's latest run, of every restart attempt, oldest first."""
        if not (isinstance(name, str) and NAME_RE.match(name)):
            return []
        got = self._get("pods", "-l", f"{JOBSET_NAME}={name}")
        return got["items"] if got else []

    # -- jobs ------------------------------------------------------------------------------

    def job(self, kind: str, name: str, ns: Optional[str] = None) -> Obj:
        """The job `kind` NAME as its object with its status (NotFoundError)."""
        obj = self._job_of(kind, self.jobset(name), ns or self.namespace)
        if obj is None:
            raise NotFoundError(f"{kind} {ns or self.namespace}/{name} not found")
        return obj

    def _job_of(self, kind: str, js: Optional[Obj], ns: str) -> Optional[Obj]:
        """The job `kind` of the run whose JobSet is `js`, when it is one in `ns`."""
        if not js or annotation(js, SOURCE_KIND) != kind or dig(js, "metadata.namespace") != ns:
            return None
        return self._trainjob(js) if kind == "TrainJob" else self._get(f"jaxjob/{name_of(js)}")

    def jobs(self, kind: str, ns: Optional[str] = None) -> List[Obj]:
        """Every job of `kind` (runs of the SDK or of `jaxset run`), oldest first."""
        listed = (self._get() or {}).get("items", [])
        out = [self._job_of(kind, js, ns or self.namespace) for js in listed]
        return sorted((j for j in out if j), key=lambda j: (created(j), name_of(j)))

    def _trainjob(self, js: Obj) -> Obj:
        """A run's TrainJob (the SDK's, else one made from the JobSet) as the run has it."""
        tj = _read_json(js, NOTE) or {"apiVersion": runtimes.API_VERSION, "kind": "TrainJob",
                                      "spec": {"runtimeRef": {"name": UNKNOWN}}}
        run = _read_json(js, "run.json")
        tj["metadata"] = {"name": name_of(js), "namespace": dig(js, "metadata.namespace"),
                          "creationTimestamp": run.get("startTime")}
        trainer = annotation(js, JAX_RJOBS) or runtimes.NODE
        for rj in dig(js, "spec.replicatedJobs", []):
            if rj.get("name") == trainer:
                n = dig(rj, "template.spec.parallelism", 1)
                tj.setdefault("spec", {}).setdefault("trainer", {})["numNodes"] = n
        end = _ended(js)
        if end is not None:
            done = end["type"] == "Completed"
            first = "" if done else dig(run, "failure.summary", "")
            why = str(end.get("message") or end.get("reason") or "")
            end = dict(end, type="Complete" if done else "Failed",
                       message=f"{why}; first failed: {first}" if first else why)
        tj["status"] = {"conditions": [end] if end else []}
        return tj

    def failure(self, kind: str, name: str, ns: Optional[str] = None) -> Dict[str, Any]:
        """The first failed pod of the run's last failure (run.json's "failure"), or {}."""
        return dict(_read_json(self.jobset(name) or {}, "run.json").get("failure") or {})

    def pid(self, name: str) -> int:
        """The process of NAME's latest run (`jaxset run`)."""
        return int(_read_json(self.jobset(name) or {}, "run.json").get("pid") or 0)

    # -- runtimes --------------------------------------------------------------------------

    def runtime_objects(self) -> List[Obj]:
        return [copy.deepcopy(cr) for kind in runtimes.RUNTIME_KINDS
                for (k, _), cr in self._runtimes.items() if k == kind]

    # -- starting and stopping -------------------------------------------------------------

    def start(self, name: str, kind: str, docs: Sequence[Union[Obj, str]],
              beside: Optional[str] = None) -> None:
        """Validates `docs` and starts them detached (a TrainJob, docs[0], is kept beside its
        run).  Dicts are written as files in the folder of the manifest `beside`: relative
        paths resolve from there, as when that manifest is run."""
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise ValueError(f"job name {name!r} must be a lowercase RFC 1035 label (a-z, 0-9, "
                             "'-', starting with a letter, at most 63 characters)")
        if self.jobset(name) is not None:
            raise RuntimeError(f"{kind} {self.namespace}/{name} already exists")
        folder = os.path.dirname(os.path.abspath(beside)) if beside else None
        if folder and not os.access(folder, os.W_OK):
            folder = None
        with _binary.ManifestFiles(docs, folder) as files, tempfile.TemporaryFile() as err:
            _binary.validate_files(self.binary, files, env=self._env())
            proc = self._spawn(files.paths, err)
            try:
                js = self._started(name, kind, proc, err)
                if kind == "TrainJob":
                    with open(_run_file(js, NOTE), "w", encoding="utf-8") as f:
                        json.dump(docs[0], f)
            except BaseException:  # nothing may run half-started
                if self.jobset(name) is not None:
                    self._jaxset("delete", name, "--force")
                proc.terminate()
                proc.wait()
                raise

    def interrupt(self, kind: str, name: str, ns: Optional[str] = None) -> str:
        """The stop button (KeyboardInterrupt) while waiting on a job: stops it as SIGTERM
        stops `jaxset run` (every pod the kubelet's way), its run kept; what was done."""
        pid, ended = self.pid(name), lambda: _ended(self.jobset(name) or {})
        if pid <= 0 or ended():
            return f"interrupted: {kind} {name} had ended, nothing to stop"
        os.kill(pid, signal.SIGTERM)
        wait = (self.cfg.grace_period_seconds or 30) + 30
        if poll(ended, wait, lambda left: time.sleep(min(0.1, left))) is None:
            return f"interrupted: {kind} {name} was sent SIGTERM and is still stopping"
        return f"interrupted: {kind} {name} was stopped, no process left (delete_job removes it)"

    def _spawn(self, paths: List[str], err: Any) -> subprocess.Popen:
        c = self.cfg
        args = [self.binary, "run", *paths, "-q", "--no-color",
                *_binary.run_options(c.grace_period_seconds, c.restart_backoff_ms, c.gpus)]
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=err, cwd=c.cwd or None, env=self._env(),
                                start_new_session=True, close_fds=True)
        threading.Thread(target=proc.wait, daemon=True).start()  # reaped when it ends
        return proc

    def _started(self, name: str, kind: str, proc: subprocess.Popen, err: Any) -> Obj:
        """The run's JobSet once `jaxset get` shows it as `kind`; RuntimeError when jaxset ended."""
        while True:
            ended = proc.poll() is not None  # then read once more: a short job may be done
            js = self.jobset(name)
            if js and annotation(js, SOURCE_KIND) == kind and \
                    (kind == "TrainJob" or self._get(f"jaxjob/{name}")):
                return js
            if ended:
                err.seek(0)
                lines = err.read().decode("utf-8", "replace").strip().splitlines()
                raise RuntimeError(f"jaxset run of {name} ended at once: "
                                   f"{lines[-1] if lines else proc.returncode}")
            time.sleep(0.02)

    def delete(self, kind: str, name: str, ns: Optional[str] = None,
               cascade: Optional[str] = None) -> None:
        """`jaxset delete --force`: stops the run (SIGTERM, every pod the kubelet's way), waits
        for it and removes it."""
        self.job(kind, name, ns)
        p = self._jaxset("delete", name, "--force")
        if p.returncode not in (0, 2):
            raise RuntimeError(f"jaxset delete {name}: {p.stderr.strip()}")

    # -- logs, waiting, events -------------------------------------------------------------

    def log(self, kind: str, name: str, pod: Obj, container: str,
            ns: Optional[str] = None) -> List[str]:
        """`jaxset logs NAME POD`: the pod's log lines (none before it wrote any)."""
        p = self._jaxset("logs", name, name_of(pod), "--attempt", str(attempt(pod)))
        return p.stdout.splitlines() if p.returncode == 0 else []

    def follow(self, kind: str, name: str, pod: Obj, container: str,
               ns: Optional[str] = None) -> Iterator[str]:
        """`jaxset logs -f NAME POD`, once the pod has a log, until the run ends."""
        args = ["logs", "-f", name, name_of(pod), "--attempt", str(attempt(pod)), "--local"]
        while True:
            proc = subprocess.Popen([self.binary, *args], stdout=subprocess.PIPE, text=True,
                                    errors="replace", stderr=subprocess.DEVNULL, env=self._env())
            got = False
            try:
                for line in proc.stdout:  # type: ignore[union-attr]
                    got = True
                    yield line.rstrip("\n")
            finally:
                proc.kill()
                proc.wait()
            js = self.jobset(name)
            if got or proc.returncode == 0 or js is None or _ended(js):
                return
            time.sleep(0.1)  # no log written yet

    def wait_until(self, check: Callable[[], Any], timeout: float, interval: float,
                   watches: Sequence[Any] = ()) -> Any:
        """check() every `interval` seconds (see _obj.poll)."""
        return poll(check, timeout, lambda left: time.sleep(min(interval, left)))

    def events(self, kind: str, name: str, ns: Optional[str] = None) -> List[Event]:
        """The run's events.log, and why jaxset ended when it did without finishing the job."""
        js = self.jobset(name) or {}
        try:
            with open(_run_file(js, "events.log"), encoding="utf-8", errors="replace") as f:
                found = [_EVENT.match(line) for line in f.read().splitlines()]
        except OSError:
            found = []
        now = datetime.now(timezone.utc)
        out = [Event("JobSet", name, m.group(4), m.group(3), parse_time(m.group(1)) or now)
               for m in found if m]
        end = _ended(js)
        if end and end.get("reason") == "RunFailed":
            out.append(Event("JobSet", name, end["message"], "RunFailed", now))
        return out
