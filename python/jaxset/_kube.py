"""Both backends' verbs (Verbs): ``jaxset get``, ``get -w``, ``logs``, ``logs -f`` and ``delete``
have one shape on a cluster and on the runs this machine keeps (``--local``).  The Kubernetes
backend (Kube) passes ``--kubeconfig``/``--context``/``-n`` through and raises the Status
``--errors=json`` prints as ApiError; the local one is _local.Local."""
from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import threading
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from . import _binary, runtimes
from ._obj import JOBSET_NAME, Obj, created, name_of, parse_time, poll
from .errors import (ApiConnectionError, ApiError, ApiNotFoundError, KubeConfigError,
                     json_lines)
from .types import Event, KubernetesBackendConfig

Watch = Tuple[str, Optional[str]]  # (plural, label selector)


def _status_of(stderr: str) -> Optional[Obj]:
    """The v1 Status --errors=json printed as a line of JSON, or None."""
    return next((o for o in json_lines(stderr)[0] if o.get("kind") == "Status"), None)


def _text(stderr: str) -> str:
    """What the binary said for people, as it said it (its lines but those of JSON)."""
    return json_lines(stderr)[1].strip() or "the jaxset binary failed"


def refusal(rc: int, stderr: str) -> Exception:
    """A failed cluster verb's exception: the Status's ApiError, else (exit 2: usage)
    ValueError, else (no answer from the server) ApiConnectionError."""
    st = _status_of(stderr)
    if st is not None:
        code = int(st.get("code") or 0)
        details = st.get("details") if isinstance(st.get("details"), dict) else {}
        cls = ApiNotFoundError if code == 404 else ApiError
        return cls(code, str(st.get("reason") or ""), str(st.get("message") or ""), details)
    if rc == _binary.EXIT_INVALID:
        return ValueError(_text(stderr))
    return ApiConnectionError(_text(stderr))


class Verbs:
    """The binary's verbs shared by both backends; a subclass sets `binary`, `namespace` and
    `flags` (what chooses the cluster, or ``--local``)."""
    binary: str
    namespace: str
    flags: List[str]
    quiet: Tuple[int, ...] = ()  # codes a `logs -f` may end with that mean "no log came"

    def _env(self) -> Optional[Dict[str, str]]:
        return None

    def _refusal(self, rc: int, stderr: str) -> Exception:
        return refusal(rc, stderr)

    def _pod(self, pod: Obj) -> List[str]:
        """`logs`' options that select the pod."""
        return ["--pod", name_of(pod)]

    def _args(self, verb: str, *args: str, ns: Optional[str] = None) -> List[str]:
        return [verb, *args, *self.flags, "-n", ns or self.namespace]

    def _popen(self, verb: str, *args: str, ns: Optional[str] = None) -> subprocess.Popen:
        return subprocess.Popen([self.binary, *self._args(verb, *args, ns=ns)], text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, env=self._env(), errors="replace")

    def run(self, verb: str, *args: str, ns: Optional[str] = None) -> str:
        """The verb's standard output; its refusal raised."""
        p = _binary.call(self.binary, self._args(verb, *args, ns=ns), env=self._env(),
                         timeout=None)
        if p.returncode != 0:
            raise self._refusal(p.returncode, p.stderr)
        return p.stdout

    def job(self, kind: str, name: str, ns: Optional[str] = None) -> Obj:
        return json.loads(self.run("get", f"{kind.lower()}/{name}", "-o", "json", ns=ns))

    def list(self, plural: str, ns: Optional[str] = None, sel: Optional[str] = None) -> List[Obj]:
        sel_args = ["-l", sel] if sel else []
        return json.loads(self.run("get", plural, "--all", *sel_args, "-o", "json", ns=ns))["items"]

    def jobs(self, kind: str, ns: Optional[str] = None) -> List[Obj]:
        """Every job of `kind`, oldest first."""
        return sorted(self.list(kind.lower() + "s", ns), key=lambda j: (created(j), name_of(j)))

    def pods(self, name: str, ns: Optional[str] = None, label: str = JOBSET_NAME) -> List[Obj]:
        return self.list("pods", ns, f"{label}={name}")

    def delete(self, kind: str, name: str, ns: Optional[str] = None,
               cascade: Optional[str] = None) -> None:
        self.run("delete", f"{kind.lower()}/{name}",
                 *([f"--cascade={cascade.lower()}"] if cascade else []), ns=ns)

    def log(self, kind: str, name: str, pod: Obj, container: str,
            ns: Optional[str] = None) -> List[str]:
        """The pod's log lines (none while its container has not started: the kubelet's 400)."""
        try:
            out = self.run("logs", f"{kind.lower()}/{name}", *self._pod(pod), "-c", container,
                           ns=ns)
        except ApiError as e:
            if e.code == 400:
                return []
            raise
        return out.splitlines()

    def follow(self, kind: str, name: str, pod: Obj, container: str,
               ns: Optional[str] = None) -> Iterator[str]:
        """`logs -f --pod`: the pod's lines as they come, until its log ends."""
        p = self._popen("logs", f"{kind.lower()}/{name}", "-f", *self._pod(pod), "-c",
                        container, ns=ns)
        try:
            for line in p.stdout:  # type: ignore[union-attr]
                yield line.rstrip("\n")
            err = self._refusal(p.wait(), p.stderr.read())  # type: ignore[union-attr]
            if p.returncode != 0 and getattr(err, "code", None) not in self.quiet:
                raise err
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()

    def wait_until(self, check: Callable[[], Any], timeout: float, interval: float,
                   watches: Sequence[Watch]) -> Any:
        """check() after every change `get -w` of the `watches` sees (see _obj.poll), and every
        `interval` seconds once the watches ended (locally: no run they watch is going).  A
        watch that fails raises its refusal."""
        changes: "queue.Queue[Optional[Exception]]" = queue.Queue()
        procs = [self._popen("get", plural, "--all", *(["-l", sel] if sel else []), "-w",
                             "-o", "name") for plural, sel in watches]
        for p in procs:
            threading.Thread(target=self._pump, args=(p, changes), daemon=True).start()

        def pause(left: float) -> None:
            watching = any(p.poll() is None for p in procs)
            with contextlib.suppress(queue.Empty):  # Queue.get refuses inf
                err = changes.get(timeout=min(left, 3600 if watching else interval))
                if err is not None:
                    raise err
        try:
            return poll(check, timeout, pause)
        finally:
            for p in procs:
                p.kill()
                p.wait()

    def events(self, kind: str, name: str, ns: Optional[str] = None) -> List[Event]:
        """The events of the job, its JobSet, Jobs and pods, oldest first."""
        want = {(kind, name), ("JobSet", name)}
        for k in ("Job", "Pod"):
            want |= {(k, name_of(o)) for o in self.list(k.lower(), ns, f"{JOBSET_NAME}={name}")}
        out = []
        for ev in self.list("events", ns):
            inv = ev.get("involvedObject") or {}
            if (inv.get("kind"), inv.get("name")) in want:
                t = next((parse_time(ev[k]) for k in ("lastTimestamp", "eventTime",
                                                      "firstTimestamp")
                          if ev.get(k) and parse_time(ev[k])), None) or created(ev)
                out.append(Event(str(inv.get("kind")), str(inv.get("name")),
                                 str(ev.get("message") or ""), str(ev.get("reason") or ""), t))
        return sorted(out, key=lambda e: e.event_time)

    def _pump(self, p: subprocess.Popen, changes: "queue.Queue[Optional[Exception]]") -> None:
        """One wake-up per line of a `get -w -o name`, and one when it ends (its refusal when
        it ends early)."""
        for _ in p.stdout:  # type: ignore[union-attr]
            changes.put(None)
        err = p.stderr.read()  # type: ignore[union-attr]
        changes.put(self._refusal(p.returncode, err) if p.wait() not in (0, -9) else None)


class Kube(Verbs):
    """One cluster configuration: the binary and the flags that choose the cluster."""

    def __init__(self, cfg: KubernetesBackendConfig, namespace: Optional[str] = None):
        if cfg.client_configuration is not None:
            raise ValueError("client_configuration (a kubernetes.client.Configuration) is not "
                             "supported: jaxset's SDK reaches the cluster through the jaxset "
                             "binary; pass config_file and context instead")
        if cfg.request_timeout is not None and not cfg.request_timeout > 0:
            raise ValueError(f"request_timeout must be > 0 seconds, got {cfg.request_timeout!r}")
        self.binary = _binary.find_binary(cfg.jaxset_bin)
        self.flags = ["--request-timeout", f"{cfg.request_timeout or 30.0:g}s", "--errors=json"]
        if cfg.config_file is not None:
            self.flags += ["--kubeconfig", os.path.expanduser(os.fspath(cfg.config_file))]
        if cfg.context:
            self.flags += ["--context", cfg.context]
        ns = namespace or cfg.namespace
        p = _binary.call(self.binary, ["config", "view", "--minify", "-o", "json", *self.flags,
                                       *(["-n", ns] if ns else [])])
        if p.returncode != 0:
            raise KubeConfigError(_text(p.stderr))
        self.namespace = json.loads(p.stdout)["contexts"][0]["context"]["namespace"]

    def runtime_objects(self) -> List[Obj]:
        out: List[Obj] = []
        for kind in runtimes.RUNTIME_KINDS:  # a kind not served (no CRD) has none
            with contextlib.suppress(ApiNotFoundError):
                out += [dict(o, kind=kind) for o in self.list(kind)]
        return out

    def create(self, obj: Obj, ns: Optional[str] = None) -> None:
        """`submit`; what the binary's validation refuses (exit status 2 without the server's
        Status: the errors `validate --cluster --errors=json` reports) is raised as the
        server's 422."""
        with _binary.ManifestFiles([obj]) as files:
            p = _binary.call(self.binary, self._args("submit", *files.paths, ns=ns), timeout=None)
            if p.returncode == 0:
                return
            err = refusal(p.returncode, p.stderr)
            if isinstance(err, ValueError):
                causes = [{"field": e.field, "message": e.message, "reason": "FieldValueInvalid"}
                          for e in _binary.field_errors(self.binary, files.paths, cluster=True)
                          if e.field]
                err = ApiError(422, "Invalid",
                               f"{obj.get('kind')} \"{name_of(obj)}\" is invalid",
                               {"causes": causes})
        raise err

    def interrupt(self, kind: str, name: str, ns: Optional[str] = None) -> str:
        return f"interrupted: stopped waiting; {kind} {name} goes on in the cluster"

    def failure(self, kind: str, name: str, ns: Optional[str] = None) -> Dict[str, Any]:
        """What a failure is attributed to: nothing more than the job's condition says."""
        return {}

