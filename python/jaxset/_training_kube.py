"""TrainingClient's Kubernetes backend: JAXJobs (kubeflow.org/v1) on a cluster, as the Training
Operator's SDK (kubeflow/training sdk/python/kubeflow/training/api/training_client.py) manages
them.  Status and conditions are the JAXJob's own (written by the controller that serves
JAXJob); worker pods are found by the Training Operator's labels
(``training.kubeflow.org/job-name``) or, for a JAXJob run as a JobSet, by the JobSet's."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional

from . import _binary, _kubecli as kj
from .types import KubernetesBackendConfig

JAXJOB_KIND, JAXJOB_API_VERSION = "JAXJob", "kubeflow.org/v1"
JAXJOB_CONTAINER = "jax"
TO_JOB_NAME = "training.kubeflow.org/job-name"
TO_REPLICA_TYPE = "training.kubeflow.org/replica-type"
TO_REPLICA_INDEX = "training.kubeflow.org/replica-index"
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
    """JAXJobs on a cluster (see TrainingClient), through the jaxset binary."""

    def __init__(self, cfg: KubernetesBackendConfig, namespace: Optional[str]):
        self.cfg = cfg
        self.kc = kj.Kube(cfg, namespace)
        self.namespace = self.kc.namespace

    def _ns(self, namespace: Optional[str]) -> str:
        return namespace or self.namespace

    def create_job(self, job: Any, name: Optional[str], namespace: Optional[str]) -> str:
        obj = _binary.load_job(self.kc.bin, job, JAXJOB_KIND)
        if obj.get("kind") != JAXJOB_KIND:
            raise ValueError(f"job must be a {JAXJOB_KIND}, got kind {obj.get('kind')!r}")
        av = obj.setdefault("apiVersion", JAXJOB_API_VERSION)
        if av != JAXJOB_API_VERSION:
            raise ValueError(f"a JAXJob's apiVersion is {JAXJOB_API_VERSION}, got {av!r}")
        meta = obj.setdefault("metadata", {})
        if not isinstance(meta, dict):
            raise ValueError("the JAXJob's metadata must be a mapping")
        if name:
            meta["name"] = name
        if not meta.get("name"):
            raise ValueError("the JAXJob needs metadata.name")
        meta["namespace"] = namespace or meta.get("namespace") or self.namespace
        obj.pop("status", None)
        self.kc.create(obj, meta["namespace"])
        return str(meta["name"])

    def get(self, name: str, namespace: Optional[str]) -> Job:
        if not isinstance(name, str) or not name:
            raise ValueError(f"a JAXJob name is a non-empty string, got {name!r}")
        return self.kc.get("jaxjob", name, self._ns(namespace))

    def jobs(self, namespace: Optional[str]) -> List[Job]:
        items = self.kc.list("jaxjobs", self._ns(namespace))
        items.sort(key=lambda j: (kj.created(j), kj.name_of(j)))
        return items

    def worker_pods(self, name: str, namespace: Optional[str], is_master: bool,
                    replica_index: Optional[int]) -> List[Dict[str, Any]]:
        """The newest pod of each worker index (of index 0 with `is_master`)."""
        ns = self._ns(namespace)
        pods = self.kc.list("pods", ns, f"{TO_JOB_NAME}={name}") or \
            self.kc.list("pods", ns, f"{kj.JOBSET_NAME}={name}")
        if is_master:
            replica_index = 0
        latest = kj.newest(pods, _index)
        return [p for i, p in latest.items() if replica_index is None or i == replica_index]

    def wait(self, name: str, namespace: Optional[str], check: Callable[[Job], Optional[Job]],
             timeout: float) -> Optional[Job]:
        ns = self._ns(namespace)
        return self.kc.wait_until(lambda: check(self.get(name, ns)), timeout,
                                  [["jaxjobs", "--all"]])

    def logs(self, name: str, namespace: Optional[str], is_master: bool,
             replica_index: Optional[int], follow: bool, want: int) -> Dict[str, str]:
        ns = self._ns(namespace)
        if follow:
            return self._follow(name, ns, is_master, replica_index, want)
        return {kj.name_of(p): "".join(f"{ln}\n" for ln in self.kc.log(
            "jaxjob", name, kj.name_of(p), JAXJOB_CONTAINER, ns))
            for p in self.worker_pods(name, ns, is_master, replica_index)}

    def _follow(self, name: str, ns: str, is_master: bool, replica_index: Optional[int],
                want: int) -> Dict[str, str]:
        """Waits for the `want` worker pods (while the job has not ended), then follows their
        logs (see Kube.follow_pods)."""
        def found() -> Optional[List[Dict[str, Any]]]:
            job = self.get(name, ns)  # a job deleted meanwhile ends this with NotFound
            pods = self.worker_pods(name, ns, is_master, replica_index)
            conds = (job.get("status") or {}).get("conditions") or []
            ended = any(c.get("type") in ("Succeeded", "Failed") and c.get("status") == "True"
                        for c in conds)
            return pods if len(pods) >= want or ended else None
        pods = None
        while pods is None:
            pods = self.kc.wait_until(found, 300, [
                ["jaxjobs", "--all"], ["pods", "--all", "-l", f"{TO_JOB_NAME}={name}"],
                ["pods", "--all", "-l", f"{kj.JOBSET_NAME}={name}"]])
        return self.kc.follow_pods("jaxjob", name, [kj.name_of(p) for p in pods],
                                   JAXJOB_CONTAINER, ns)

    def events(self, name: str, namespace: Optional[str]) -> List[str]:
        evs = self.kc.events(self._ns(namespace), {(JAXJOB_KIND, name)}, name)
        return [f"{e.event_time.isoformat()} {e.reason}: {e.message}" for e in evs]

    def delete(self, name: str, namespace: Optional[str], delete_options: Any) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"a JAXJob name is a non-empty string, got {name!r}")
        propagation = None  # the server's default, as the Training Operator's SDK sends none
        if isinstance(delete_options, Mapping):
            propagation = delete_options.get("propagationPolicy") or \
                delete_options.get("propagation_policy")
        elif delete_options is not None:
            propagation = getattr(delete_options, "propagation_policy", None)
        self.kc.delete("jaxjob", name, self._ns(namespace), propagation)


__all__ = ["KubeTrainingBackend"]
