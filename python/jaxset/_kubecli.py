"""What both Kubernetes backends share: the jaxset binary's cluster verbs (``config view``,
``get -o json``, ``get -w``, ``submit``, ``logs``, ``delete``) with the configuration's
``--kubeconfig``/``--context``/``-n`` passed through, their answers decoded, their refusals
raised as ApiError (the API server's Status, printed by ``--errors=json``), and the pods of a
job picked by index, newest first."""
from __future__ import annotations

import json
import os
import queue
import subprocess
import tempfile
import threading
import time
from datetime import datetime, timezone
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence

from . import _binary, _local
from .errors import (ApiConnectionError, ApiError, ApiNotFoundError, KubeConfigError,
                     parse_field_errors)
from .types import Event, KubernetesBackendConfig

JOBSET_NAME = "jobset.sigs.k8s.io/jobset-name"
RJOB_NAME = "jobset.sigs.k8s.io/replicatedjob-name"
RESTART_ATTEMPT = "jobset.sigs.k8s.io/restart-attempt"
COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"

Obj = Dict[str, Any]


def labels(obj: Mapping[str, Any]) -> Dict[str, str]:
    return ((obj.get("metadata") or {}).get("labels")) or {}


def name_of(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def parse_time(s: Any) -> Optional[float]:
    """Seconds since the epoch of a Kubernetes timestamp (RFC 3339), or None."""
    if not isinstance(s, str) or not s:
        return None
    try:
        return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def created(obj: Mapping[str, Any]) -> float:
    return parse_time((obj.get("metadata") or {}).get("creationTimestamp")) or 0.0


def completion_index(pod: Mapping[str, Any]) -> Optional[int]:
    """The pod's index in its Indexed Job (label, else annotation)."""
    meta = pod.get("metadata") or {}
    for src in (meta.get("labels") or {}, meta.get("annotations") or {}):
        if src.get(COMPLETION_INDEX) is not None:
            try:
                return int(src[COMPLETION_INDEX])
            except ValueError:
                return None
    return None


def newest(pods: Iterable[Obj], key: Callable[[Obj], Any]) -> Dict[Any, Obj]:
    """The newest pod of each key (key(pod) None: skipped), in key order: a later restart
    attempt, then not being deleted, then created later."""
    def rank(p: Obj) -> tuple:
        try:
            attempt = int(labels(p).get(RESTART_ATTEMPT) or 0)
        except ValueError:
            attempt = 0
        return (attempt, 0 if (p.get("metadata") or {}).get("deletionTimestamp") else 1,
                created(p))
    out: Dict[Any, Obj] = {}
    for p in pods:
        k = key(p)
        if k is not None and (k not in out or rank(p) >= rank(out[k])):
            out[k] = p
    return {k: out[k] for k in sorted(out, key=lambda x: (str(type(x)), x))}


def _status_of(stderr: str) -> Optional[Obj]:
    for line in stderr.splitlines():
        if line.startswith("{"):
            try:
                st = json.loads(line)
            except ValueError:
                continue
            if isinstance(st, dict) and st.get("kind") == "Status":
                return st
    return None


def _message(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip() and not ln.startswith("{")]
    text = "; ".join(lines) or "the jaxset binary failed"
    return text.split(": ", 1)[1] if text.startswith("jaxset ") and ": " in text else text


def refusal(rc: int, stderr: str) -> Exception:
    """The exception for a failed cluster verb: the Status's ApiError, else (no answer from the
    server) ApiConnectionError, else (exit 2: usage) ValueError."""
    st = _status_of(stderr)
    if st is not None:
        code = int(st.get("code") or 0)
        details = st.get("details") if isinstance(st.get("details"), dict) else {}
        cls = ApiNotFoundError if code == 404 else ApiError
        return cls(code, str(st.get("reason") or ""), str(st.get("message") or ""), details)
    if rc == _binary.EXIT_INVALID:
        return ValueError(_message(stderr))
    return ApiConnectionError(_message(stderr))


class Kube:
    """One cluster configuration: the binary and the flags that choose the cluster."""

    def __init__(self, cfg: KubernetesBackendConfig, namespace: Optional[str] = None):
        if cfg.client_configuration is not None:
            raise ValueError("client_configuration (a kubernetes.client.Configuration) is not "
                             "supported: jaxset's SDK reaches the cluster through the jaxset "
                             "binary; pass config_file and context instead")
        if cfg.request_timeout is not None and not cfg.request_timeout > 0:
            raise ValueError(f"request_timeout must be > 0 seconds, got {cfg.request_timeout!r}")
        self.bin = _binary.find_binary(cfg.jaxset_bin)
        self.flags = ["--request-timeout", f"{cfg.request_timeout or 30.0:g}s", "--errors=json"]
        if cfg.config_file is not None:
            self.flags += ["--kubeconfig", os.path.expanduser(os.fspath(cfg.config_file))]
        if cfg.context:
            self.flags += ["--context", cfg.context]
        ns = namespace or cfg.namespace
        p = _binary.call(self.bin, ["config", "view", "--minify", "-o", "json", *self.flags,
                                    *(["-n", ns] if ns else [])])
        if p.returncode != 0:
            raise KubeConfigError(_message(p.stderr))
        doc = json.loads(p.stdout)
        self.namespace: str = doc["contexts"][0]["context"]["namespace"]
        self.server: str = doc["clusters"][0]["cluster"]["server"]

    def args(self, verb: str, *args: str, ns: Optional[str] = None) -> List[str]:
        return [self.bin, verb, *args, *self.flags, "-n", ns or self.namespace]

    def run(self, verb: str, *args: str, ns: Optional[str] = None) -> str:
        """The verb's standard output; its refusal raised (see refusal)."""
        p = subprocess.run(self.args(verb, *args, ns=ns), capture_output=True, text=True,
                           stdin=subprocess.DEVNULL)
        if p.returncode != 0:
            raise refusal(p.returncode, p.stderr)
        return p.stdout

    def get(self, kind: str, name: str, ns: Optional[str] = None) -> Obj:
        return json.loads(self.run("get", f"{kind}/{name}", "-o", "json", ns=ns))

    def list(self, kind: str, ns: Optional[str] = None, selector: Optional[str] = None,
             ) -> List[Obj]:
        sel = ["-l", selector] if selector else []
        return json.loads(self.run("get", kind, "--all", *sel, "-o", "json", ns=ns))["items"]

    def create(self, obj: Obj, ns: Optional[str] = None) -> None:
        """`submit` of the object (validated by the binary as `jaxset validate` does; what it
        refuses is raised as the API server's 422 would be)."""
        with tempfile.TemporaryDirectory(prefix="jaxset-") as d:
            path = os.path.join(d, "object.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(obj, f)
            p = subprocess.run(self.args("submit", path, ns=ns), capture_output=True,
                               text=True, stdin=subprocess.DEVNULL)
        if p.returncode == 0:
            return
        err = refusal(p.returncode, p.stderr)
        if isinstance(err, ValueError):
            causes = [{"field": e.field, "message": e.message, "reason": "FieldValueInvalid"}
                      for e in parse_field_errors(p.stderr, [path]) if e.field]
            err = ApiError(422, "Invalid", f"{obj.get('kind')} \"{name_of(obj)}\" is invalid",
                           {"causes": causes})
        raise err

    def delete(self, kind: str, name: str, ns: Optional[str] = None,
               cascade: Optional[str] = None) -> None:
        self.run("delete", f"{kind}/{name}",
                 *([f"--cascade={cascade.lower()}"] if cascade else []), ns=ns)

    def log(self, kind: str, name: str, pod: str, container: str,
            ns: Optional[str] = None) -> List[str]:
        """The pod's log lines (none while its container has not started)."""
        try:
            out = self.run("logs", f"{kind}/{name}", "--pod", pod, "-c", container, ns=ns)
        except ApiError as e:
            if e.code == 400:  # waiting to start
                return []
            raise
        return out.splitlines()

    def stream(self, verb: str, *args: str, ns: Optional[str] = None) -> Iterator[str]:
        """A long-running verb's lines as they come (`logs -f`); its refusal raised at the
        end."""
        p = subprocess.Popen(self.args(verb, *args, ns=ns), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
        try:
            assert p.stdout is not None and p.stderr is not None
            for line in p.stdout:
                yield line.rstrip("\n")
            err = p.stderr.read()
            if p.wait() != 0:
                raise refusal(p.returncode, err)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()

    def follow_pods(self, kind: str, name: str, pods: List[str], container: str,
                    ns: Optional[str] = None) -> Dict[str, str]:
        """`logs -f --pod P` of each pod at once (see _local.follow_pods)."""
        return _local.follow_pods({p: (lambda p=p: self.stream(
            "logs", f"{kind}/{name}", "-f", "--pod", p, "-c", container, ns=ns)) for p in pods})

    def wait_until(self, check: Callable[[], Any], timeout: float,
                   watches: Sequence[Sequence[str]]) -> Any:
        """check() now and after every change `get -w` of the `watches` (get's arguments)
        sees, until it returns something other than None (returned) or `timeout` seconds pass
        (None).  A watch that fails raises its refusal."""
        changes: "queue.Queue[Optional[Exception]]" = queue.Queue()
        procs = [subprocess.Popen(self.args("get", *w, "-w", "-o", "name"),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  stdin=subprocess.DEVNULL) for w in watches]
        for p in procs:
            threading.Thread(target=_pump, args=(p, changes), daemon=True).start()
        end = time.monotonic() + timeout
        try:
            while True:
                out = check()
                if out is not None:
                    return out
                left = end - time.monotonic()
                if left <= 0:
                    return None
                try:
                    err = changes.get(timeout=left)
                except queue.Empty:
                    continue
                if err is not None:
                    raise err
        finally:
            for p in procs:
                p.kill()
                p.wait()

    def events(self, ns: str, objects: Iterable[tuple], jobset: str) -> List[Event]:
        """core/v1 events about `objects` ((kind, name)) and about the JobSet `jobset`, its Jobs
        and its pods, oldest first."""
        want = set(objects) | {("JobSet", jobset)}
        for kind in ("Job", "Pod"):
            want |= {(kind, name_of(o))
                     for o in self.list(kind.lower(), ns, f"{JOBSET_NAME}={jobset}")}
        out = []
        for ev in self.list("events", ns):
            inv = ev.get("involvedObject") or {}
            if (inv.get("kind"), inv.get("name")) in want:
                t = next((parse_time(ev.get(k)) for k in ("lastTimestamp", "eventTime",
                                                          "firstTimestamp")
                          if parse_time(ev.get(k)) is not None), None) or created(ev)
                out.append(Event(involved_object_kind=str(inv.get("kind")),
                                 involved_object_name=str(inv.get("name")),
                                 message=str(ev.get("message") or ""),
                                 reason=str(ev.get("reason") or ""),
                                 event_time=datetime.fromtimestamp(t, timezone.utc)))
        out.sort(key=lambda e: e.event_time)
        return out


def _pump(p: subprocess.Popen, changes: "queue.Queue[Optional[Exception]]") -> None:
    """One line per change of a `get -w -o name`; its refusal when it ends early."""
    assert p.stdout is not None and p.stderr is not None
    for _ in p.stdout:
        changes.put(None)
    err = p.stderr.read()
    if p.wait() not in (0, -9):
        changes.put(refusal(p.returncode, err))
