"""TrainingClient's Kubernetes backend: JAXJobs (kubeflow.org/v1) on a cluster, as the Training
Operator's SDK (kubeflow/training sdk/python/kubeflow/training/api/training_client.py) manages
them.  Status and conditions are the JAXJob's own (written by the controller that serves
JAXJob); worker pods are found by the Training Operator's labels
(``training.kubeflow.org/job-name``) or, for a JAXJob run as a JobSet, by the JobSet's."""
from __future__ import annotations

import copy
import os
import queue
import threading
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from . import _binary, _kubejobs as kj
from ._kube import PODS, Resource, parse_time
from .types import KubernetesBackendConfig

JAXJOBS = Resource("kubeflow.org", "v1", "jaxjobs", "JAXJob")
JAXJOB_CONTAINER = "jax"
TO_JOB_NAME = "training.kubeflow.org/job-name"
TO_REPLICA_TYPE = "training.kubeflow.org/replica-type"
TO_REPLICA_INDEX = "training.kubeflow.org/replica-index"
TO_JOB_ROLE = "training.kubeflow.org/job-role"
WORKER = "worker"

Job = Dict[str, Any]


def _index(pod: Mapping[str, Any]) -> Optional[int]:
    lab = kj.labels(pod)
    if TO_JOB_NAME in lab:
        if (lab.get(TO_REPLICA_TYPE) or WORKER).lower() != WORKER:
            return None
        try:
            return int(lab.get(TO_REPLICA_INDEX) or 0)
        except ValueError:
            return None
    if lab.get(kj.RJOB_NAME, "").lower() != WORKER:
        return None
    idx = kj.completion_index(pod)
    return idx if idx is not None else 0


class KubeTrainingBackend:
    """JAXJobs on a cluster (see TrainingClient)."""

    def __init__(self, cfg: KubernetesBackendConfig, namespace: Optional[str]):
        self.cfg = cfg
        self.kc, self.namespace = kj.connect(cfg, namespace)

    def _ns(self, namespace: Optional[str]) -> str:
        return namespace or self.namespace

    def _load(self, job: Any) -> Job:
        if isinstance(job, Mapping):
            return copy.deepcopy(dict(job))
        if isinstance(job, (str, os.PathLike)):
            path = os.fspath(job)
            if not os.path.isfile(path):
                raise ValueError(f"job manifest {path}: no such file")
            docs = _binary.decode_files(_binary.find_binary(self.cfg.jaxset_bin), [path])
            docs = [d for d in docs if d.get("kind") == JAXJOBS.kind]
            if len(docs) != 1:
                raise ValueError(f"{path} must hold exactly one JAXJob, it holds {len(docs)}")
            return docs[0]
        raise ValueError(f"job must be a JAXJob dict or a manifest path, not "
                         f"{type(job).__name__}")

    def create_job(self, job: Any, name: Optional[str], namespace: Optional[str]) -> str:
        obj = self._load(job)
        if obj.get("kind") != JAXJOBS.kind:
            raise ValueError(f"job must be a {JAXJOBS.kind}, got kind {obj.get('kind')!r}")
        av = obj.setdefault("apiVersion", JAXJOBS.api_version)
        if av != JAXJOBS.api_version:
            raise ValueError(f"a JAXJob's apiVersion is {JAXJOBS.api_version}, got {av!r}")
        meta = obj.setdefault("metadata", {})
        if not isinstance(meta, dict):
            raise ValueError("the JAXJob's metadata must be a mapping")
        if name:
            meta["name"] = name
        if not meta.get("name"):
            raise ValueError("the JAXJob needs metadata.name")
        meta["namespace"] = namespace or meta.get("namespace") or self.namespace
        obj.pop("status", None)
        self.kc.create(JAXJOBS, obj, meta["namespace"])
        return str(meta["name"])

    def get(self, name: str, namespace: Optional[str]) -> Job:
        if not isinstance(name, str) or not name:
            raise ValueError(f"a JAXJob name is a non-empty string, got {name!r}")
        return self.kc.get(JAXJOBS, name, self._ns(namespace))

    def jobs(self, namespace: Optional[str]) -> List[Job]:
        items = self.kc.list(JAXJOBS, self._ns(namespace))["items"]
        items.sort(key=lambda j: (parse_time((j.get("metadata") or {}).get(
            "creationTimestamp")) or 0, kj.name_of(j)))
        return items

    def worker_pods(self, name: str, namespace: Optional[str], is_master: bool,
                    replica_index: Optional[int]) -> List[Dict[str, Any]]:
        """The newest pod of each worker index (of index 0 with `is_master`)."""
        ns = self._ns(namespace)
        pods = self.kc.list(PODS, ns, label_selector=f"{TO_JOB_NAME}={name}")["items"]
        if not pods:
            pods = kj.jobset_pods(self.kc, ns, name)
        if is_master:
            replica_index = 0
        latest = kj.newest(pods, _index)
        return [p for i, p in latest.items() if replica_index is None or i == replica_index]

    def wait(self, name: str, namespace: Optional[str], check: Callable[[Job], Optional[Job]],
             timeout: float) -> Optional[Job]:
        ns = self._ns(namespace)
        return kj.wait_until(self.kc, lambda: check(self.get(name, ns)), timeout,
                             [(JAXJOBS, ns, None, f"metadata.name={name}")])

    def logs(self, name: str, namespace: Optional[str], is_master: bool,
             replica_index: Optional[int], follow: bool,
             want: int) -> Dict[str, str]:
        ns = self._ns(namespace)
        pods = self.worker_pods(name, ns, is_master, replica_index)
        if not follow:
            return {kj.name_of(p): "".join(
                f"{ln}\n" for ln in kj.read_log(self.kc, ns, kj.name_of(p),
                                                kj.pod_container(p, JAXJOB_CONTAINER)))
                for p in pods}
        return self._follow(name, ns, is_master, replica_index, want)

    def _follow(self, name: str, ns: str, is_master: bool, replica_index: Optional[int],
                want: int) -> Dict[str, str]:
        """Waits for the `want` worker pods, then prints ``[Pod <name>]: <line>`` as their
        lines come; returns every pod's text once all ended."""
        def found() -> Optional[List[Dict[str, Any]]]:
            job = self.get(name, ns)  # a job deleted meanwhile ends this with NotFound
            pods = self.worker_pods(name, ns, is_master, replica_index)
            conds = (job.get("status") or {}).get("conditions") or []
            ended = any(c.get("type") in ("Succeeded", "Failed") and c.get("status") == "True"
                        for c in conds)
            return pods if len(pods) >= want or ended else None
        pods = None
        while pods is None:
            pods = kj.wait_until(self.kc, found, 300, [
                (JAXJOBS, ns, None, f"metadata.name={name}"),
                (PODS, ns, f"{TO_JOB_NAME}={name}", None),
                (PODS, ns, f"{kj.JOBSET_NAME}={name}", None)])
        out: "queue.Queue[Tuple[str, Optional[str], Optional[BaseException]]]" = queue.Queue()

        def pump(pod_name: str) -> None:
            def find() -> Optional[Dict[str, Any]]:
                try:
                    return self.kc.get(PODS, pod_name, ns)
                except Exception:  # noqa: BLE001 - gone: the stream ends
                    return None
            try:
                for line in kj.follow_log(
                        self.kc, ns, find, lambda: find() is not None,
                        [(PODS, ns, None, f"metadata.name={pod_name}")], JAXJOB_CONTAINER):
                    out.put((pod_name, line, None))
                out.put((pod_name, None, None))
            except BaseException as e:  # noqa: BLE001 - handed to the caller
                out.put((pod_name, None, e))

        names = [kj.name_of(p) for p in pods]
        for p in pods:
            threading.Thread(target=pump, args=(kj.name_of(p),), daemon=True).start()
        logs: Dict[str, List[str]] = {n: [] for n in names}
        left = len(names)
        err: Optional[BaseException] = None
        while left:
            pod, line, e = out.get()
            if line is None:
                left -= 1
                err = err or e
                continue
            print(f"[Pod {pod}]: {line}", flush=True)
            logs[pod].append(line)
        if err is not None:
            raise err
        return {n: "".join(f"{ln}\n" for ln in lines) for n, lines in logs.items()}

    def events(self, name: str, namespace: Optional[str]) -> List[str]:
        ns = self._ns(namespace)
        evs = kj.job_events(self.kc, ns, {(JAXJOBS.kind, name)}, name)
        return [f"{e.event_time.isoformat()} {e.reason}: {e.message}" for e in evs]

    def delete(self, name: str, namespace: Optional[str], delete_options: Any) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"a JAXJob name is a non-empty string, got {name!r}")
        propagation = None  # the server's default, as the Training Operator's SDK sends none
        if isinstance(delete_options, Mapping):
            propagation = delete_options.get("propagationPolicy") or \
                delete_options.get("propagation_policy") or propagation
        elif delete_options is not None:
            propagation = getattr(delete_options, "propagation_policy", None) or propagation
        self.kc.delete(JAXJOBS, name, self._ns(namespace), propagation=propagation)


__all__ = ["KubeTrainingBackend", "JAXJOBS"]
