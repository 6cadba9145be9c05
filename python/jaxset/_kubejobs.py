"""What both Kubernetes backends share: the client from a KubernetesBackendConfig, the pods a
job's JobSet owns, their logs (followed through a pod's start), events of a job and its
children, and waiting on watches with a deadline."""
from __future__ import annotations

import queue
import threading
import time
from datetime import datetime, timezone
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Set, Tuple

from . import _kubeconfig
from ._kube import EVENTS, JOBS, PODS, KubeClient, Resource, parse_time
from .errors import ApiError, ApiNotFoundError
from .types import Event, KubernetesBackendConfig

JOBSET_NAME = "jobset.sigs.k8s.io/jobset-name"
RJOB_NAME = "jobset.sigs.k8s.io/replicatedjob-name"
RESTART_ATTEMPT = "jobset.sigs.k8s.io/restart-attempt"
COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"


def connect(cfg: KubernetesBackendConfig,
            namespace: Optional[str] = None) -> Tuple[KubeClient, str]:
    """(client, namespace) for a backend configuration; nothing is sent to the server yet."""
    if cfg.client_configuration is not None:
        raise ValueError("client_configuration (a kubernetes.client.Configuration) is not "
                         "supported: jaxset's SDK has its own client; pass config_file and "
                         "context instead")
    if cfg.request_timeout is not None and not cfg.request_timeout > 0:
        raise ValueError(f"request_timeout must be > 0 seconds, got {cfg.request_timeout!r}")
    cluster = _kubeconfig.load(cfg.config_file, cfg.context, namespace or cfg.namespace,
                               cfg.jaxset_bin)
    return KubeClient(cluster, cfg.request_timeout or 30.0), cluster.namespace


def labels(obj: Mapping[str, Any]) -> Dict[str, str]:
    return ((obj.get("metadata") or {}).get("labels")) or {}


def name_of(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def phase(pod: Mapping[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "Pending")


def completion_index(pod: Mapping[str, Any]) -> Optional[int]:
    """The pod's index in its Indexed Job (label, else annotation)."""
    meta = pod.get("metadata") or {}
    for src in (meta.get("labels") or {}, meta.get("annotations") or {}):
        v = src.get(COMPLETION_INDEX)
        if v is not None:
            try:
                return int(v)
            except ValueError:
                return None
    return None


def _rank(pod: Mapping[str, Any]) -> Tuple[int, int, float]:
    """Newer pods rank higher: a later restart attempt, not being deleted, created later."""
    meta = pod.get("metadata") or {}
    try:
        attempt = int(labels(pod).get(RESTART_ATTEMPT) or 0)
    except ValueError:
        attempt = 0
    return (attempt, 0 if meta.get("deletionTimestamp") else 1,
            parse_time(meta.get("creationTimestamp")) or 0.0)


def newest(pods: Iterable[Mapping[str, Any]],
           key: Callable[[Mapping[str, Any]], Any]) -> Dict[Any, Dict[str, Any]]:
    """The newest pod of each key (key(pod) None: skipped), in key order."""
    out: Dict[Any, Dict[str, Any]] = {}
    for p in pods:
        k = key(p)
        if k is None:
            continue
        if k not in out or _rank(p) >= _rank(out[k]):
            out[k] = dict(p)
    return {k: out[k] for k in sorted(out, key=lambda x: (str(type(x)), x))}


def jobset_pods(kc: KubeClient, ns: str, name: str) -> List[Dict[str, Any]]:
    return kc.list(PODS, ns, label_selector=f"{JOBSET_NAME}={name}")["items"]


def pod_container(pod: Mapping[str, Any], want: str) -> str:
    """`want` when the pod has such a container, else its first container."""
    names = [c.get("name") for c in (pod.get("spec") or {}).get("containers") or []]
    return want if want in names or not names else str(names[0])


def _waiting(e: ApiError) -> bool:
    """The kubelet (or the API server) says the container has not started yet."""
    return e.code == 400 and any(t in e.message for t in (
        "waiting to start", "does not have a host assigned", "PodInitializing",
        "ContainerCreating"))


def read_log(kc: KubeClient, ns: str, pod: str, container: str) -> List[str]:
    """The log's lines; none while the container has not started."""
    try:
        return kc.text(PODS.path(ns, pod, "log"), {"container": container}).splitlines()
    except ApiError as e:
        if _waiting(e):
            return []
        raise


Watched = Tuple[Resource, Optional[str], Optional[str], Optional[str]]


def follow_log(kc: KubeClient, ns: str, find: Callable[[], Optional[Dict[str, Any]]],
               alive: Callable[[], bool], watches: List[Watched],
               container: str) -> Iterator[str]:
    """Lines of the pod `find()` returns as they are written, until its container ends.
    While there is no such pod, or its container has not started, waits for a change the
    `watches` ((resource, namespace, label selector, field selector)) see, as long as
    `alive()` (the job exists and has not ended)."""
    stop = threading.Event()
    events = Pump(stop)
    for res, wns, ls, fs in watches:
        events.watch(kc, res, wns, label_selector=ls, field_selector=fs)
    try:
        while True:
            pod = find()
            if pod is not None:
                c = pod_container(pod, container)
                try:
                    for raw in kc.lines(PODS.path(ns, name_of(pod), "log"),
                                        {"container": c, "follow": "true"}):
                        yield raw.decode("utf-8", "replace").rstrip("\n")
                    return
                except ApiError as e:
                    if not (_waiting(e) or e.code == 404):
                        raise
            if not alive():
                return
            events.next(None)  # something changed: look again
    finally:
        stop.set()


class Pump:
    """Watches feeding one queue: a waiter wakes on any change of what it watches."""

    def __init__(self, stop: threading.Event):
        self.stop = stop
        self.q: "queue.Queue[Any]" = queue.Queue()

    def watch(self, kc: KubeClient, res: Resource, ns: Optional[str],
              label_selector: Optional[str] = None,
              field_selector: Optional[str] = None) -> None:
        def run() -> None:
            try:
                for ev in kc.watch(res, ns, label_selector=label_selector,
                                   field_selector=field_selector, stop=self.stop):
                    self.q.put(ev)
            except BaseException as e:  # noqa: BLE001 - handed to the waiter
                if not self.stop.is_set():
                    self.q.put(e)
        threading.Thread(target=run, daemon=True, name=f"watch-{res.plural}").start()

    def next(self, timeout: Optional[float]) -> bool:
        """Waits for at least one event (then takes every queued one); False on timeout.
        A failed watch's exception is raised here."""
        try:
            first = self.q.get(timeout=timeout)
        except queue.Empty:
            return False
        items = [first]
        while True:
            try:
                items.append(self.q.get_nowait())
            except queue.Empty:
                break
        for it in items:
            if isinstance(it, BaseException):
                raise it
        return True


def wait_until(kc: KubeClient, check: Callable[[], Optional[Any]], timeout: float,
               watches: List[Watched]) -> Optional[Any]:
    """Calls check() now and after every change the watches see, until it returns something
    other than None (returned) or `timeout` seconds pass (None)."""
    end = time.monotonic() + timeout
    stop = threading.Event()
    pump = Pump(stop)
    try:
        for res, ns, ls, fs in watches:
            pump.watch(kc, res, ns, label_selector=ls, field_selector=fs)
        while True:
            out = check()
            if out is not None:
                return out
            left = end - time.monotonic()
            if left <= 0:
                return None
            pump.next(left)
    finally:
        stop.set()


def _event_time(ev: Mapping[str, Any]) -> datetime:
    for k in ("lastTimestamp", "eventTime", "firstTimestamp"):
        t = parse_time(ev.get(k))
        if t is not None:
            return datetime.fromtimestamp(t, timezone.utc)
    t = parse_time((ev.get("metadata") or {}).get("creationTimestamp"))
    return datetime.fromtimestamp(t or 0, timezone.utc)


def job_events(kc: KubeClient, ns: str, objects: Set[Tuple[str, str]],
               jobset: str) -> List[Event]:
    """core/v1 events about `objects` ((kind, name)) and about the JobSet `jobset`, its Jobs
    and its pods, oldest first."""
    want = set(objects)
    want.add(("JobSet", jobset))
    sel = f"{JOBSET_NAME}={jobset}"
    for res in (JOBS, PODS):
        try:
            for o in kc.list(res, ns, label_selector=sel)["items"]:
                want.add((res.kind, name_of(o)))
        except ApiNotFoundError:
            pass
    out = []
    for ev in kc.list(EVENTS, ns)["items"]:
        inv = ev.get("involvedObject") or {}
        if (inv.get("kind"), inv.get("name")) in want:
            out.append(Event(involved_object_kind=str(inv.get("kind")),
                             involved_object_name=str(inv.get("name")),
                             message=str(ev.get("message") or ""),
                             reason=str(ev.get("reason") or ""), event_time=_event_time(ev)))
    out.sort(key=lambda e: e.event_time)
    return out

