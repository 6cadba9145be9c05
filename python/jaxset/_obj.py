"""Reading Kubernetes objects as the binary prints them (JSON), the same for both backends."""
from __future__ import annotations

import queue
import threading
from datetime import datetime, timezone
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple

Obj = Dict[str, Any]

JOBSET_NAME = "jobset.sigs.k8s.io/jobset-name"
RJOB_NAME = "jobset.sigs.k8s.io/replicatedjob-name"
RESTART_ATTEMPT = "jobset.sigs.k8s.io/restart-attempt"
COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"


def meta(obj: Mapping[str, Any]) -> Obj:
    return obj.get("metadata") or {}


def labels(obj: Mapping[str, Any]) -> Dict[str, str]:
    return meta(obj).get("labels") or {}


def annotation(obj: Mapping[str, Any], key: str) -> str:
    return str((meta(obj).get("annotations") or {}).get(key) or "")


def name_of(obj: Mapping[str, Any]) -> str:
    return str(meta(obj).get("name") or "")


def parse_time(s: Any) -> Optional[datetime]:
    """A Kubernetes timestamp (RFC 3339), or None."""
    try:
        return datetime.fromisoformat(str(s).replace("Z", "+00:00"))
    except ValueError:
        return None


def created(obj: Mapping[str, Any]) -> datetime:
    return parse_time(meta(obj).get("creationTimestamp")) or datetime.fromtimestamp(0, timezone.utc)


def condition(obj: Mapping[str, Any], ctype: str) -> Optional[Obj]:
    """The condition `ctype` of obj's status when it is True."""
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c.get("type") == ctype and c.get("status") == "True":
            return c
    return None


def _int(s: Any) -> Optional[int]:
    try:
        return int(s)
    except (TypeError, ValueError):
        return None


def completion_index(pod: Mapping[str, Any]) -> Optional[int]:
    """The pod's index in its Indexed Job (label, else annotation)."""
    for src in (labels(pod), meta(pod).get("annotations") or {}):
        if src.get(COMPLETION_INDEX) is not None:
            return _int(src[COMPLETION_INDEX])
    return None


def attempt(pod: Mapping[str, Any]) -> int:
    return _int(labels(pod).get(RESTART_ATTEMPT)) or 0


def rank(pod: Obj) -> Tuple[int, int, datetime]:
    """Newer pods rank higher: a later restart attempt, not being deleted, created later."""
    return attempt(pod), 0 if meta(pod).get("deletionTimestamp") else 1, created(pod)


def newest(pods: Iterable[Obj], key: Callable[[Obj], Any]) -> Dict[Any, Obj]:
    """The newest pod of each key (pods whose key is None are skipped), in key order; of two
    alike, the one listed later."""
    out: Dict[Any, Obj] = {}
    for p in pods:
        k = key(p)
        if k is not None and (k not in out or rank(p) >= rank(out[k])):
            out[k] = p
    return {k: out[k] for k in sorted(out, key=lambda x: (str(type(x)), x))}


def follow_pods(streams: Mapping[str, Callable[[], Iterator[str]]]) -> Dict[str, str]:
    """Reads every pod's stream (pod name -> its lines) at once, printing ``[Pod <name>]:
    <line>`` as lines come, as the Training Operator's SDK does; returns every pod's text once
    every stream ended (the first stream's error raised then)."""
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
