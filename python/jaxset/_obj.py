"""Reading Kubernetes objects as the binary prints them (JSON), the same for both backends."""
from __future__ import annotations

import contextlib
import sys
import threading
import time
from datetime import datetime, timezone
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple

Obj = Dict[str, Any]

JOBSET_NAME = "jobset.sigs.k8s.io/jobset-name"
RJOB_NAME = "jobset.sigs.k8s.io/replicatedjob-name"
RESTART_ATTEMPT = "jobset.sigs.k8s.io/restart-attempt"
COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"


def dig(obj: Any, path: str, default: Any = None) -> Any:
    """obj's value at the dotted `path` ("spec.template.spec"), else `default`."""
    for key in path.split("."):
        obj = obj.get(key) if isinstance(obj, Mapping) else None
    return default if obj is None else obj


def labels(obj: Mapping[str, Any]) -> Dict[str, str]:
    return dig(obj, "metadata.labels", {})


def annotation(obj: Mapping[str, Any], key: str) -> str:
    return str(dig(obj, "metadata.annotations", {}).get(key) or "")


def name_of(obj: Mapping[str, Any]) -> str:
    return str(dig(obj, "metadata.name", ""))


def parse_time(s: Any) -> Optional[datetime]:
    """A Kubernetes timestamp (RFC 3339), or None."""
    try:
        return datetime.fromisoformat(str(s).replace("Z", "+00:00"))
    except ValueError:
        return None


def created(obj: Mapping[str, Any]) -> datetime:
    return parse_time(dig(obj, "metadata.creationTimestamp")) or \
        datetime.fromtimestamp(0, timezone.utc)


def condition(obj: Mapping[str, Any], ctype: str) -> Optional[Obj]:
    """The condition `ctype` of obj's status when it is True."""
    return next((c for c in dig(obj, "status.conditions", [])
                 if c.get("type") == ctype and c.get("status") == "True"), None)


def to_int(s: Any) -> Optional[int]:
    try:
        return int(s)
    except (TypeError, ValueError):
        return None


def completion_index(pod: Mapping[str, Any]) -> Optional[int]:
    """The pod's index in its Indexed Job (label, else annotation)."""
    for src in (labels(pod), dig(pod, "metadata.annotations", {})):
        if src.get(COMPLETION_INDEX) is not None:
            return to_int(src[COMPLETION_INDEX])
    return None


def attempt(pod: Mapping[str, Any]) -> int:
    return to_int(labels(pod).get(RESTART_ATTEMPT)) or 0


def rank(pod: Obj) -> Tuple[int, int, datetime]:
    """Newer pods rank higher: a later restart attempt, not being deleted, created later."""
    return attempt(pod), 0 if dig(pod, "metadata.deletionTimestamp") else 1, created(pod)


def newest(pods: Iterable[Obj], key: Callable[[Obj], Any]) -> Dict[Any, Obj]:
    """The newest pod (by rank; else listed later) of each key that is not None."""
    out: Dict[Any, Obj] = {}
    for p in pods:
        k = key(p)
        if k is not None and (k not in out or rank(p) >= rank(out[k])):
            out[k] = p
    return {k: out[k] for k in sorted(out, key=lambda x: (str(type(x)), x))}


def poll(check: Callable[[], Any], timeout: float, pause: Callable[[float], None]) -> Any:
    """check() now and after each pause(seconds left) until it returns something other than
    None (returned) or `timeout` seconds pass (None)."""
    end = time.monotonic() + timeout
    while True:
        out = check()
        left = end - time.monotonic()
        if out is not None or left <= 0:
            return out
        pause(left)


@contextlib.contextmanager
def stopped_on_interrupt(backend: Any, kind: str, name: str, on: bool = True) -> Iterator[None]:
    """A KeyboardInterrupt (a notebook's stop button) in the block goes on after the backend's
    interrupt(), which stops a local job, has said what it did on stderr."""
    try:
        yield
    except KeyboardInterrupt:
        if on:
            print(backend.interrupt(kind, name), file=sys.stderr, flush=True)
        raise


def follow_pods(streams: Mapping[str, Callable[[], Iterator[str]]]) -> Dict[str, str]:
    """Reads every pod's stream (pod name -> its lines) at once, printing ``[Pod <name>]:
    <line>`` as lines come, as the Training Operator's SDK does; returns every pod's text once
    every stream ended (the first stream's error raised then)."""
    logs: Dict[str, List[str]] = {p: [] for p in streams}
    errors: List[Exception] = []
    printing = threading.Lock()

    def pump(pod: str) -> None:
        try:
            for line in streams[pod]():
                with printing:
                    print(f"[Pod {pod}]: {line}", flush=True)
                logs[pod].append(line)
        except Exception as e:  # noqa: BLE001 - handed to the caller
            errors.append(e)
    threads = [threading.Thread(target=pump, args=(p,), daemon=True) for p in streams]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return {p: "".join(f"{ln}\n" for ln in lines) for p, lines in logs.items()}
