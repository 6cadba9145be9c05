"""TrainingClient: the Kubeflow Training Operator's client (``kubeflow.training``), the subset
that serves JAXJob (``kubeflow.org/v1``), over jaxset.

    from jaxset import TrainingClient, LocalBackendConfig

    client = TrainingClient(backend_config=LocalBackendConfig())
    client.create_job(job="examples/jaxjob.yaml")      # or the JAXJob as a dict
    client.wait_for_job_conditions("jaxjob-simple")    # Succeeded, or RuntimeError if Failed
    logs, _ = client.get_job_logs("jaxjob-simple")     # {pod name: log text} of worker 0
    client.delete_job("jaxjob-simple")

On a cluster, ``TrainingClient(config_file=..., context=..., namespace=...)`` (or
``backend_config=KubernetesBackendConfig(...)``) creates the JAXJob on the API server; its
status is what the cluster's JAXJob controller writes.

Jobs are dicts shaped as the JAXJob object (``status`` with ``conditions`` Created, Running,
Restarting, Succeeded, Failed, Suspended and ``replicaStatuses.Worker``), not generated model
classes.  Locally a JAXJob runs as the JobSet jaxset converts it to: its pods are named
``<job>-worker-0-<index>-<suffix>``.
"""
from __future__ import annotations

import copy
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Set, Tuple, Union

from . import _binary, _local
from .errors import NotFoundError
from .types import KubernetesBackendConfig, LocalBackendConfig

JAXJOB_KIND = "JAXJob"
API_VERSION = "kubeflow.org/v1"
JAXJOB_CONTAINER = "jax"
WORKER_RJOB = "worker"
DEFAULT_TIMEOUT = 120

CREATED, RUNNING, RESTARTING, SUCCEEDED, FAILED, SUSPENDED = (
    "Created", "Running", "Restarting", "Succeeded", "Failed", "Suspended")
JOB_CONDITIONS = {CREATED, RUNNING, RESTARTING, SUCCEEDED, FAILED}

Job = Dict[str, Any]


def has_condition(conditions: List[Mapping[str, Any]], ctype: str) -> bool:
    return any(c.get("type") == ctype and c.get("status") == "True" for c in conditions)


class LocalTrainingBackend:
    """JAXJobs run on this machine by the jaxset binary."""

    def __init__(self, cfg: LocalBackendConfig, namespace: str):
        self.cfg = cfg
        self.namespace = namespace
        self.store = _local.Store(cfg)

    def create_job(self, job: Any, name: Optional[str], namespace: Optional[str]) -> str:
        obj = _binary.load_job(self.store.binary, job, JAXJOB_KIND)
        if obj.get("kind") != JAXJOB_KIND:
            raise ValueError(f"job must be a {JAXJOB_KIND}, got kind {obj.get('kind')!r}")
        meta = obj.setdefault("metadata", {})
        if name:
            meta["name"] = name
        meta["namespace"] = namespace or meta.get("namespace") or self.namespace
        if not meta.get("name"):
            raise ValueError("the JAXJob needs metadata.name")
        self.store.start(meta["name"], JAXJOB_KIND, [obj], meta["namespace"])
        return str(meta["name"])

    def record(self, name: str, namespace: Optional[str]) -> _local.Record:
        return self.store.record(name, JAXJOB_KIND, namespace)

    def job(self, rec: _local.Record) -> Job:
        obj = copy.deepcopy(next((m for m in rec.manifests if m.get("kind") == JAXJOB_KIND),
                                 {"apiVersion": API_VERSION, "kind": JAXJOB_KIND}))
        meta = obj.setdefault("metadata", {})
        meta.update({"name": rec.name, "namespace": rec.namespace,
                     "creationTimestamp": rec.created})
        obj["status"] = (self.store.view(rec).jaxjob or {}).get("status") or {}
        return obj

    def jobs(self, namespace: Optional[str]) -> List[Job]:
        return [self.job(r) for r in self.store.records(JAXJOB_KIND, namespace)]

    def replicas(self, rec: _local.Record) -> int:
        """Worker replicas of the JAXJob (default 1)."""
        job = next((m for m in rec.manifests if m.get("kind") == JAXJOB_KIND), {})
        specs = (job.get("spec") or {}).get("jaxReplicaSpecs") or {}
        worker = next((v for k, v in specs.items() if k.lower() == WORKER_RJOB), {}) or {}
        n = worker.get("replicas", 1)
        return n if isinstance(n, int) and n > 0 else 1

    def worker_pods(self, rec: _local.Record, is_master: bool,
                    replica_index: Optional[int]) -> Tuple[_local.View, List[Dict[str, Any]]]:
        v = self.store.view(rec)
        pods = _local.select_pods(v, WORKER_RJOB)
        if is_master:
            replica_index = 0
        return v, [p for i, p in pods.items() if replica_index is None or i == replica_index]


class TrainingClient:
    """The Training Operator SDK's TrainingClient for JAXJob.

    `backend_config=LocalBackendConfig(...)` runs jobs on this machine.  Without it (or with
    a KubernetesBackendConfig, or the Training Operator SDK's `config_file`, `context`) the
    client talks to a cluster found as kubectl finds it (kubeconfig, in-cluster): JAXJobs are
    created there and their status is what the cluster's JAXJob controller writes.
    `namespace` defaults to the backend's (locally "default"; on a cluster the context's);
    `job_kind` must be JAXJob.  On a cluster, the API server's refusals raise ApiError
    (ApiNotFoundError for a missing job), an unreachable server ApiConnectionError.

        client = TrainingClient(config_file="~/.kube/config", namespace="team-a")
        client.create_job(job="examples/jaxjob.yaml")
        client.wait_for_job_conditions("jaxjob-simple", wait_timeout=900)
    """

    def __init__(self, config_file: Optional[str] = None, context: Optional[str] = None,
                 client_configuration: Any = None, namespace: Optional[str] = None,
                 job_kind: str = JAXJOB_KIND,
                 backend_config: Union[LocalBackendConfig, KubernetesBackendConfig,
                                       None] = None):
        self.job_kind = _kind(job_kind)
        self.kube: Optional[Any] = None
        if isinstance(backend_config, LocalBackendConfig):
            if config_file or context or client_configuration:
                raise ValueError("config_file, context and client_configuration choose a "
                                 "cluster: they do not go with LocalBackendConfig")
            self.namespace = namespace or backend_config.namespace
            self.backend = LocalTrainingBackend(backend_config, self.namespace)
            return
        if backend_config is None:
            backend_config = KubernetesBackendConfig(
                namespace=namespace, config_file=config_file, context=context,
                client_configuration=client_configuration)
        elif not isinstance(backend_config, KubernetesBackendConfig):
            raise ValueError(f"Invalid backend config '{backend_config}'")
        elif config_file or context or client_configuration:
            raise ValueError("pass config_file, context and client_configuration in the "
                             "KubernetesBackendConfig, not beside it")
        from ._training_kube import KubeTrainingBackend
        self.kube = KubeTrainingBackend(backend_config, namespace)
        self.namespace = self.kube.namespace

    def create_job(self, job: Any = None, name: Optional[str] = None,
                   namespace: Optional[str] = None, job_kind: Optional[str] = None,
                   base_image: Optional[str] = None, train_func: Optional[Callable] = None,
                   parameters: Optional[Dict[str, Any]] = None, num_workers: Optional[int] = None,
                   **unsupported: Any) -> str:
        """Creates the JAXJob `job` (a dict, or the path of a YAML/JSON manifest holding one)
        and starts it at once; returns its name.  As in the Training Operator SDK, the
        `train_func` / `base_image` shortcut does not exist for JAXJob (ValueError).  An
        invalid job raises ValidationError with the field errors; a job of the same name
        RuntimeError.  Nothing starts on any error."""
        _kind(job_kind or self.job_kind)
        if job is None or train_func is not None or base_image is not None or parameters or \
                num_workers is not None or unsupported:
            raise ValueError("JAXJob is created from a job object: pass job=<dict or manifest "
                             "path> (the train_func/base_image shortcut is implemented only "
                             "for TFJob and PyTorchJob)")
        if self.kube is not None:
            return self.kube.create_job(job, name, namespace)
        return self.backend.create_job(job, name, namespace)

    def get_job(self, name: str, namespace: Optional[str] = None,
                job_kind: Optional[str] = None, timeout: int = DEFAULT_TIMEOUT) -> Job:
        """The JAXJob with its status; NotFoundError (a RuntimeError) when there is none."""
        _kind(job_kind or self.job_kind)
        if self.kube is not None:
            return self.kube.get(name, namespace)
        return self.backend.job(self.backend.record(name, namespace))

    def list_jobs(self, namespace: Optional[str] = None, job_kind: Optional[str] = None,
                  timeout: int = DEFAULT_TIMEOUT) -> List[Job]:
        """Every JAXJob (of `namespace`, when given), oldest first."""
        _kind(job_kind or self.job_kind)
        if self.kube is not None:
            return self.kube.jobs(namespace)
        return self.backend.jobs(namespace)

    def get_job_conditions(self, name: Optional[str] = None, namespace: Optional[str] = None,
                           job_kind: Optional[str] = None, job: Optional[Job] = None,
                           timeout: int = DEFAULT_TIMEOUT) -> List[Dict[str, Any]]:
        """The job's conditions (of `job` when given, else of the job named)."""
        if job is None:
            if not name:
                raise ValueError("Job name or object must be set")
            job = self.get_job(name, namespace, job_kind, timeout)
        return list((job.get("status") or {}).get("conditions") or [])

    def _is(self, ctype: str, name: Optional[str], namespace: Optional[str],
            job_kind: Optional[str], job: Optional[Job], timeout: int) -> bool:
        return has_condition(self.get_job_conditions(name, namespace, job_kind, job, timeout),
                             ctype)

    def is_job_created(self, name: Optional[str] = None, namespace: Optional[str] = None,
                       job_kind: Optional[str] = None, job: Optional[Job] = None,
                       timeout: int = DEFAULT_TIMEOUT) -> bool:
        return self._is(CREATED, name, namespace, job_kind, job, timeout)

    def is_job_running(self, name: Optional[str] = None, namespace: Optional[str] = None,
                       job_kind: Optional[str] = None, job: Optional[Job] = None,
                       timeout: int = DEFAULT_TIMEOUT) -> bool:
        return self._is(RUNNING, name, namespace, job_kind, job, timeout)

    def is_job_restarting(self, name: Optional[str] = None, namespace: Optional[str] = None,
                          job_kind: Optional[str] = None, job: Optional[Job] = None,
                          timeout: int = DEFAULT_TIMEOUT) -> bool:
        return self._is(RESTARTING, name, namespace, job_kind, job, timeout)

    def is_job_succeeded(self, name: Optional[str] = None, namespace: Optional[str] = None,
                         job_kind: Optional[str] = None, job: Optional[Job] = None,
                         timeout: int = DEFAULT_TIMEOUT) -> bool:
        return self._is(SUCCEEDED, name, namespace, job_kind, job, timeout)

    def is_job_failed(self, name: Optional[str] = None, namespace: Optional[str] = None,
                      job_kind: Optional[str] = None, job: Optional[Job] = None,
                      timeout: int = DEFAULT_TIMEOUT) -> bool:
        return self._is(FAILED, name, namespace, job_kind, job, timeout)

    def wait_for_job_conditions(self, name: str, namespace: Optional[str] = None,
                                job_kind: Optional[str] = None,
                                expected_conditions: Set[str] = {SUCCEEDED},
                                wait_timeout: float = 600, polling_interval: float = 15,
                                callback: Optional[Callable[[Job], None]] = None,
                                timeout: int = DEFAULT_TIMEOUT) -> Job:
        """Waits until the job has one of `expected_conditions` (a subset of Created, Running,
        Restarting, Succeeded, Failed) and returns it; `callback(job)` is called at every
        poll.  RuntimeError when the job Failed (and Failed was not expected), TimeoutError
        after `wait_timeout` seconds."""
        if not set(expected_conditions) <= JOB_CONDITIONS:
            raise ValueError(f"Expected conditions: {expected_conditions} must be subset of "
                             f"{JOB_CONDITIONS}")
        kind = _kind(job_kind or self.job_kind)
        ns = namespace or self.namespace

        def check(job: Job) -> Optional[Job]:
            conds = self.get_job_conditions(job=job)
            if callback:
                callback(job)
            if FAILED not in expected_conditions and has_condition(conds, FAILED):
                raise RuntimeError(f"{kind} {ns}/{name} is Failed. {kind} conditions: {conds}")
            return job if any(has_condition(conds, c) for c in expected_conditions) else None
        if self.kube is not None:
            found = self.kube.wait(name, ns, check, wait_timeout)
        else:
            found = _local.poll_until(lambda: check(self.get_job(name, namespace, job_kind)),
                                      wait_timeout, polling_interval)
        if found is None:
            raise TimeoutError(f"Timeout waiting for {kind}: {ns}/{name} to reach expected "
                               f"conditions: {expected_conditions}")
        return found

    def get_job_pod_names(self, name: str, namespace: Optional[str] = None,
                          is_master: bool = False, replica_type: Optional[str] = None,
                          replica_index: Optional[int] = None,
                          timeout: int = DEFAULT_TIMEOUT) -> List[str]:
        """The names of the job's worker pods (the newest pod of each index)."""
        _replica_type(replica_type)
        if self.kube is not None:
            self.kube.get(name, namespace)
            return [str(p["metadata"]["name"])
                    for p in self.kube.worker_pods(name, namespace, is_master, replica_index)]
        _, pods = self.backend.worker_pods(self.backend.record(name, namespace), is_master,
                                           replica_index)
        return [str(p["metadata"]["name"]) for p in pods]

    def get_job_logs(self, name: str, namespace: Optional[str] = None,
                     job_kind: Optional[str] = None, is_master: bool = True,
                     replica_type: Optional[str] = None, replica_index: Optional[int] = None,
                     follow: bool = False, timeout: int = DEFAULT_TIMEOUT,
                     verbose: bool = False) -> Tuple[Dict[str, str], Dict[str, List[str]]]:
        """The logs of the job's pods: worker 0 by default (`is_master`), one index
        (`replica_index`), or every worker (``is_master=False``).  Returns ({pod: log text},
        {pod: [events]}) (events only with `verbose`).  With `follow`, lines are printed as
        ``[Pod <name>]: <line>`` while the pods run, and the dicts come at their end."""
        _kind(job_kind or self.job_kind)
        _replica_type(replica_type)
        if self.kube is not None:
            job = self.kube.get(name, namespace)
            want = 1 if is_master or replica_index is not None else _replicas(job)
            klogs = self.kube.logs(name, namespace, is_master, replica_index, follow, want)
            kevents: Dict[str, List[str]] = {}
            if verbose:
                lines = self.kube.events(name, namespace)
                kevents = {n: list(lines) for n in klogs}
            return klogs, kevents
        rec = self.backend.record(name, namespace)
        if follow:  # a job just created has no pods yet: wait for them while it runs
            want = 1 if is_master or replica_index is not None else self.backend.replicas(rec)
            self.backend.store.wait_for(rec, lambda _: len(self.backend.worker_pods(
                rec, is_master, replica_index)[1]) >= want)
        _, pods = self.backend.worker_pods(rec, is_master, replica_index)
        names = [str(p["metadata"]["name"]) for p in pods]
        logs: Dict[str, str] = {}
        if follow:
            logs = _local.follow_pods({n: self._follower(rec, n) for n in names})
        else:
            for p, n in zip(pods, names):
                logs[n] = self.backend.store.read_log(rec, p)
        events: Dict[str, List[str]] = {}
        if verbose:
            lines = [f"{e.event_time.isoformat()} {e.reason}: {e.message}"
                     for e in self.backend.store.events(rec)]
            events = {n: list(lines) for n in names}
        return logs, events

    def _follower(self, rec: _local.Record, pod: str) -> Callable[[], Iterator[str]]:
        return lambda: self.backend.store.follow(
            rec, lambda v: next((p for p in v.pods if p["metadata"]["name"] == pod), None))

    def delete_job(self, name: str, namespace: Optional[str] = None,
                   job_kind: Optional[str] = None, delete_options: Any = None) -> None:
        """Deletes the job: a running job is stopped the kubelet's way and this returns once
        no process is left; its logs and state are removed."""
        _kind(job_kind or self.job_kind)
        if self.kube is not None:
            return self.kube.delete(name, namespace, delete_options)
        self.backend.store.delete(self.backend.record(name, namespace))


def _replicas(job: Mapping[str, Any]) -> int:
    """Worker replicas of a JAXJob object (default 1)."""
    specs = (job.get("spec") or {}).get("jaxReplicaSpecs") or {}
    worker = next((v for k, v in specs.items() if k.lower() == WORKER_RJOB), {}) or {}
    n = worker.get("replicas", 1)
    return n if isinstance(n, int) and n > 0 else 1


def _kind(kind: str) -> str:
    if kind != JAXJOB_KIND:
        raise ValueError(f"job kind {kind!r} is not supported: jaxset's TrainingClient serves "
                         f"{JAXJOB_KIND} only")
    return kind


def _replica_type(rtype: Optional[str]) -> None:
    if rtype is not None and rtype.lower() != WORKER_RJOB:
        raise ValueError(f"JAXJob has only the Worker replica type, not {rtype!r}")


__all__ = ["TrainingClient", "NotFoundError"]
