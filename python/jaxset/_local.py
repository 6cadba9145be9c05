"""The local backend: the Kubernetes backend's verbs (_kube.Verbs) over ``--local``; a job is
``jaxset run FILE... -q`` in its own session, removed by ``jaxset delete --force``.  Runs of
``jaxset run`` outside the SDK are jobs too, of the kind they were run as."""
from __future__ import annotations

import contextlib
import copy
import functools
import json
import os
import re
import signal
import site
import subprocess
import sysconfig
import tempfile
import threading
import time
from datetime import datetime, timezone
from typing import Any, Dict, List, Optional, Sequence, Union

from . import _binary, runtimes
from ._kube import Verbs, _text, refusal
from ._obj import Obj, annotation, attempt, condition, dig, name_of, poll
from .errors import ApiError, NotFoundError
from .types import Event, LocalBackendConfig

NAME_RE = re.compile(r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")
# What `jaxset get -o json` says of a local run (cli/backend/backend.h BACKEND_ANN_*): its
# state, the pid of the process running it (while it runs) and its failure record (JSON).
RUN_STATE, RUN_PID, RUN_FAILURE = ("jaxset.dev/run-state", "jaxset.dev/run-pid",
                                   "jaxset.dev/run-failure")
GOING = ("Starting", "Running", "Restarting", "Suspended")  # the states of a live run


@functools.lru_cache(maxsize=None)
def package_folder() -> Optional[str]:
    """The folder this jaxset package is imported from, unless it is a site-packages folder
    (where the processes' interpreter finds it itself): a source tree's python/ put on
    sys.path, which the processes get on their PYTHONPATH so that a training function can
    ``from jaxset import report``."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    paths = sysconfig.get_paths()
    sites = [*getattr(site, "getsitepackages", list)(), site.getusersitepackages(),
             paths["purelib"], paths["platlib"]]
    return None if os.path.realpath(here) in {os.path.realpath(p) for p in sites} else here


def _ended(js: Obj) -> Optional[Obj]:
    """The condition a run's JobSet ended with: Completed or Failed, else Failed when jaxset
    ended without finishing it (interrupted, killed); None while it runs."""
    found = condition(js, "Completed") or condition(js, "Failed")
    state = annotation(js, RUN_STATE)
    if found or state in GOING:
        return found
    return {"type": "Failed", "status": "True", "reason": "RunFailed",
            "message": f"jaxset run ended: {state or 'gone'}"}


class Local(Verbs):
    """The jobs of one state home."""
    quiet = (400,)  # a pod that wrote no log before its run ended
    display = "LocalProcessBackend (jaxset's LocalBackendConfig)"  # in upstream's messages
    images = False  # whether containers run in their images (`jaxset run --images`)

    def __init__(self, cfg: LocalBackendConfig, namespace: Optional[str] = None):
        self.cfg = cfg
        self.binary = _binary.find_binary(cfg.jaxset_bin)
        self.namespace = namespace or cfg.namespace
        self.flags = ["--local", "--errors=json"]
        files = list(cfg.runtime_files)
        docs = _binary.decode_files(self.binary, files) if files else []
        self._runtimes = {(str(cr["kind"]), name_of(cr)): cr for cr in
                          [runtimes.jax_distributed(self.binary), *docs]
                          if cr.get("kind") in runtimes.RUNTIME_KINDS and name_of(cr)}

    def _env(self) -> Dict[str, str]:
        """The binary's environment, and so the processes': this one, the config's home, and
        package_folder() after $PYTHONPATH's folders."""
        env = dict(os.environ)
        if self.cfg.home:
            env["JAXSET_HOME"] = os.path.abspath(os.path.expanduser(self.cfg.home))
        folders = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        if package_folder() and package_folder() not in folders:
            env["PYTHONPATH"] = os.pathsep.join([*folders, str(package_folder())])
        return env

    def _refusal(self, rc: int, stderr: str) -> Exception:
        """A failed local verb: the Status --errors=json prints (404 NotFound when there is no
        run of the name), else a 400 (no pod log matches, yet: a cluster's container waiting
        to start) with the binary's text."""
        err = refusal(rc, stderr)
        return err if isinstance(err, ApiError) else ApiError(400, "BadRequest", _text(stderr), {})

    def _pod(self, pod: Obj) -> List[str]:
        """The pod and its attempt (a run that restarted heads each attempt's log else)."""
        return [*super()._pod(pod), "--attempt", str(attempt(pod))]

    def _get(self, what: str) -> Optional[Obj]:
        """`jaxset get WHAT -o json`'s object; None when there is none."""
        with contextlib.suppress(NotFoundError):
            return json.loads(self.run("get", what, "-o", "json"))
        return None

    def jobset(self, name: str) -> Optional[Obj]:
        """The JobSet of NAME's latest run, its state and directory as annotations."""
        return self._get(name) if isinstance(name, str) and NAME_RE.match(name) else None

    # -- jobs ------------------------------------------------------------------------------

    def job(self, kind: str, name: str, ns: Optional[str] = None) -> Obj:
        """The job `kind` NAME as its object with its status (NotFoundError)."""
        ns = ns or self.namespace
        got = self._get(f"{kind.lower()}/{name}") if NAME_RE.match(str(name)) else None
        if not got or dig(got, "metadata.namespace") != ns:
            raise NotFoundError(f"{kind} {ns}/{name} not found")
        return got

    def jobs(self, kind: str, ns: Optional[str] = None) -> List[Obj]:
        """Every job of `kind` (runs of the SDK or of `jaxset run`), oldest first."""
        ns = ns or self.namespace
        return [j for j in super().jobs(kind) if dig(j, "metadata.namespace") == ns]

    def failure(self, kind: str, name: str, ns: Optional[str] = None) -> Dict[str, Any]:
        """The first failed pod of the run's last failure (run.json's "failure", as `jaxset
        get -o json` carries it), or {}."""
        try:
            out = json.loads(annotation(self.jobset(name) or {}, RUN_FAILURE) or "{}")
        except ValueError:
            return {}
        return dict(out) if isinstance(out, dict) else {}

    def pid(self, name: str) -> int:
        """The process running NAME's latest run (`jaxset run`); 0 once it ended."""
        return int(annotation(self.jobset(name) or {}, RUN_PID) or 0)

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
                self._started(name, kind, proc, err)
            except BaseException:  # nothing may run half-started
                if self.jobset(name) is not None:
                    self.run("delete", name, "--force")
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

    def job_runtime(self, cr: Obj, name: str, trainer: Any) -> Obj:
        """The runtime document a TrainJob `name` of `trainer` runs with: `cr` as it is."""
        return cr

    def _run_flags(self) -> List[str]:
        """`jaxset run`'s options beyond the config's grace, backoff and GPUs."""
        return []

    def _spawn(self, paths: List[str], err: Any) -> subprocess.Popen:
        c = self.cfg
        args = [self.binary, "run", *paths, "-q", "--no-color", *self._run_flags(),
                *_binary.run_options(c.grace_period_seconds, c.restart_backoff_ms, c.gpus)]
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=err, cwd=c.cwd or None, env=self._env(),
                                start_new_session=True, close_fds=True)
        threading.Thread(target=proc.wait, daemon=True).start()  # reaped when it ends
        return proc

    def _started(self, name: str, kind: str, proc: subprocess.Popen, err: Any) -> None:
        """Once `jaxset get` shows the run's `kind`; RuntimeError when jaxset ended."""
        while True:
            ended = proc.poll() is not None  # then read once more: a short job may be done
            if self._get(f"{kind.lower()}/{name}"):
                return
            if ended:
                err.seek(0)
                text = err.read().decode("utf-8", "replace").strip()
                raise RuntimeError(f"jaxset run of {name} ended at once: "
                                   f"{text or proc.returncode}")
            time.sleep(0.02)

    def delete(self, kind: str, name: str, ns: Optional[str] = None,
               cascade: Optional[str] = None) -> None:
        """`jaxset delete --force`: stops the run (SIGTERM, every pod the kubelet's way), waits
        for it and removes it."""
        self.job(kind, name, ns)
        with contextlib.suppress(NotFoundError):  # gone meanwhile
            self.run("delete", f"{kind.lower()}/{name}", "--force")

    def events(self, kind: str, name: str, ns: Optional[str] = None) -> List[Event]:
        """The run's events, and why jaxset ended when it did without finishing the job."""
        out = super().events(kind, name, ns)
        end = _ended(self.jobset(name) or {})
        if end and end.get("reason") == "RunFailed":
            out.append(Event("JobSet", name, end["message"], "RunFailed",
                             datetime.now(timezone.utc)))
        return out
