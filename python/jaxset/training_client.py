"""TrainingClient: the Training Operator's client (kubeflow/training-operator sdk/python/
kubeflow/training/api/training_client.py, v1.9) for JAXJob, on either backend; jobs are the
JAXJob objects as dicts."""
from __future__ import annotations

import copy
import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Set, Tuple, Union

from . import _binary
from ._local import Local
from ._obj import (JOBSET_NAME, RJOB_NAME, Obj, completion_index, dig, follow_pods, labels,
                   name_of, newest, stopped_on_interrupt, to_int)
from .errors import JobFailedError
from .trainer_client import backend_of
from .types import KubernetesBackendConfig, LocalBackendConfig

JAXJOB, API_VERSION, CONTAINER = "JAXJob", "kubeflow.org/v1", "jax"
TO_JOB_NAME = "training.kubeflow.org/job-name"
TO_REPLICA_TYPE = "training.kubeflow.org/replica-type"
TO_REPLICA_INDEX = "training.kubeflow.org/replica-index"
WORKER = "worker"
DEFAULT_TIMEOUT = 120

CREATED, RUNNING, RESTARTING, SUCCEEDED, FAILED = (
    "Created", "Running", "Restarting", "Succeeded", "Failed")
JOB_CONDITIONS = {CREATED, RUNNING, RESTARTING, SUCCEEDED, FAILED}

Job = Dict[str, Any]


def has_condition(conditions: List[Mapping[str, Any]], ctype: str) -> bool:
    return any(c.get("type") == ctype and c.get("status") == "True" for c in conditions)


def _kind(kind: str) -> str:
    if kind != JAXJOB:
        raise ValueError(f"job kind {kind!r} is not supported: jaxset's TrainingClient serves "
                         f"{JAXJOB} only")
    return kind


def _index(pod: Mapping[str, Any]) -> Optional[int]:
    """A worker pod's replica index (Training Operator labels, else the JobSet's)."""
    lab = labels(pod)
    if TO_JOB_NAME in lab:
        if (lab.get(TO_REPLICA_TYPE) or WORKER).lower() != WORKER:
            return None
        return to_int(lab.get(TO_REPLICA_INDEX) or 0)
    if lab.get(RJOB_NAME, "").lower() != WORKER:
        return None
    return completion_index(pod) or 0


def _replicas(job: Mapping[str, Any]) -> int:
    """Worker replicas of a JAXJob (default 1)."""
    specs = dig(job, "spec.jaxReplicaSpecs", {})
    worker = next((v for k, v in specs.items() if k.lower() == WORKER), {}) or {}
    n = worker.get("replicas", 1)
    return n if isinstance(n, int) and n > 0 else 1


def _is_job(ctype: str) -> Callable[..., bool]:
    def is_job(self: "TrainingClient", name: Optional[str] = None,
               namespace: Optional[str] = None, job_kind: Optional[str] = None,
               job: Optional[Job] = None, timeout: int = DEFAULT_TIMEOUT) -> bool:
        return has_condition(self.get_job_conditions(name, namespace, job_kind, job, timeout),
                             ctype)
    is_job.__doc__ = f"Whether the job has the condition {ctype}."
    return is_job


class TrainingClient:
    """Without `backend_config`, the cluster of `config_file`/`context`, as kubectl finds it."""

    def __init__(self, config_file: Optional[str] = None, context: Optional[str] = None,
                 client_configuration: Any = None, namespace: Optional[str] = None,
                 job_kind: str = JAXJOB,
                 backend_config: Union[LocalBackendConfig, KubernetesBackendConfig,
                                       None] = None):
        self.job_kind = _kind(job_kind)
        cluster = config_file or context or client_configuration
        if isinstance(backend_config, LocalBackendConfig) and cluster:
            raise ValueError("config_file, context and client_configuration choose a "
                             "cluster: they do not go with LocalBackendConfig")
        if backend_config is None:
            backend_config = KubernetesBackendConfig(
                namespace=namespace, config_file=config_file, context=context,
                client_configuration=client_configuration)
        elif cluster:
            raise ValueError("pass config_file, context and client_configuration in the "
                             "KubernetesBackendConfig, not beside it")
        self.backend = backend_of(backend_config, namespace)
        self.namespace = self.backend.namespace

    def _load(self, job: Any) -> Tuple[List[Obj], Obj, Optional[str]]:
        """A job's documents, the JAXJob among them, and the manifest's path, if any."""
        if isinstance(job, Mapping):
            obj = copy.deepcopy(dict(job))
            return [obj], obj, None
        path = os.path.abspath(os.fspath(job))  # TypeError for neither a dict nor a path
        if not os.path.isfile(path):
            raise ValueError(f"job manifest {path}: no such file")
        docs = _binary.decode_files(self.backend.binary, [path])
        found = [d for d in docs if d.get("kind") == JAXJOB]
        if len(found) != 1:
            raise ValueError(f"{path} must hold exactly one {JAXJOB}, it holds {len(found)}")
        return docs, found[0], path

    def create_job(self, job: Any = None, name: Optional[str] = None,
                   namespace: Optional[str] = None, job_kind: Optional[str] = None,
                   base_image: Optional[str] = None, train_func: Optional[Callable] = None,
                   parameters: Optional[Dict[str, Any]] = None, num_workers: Optional[int] = None,
                   **unsupported: Any) -> str:
        """Creates the JAXJob `job`, a dict or a manifest file (relative paths then resolve
        from its folder), and returns its name."""
        _kind(job_kind or self.job_kind)
        if job is None or train_func is not None or base_image is not None or parameters or \
                num_workers is not None or unsupported:
            raise ValueError("JAXJob is created from a job object: pass job=<dict or manifest "
                             "path> (the train_func/base_image shortcut is implemented only "
                             "for TFJob and PyTorchJob)")
        docs, obj, path = self._load(job)
        if obj.get("kind") != JAXJOB:
            raise ValueError(f"job must be a {JAXJOB}, got kind {obj.get('kind')!r}")
        av = obj.setdefault("apiVersion", API_VERSION)
        if av != API_VERSION:
            raise ValueError(f"a JAXJob's apiVersion is {API_VERSION}, got {av!r}")
        meta = obj.setdefault("metadata", {})
        if not isinstance(meta, dict) or not (name or meta.get("name")):
            raise ValueError("the JAXJob needs metadata.name")
        ns = namespace or meta.get("namespace") or self.namespace
        as_is = path is not None and (name or meta["name"]) == meta["name"] and \
            ns == (meta.get("namespace") or "default")
        meta.update(name=name or meta["name"], namespace=ns)
        obj.pop("status", None)
        if isinstance(self.backend, Local):
            self.backend.start(meta["name"], JAXJOB, [path] if as_is else docs, beside=path)
        else:
            self.backend.create(obj, ns)
        return str(meta["name"])

    def get_job(self, name: str, namespace: Optional[str] = None,
                job_kind: Optional[str] = None, timeout: int = DEFAULT_TIMEOUT) -> Job:
        """The JAXJob with its status; NotFoundError when there is none."""
        _kind(job_kind or self.job_kind)
        return self.backend.job(JAXJOB, name, namespace)

    def list_jobs(self, namespace: Optional[str] = None, job_kind: Optional[str] = None,
                  timeout: int = DEFAULT_TIMEOUT) -> List[Job]:
        """Every JAXJob of the namespace, oldest first; locally, runs of `jaxset run` too."""
        _kind(job_kind or self.job_kind)
        return self.backend.jobs(JAXJOB, namespace)

    def get_job_conditions(self, name: Optional[str] = None, namespace: Optional[str] = None,
                           job_kind: Optional[str] = None, job: Optional[Job] = None,
                           timeout: int = DEFAULT_TIMEOUT) -> List[Dict[str, Any]]:
        """The job's conditions (of `job` when given, else of the job named)."""
        if job is None:
            if not name:
                raise ValueError("Job name or object must be set")
            job = self.get_job(name, namespace, job_kind, timeout)
        return list(dig(job, "status.conditions", []))

    is_job_created = _is_job(CREATED)
    is_job_running = _is_job(RUNNING)
    is_job_restarting = _is_job(RESTARTING)
    is_job_succeeded = _is_job(SUCCEEDED)
    is_job_failed = _is_job(FAILED)

    def wait_for_job_conditions(self, name: str, namespace: Optional[str] = None,
                                job_kind: Optional[str] = None,
                                expected_conditions: Set[str] = {SUCCEEDED},
                                wait_timeout: float = 600, polling_interval: float = 15,
                                callback: Optional[Callable[[Job], None]] = None,
                                timeout: int = DEFAULT_TIMEOUT) -> Job:
        """The job once it has one of `expected_conditions`; JobFailedError when it Failed."""
        if not set(expected_conditions) <= JOB_CONDITIONS:
            raise ValueError(f"Expected conditions: {expected_conditions} must be subset of "
                             f"{JOB_CONDITIONS}")
        kind = _kind(job_kind or self.job_kind)
        ns = namespace or self.namespace

        def check() -> Optional[Job]:
            job = self.get_job(name, ns)
            conds = self.get_job_conditions(job=job)
            if callback:
                callback(job)
            if FAILED not in expected_conditions and has_condition(conds, FAILED):
                raise JobFailedError(f"{kind} {ns}/{name} is Failed. {kind} conditions: {conds}",
                                     self.backend.failure(JAXJOB, name, ns))
            return job if any(has_condition(conds, c) for c in expected_conditions) else None
        with stopped_on_interrupt(self.backend, JAXJOB, name):  # the stop button
            found = self.backend.wait_until(check, wait_timeout, polling_interval,
                                            [("jaxjobs", None)])
        if found is None:
            raise TimeoutError(f"Timeout waiting for {kind}: {ns}/{name} to reach expected "
                               f"conditions: {expected_conditions}")
        return found

    def get_job_pods(self, name: str, namespace: Optional[str] = None,
                     is_master: bool = False, replica_type: Optional[str] = None,
                     replica_index: Optional[int] = None,
                     timeout: int = DEFAULT_TIMEOUT) -> List[Dict[str, Any]]:
        """The newest pod of each worker index (of index 0 with `is_master`)."""
        if replica_type is not None and replica_type.lower() != WORKER:
            raise ValueError(f"JAXJob has only the Worker replica type, not {replica_type!r}")
        self.get_job(name, namespace)
        pods = self.backend.pods(name, namespace, TO_JOB_NAME) or \
            self.backend.pods(name, namespace, JOBSET_NAME)
        want = 0 if is_master else replica_index
        return [p for i, p in newest(pods, _index).items() if want is None or i == want]

    def get_job_pod_names(self, name: str, namespace: Optional[str] = None,
                          is_master: bool = False, replica_type: Optional[str] = None,
                          replica_index: Optional[int] = None,
                          timeout: int = DEFAULT_TIMEOUT) -> List[str]:
        return [name_of(p) for p in self.get_job_pods(name, namespace, is_master, replica_type,
                                                      replica_index, timeout)]

    def get_job_logs(self, name: str, namespace: Optional[str] = None,
                     job_kind: Optional[str] = None, is_master: bool = True,
                     replica_type: Optional[str] = None, replica_index: Optional[int] = None,
                     follow: bool = False, timeout: int = DEFAULT_TIMEOUT,
                     verbose: bool = False) -> Tuple[Dict[str, str], Dict[str, List[str]]]:
        """({pod: log}, {pod: [events]}); with `follow`, lines are printed as they come."""
        _kind(job_kind or self.job_kind)
        want = 1 if is_master or replica_index is not None else \
            _replicas(self.get_job(name, namespace))

        def found() -> Optional[List[Obj]]:
            conds = self.get_job_conditions(name, namespace)  # deleted meanwhile: NotFound
            pods = self.get_job_pods(name, namespace, is_master, replica_type, replica_index)
            ended = has_condition(conds, SUCCEEDED) or has_condition(conds, FAILED)
            return pods if len(pods) >= want or ended or not follow else None
        pods = self.backend.wait_until(found, float("inf"), 0.1, [
            ("jaxjobs", None), *(("pods", f"{k}={name}") for k in (TO_JOB_NAME, JOBSET_NAME))])
        names = [name_of(p) for p in pods]
        read = self.backend.follow if follow else self.backend.log
        streams = {name_of(p): (lambda p=p: read(JAXJOB, name, p, CONTAINER, namespace))
                   for p in pods}
        with stopped_on_interrupt(self.backend, JAXJOB, name, follow):
            logs = follow_pods(streams) if follow else \
                {n: "".join(f"{line}\n" for line in lines()) for n, lines in streams.items()}
        events: Dict[str, List[str]] = {}
        if verbose:
            lines = [f"{e.event_time.isoformat()} {e.reason}: {e.message}"
                     for e in self.backend.events(JAXJOB, name, namespace)]
            events = {n: list(lines) for n in names}
        return logs, events

    def delete_job(self, name: str, namespace: Optional[str] = None,
                   job_kind: Optional[str] = None, delete_options: Any = None) -> None:
        """Deletes the job; `delete_options`' propagation policy is the cascade."""
        _kind(job_kind or self.job_kind)
        propagation = None  # the server's default, as the Training Operator's SDK sends none
        if isinstance(delete_options, Mapping):
            propagation = delete_options.get("propagationPolicy") or \
                delete_options.get("propagation_policy")
        elif delete_options is not None:
            propagation = getattr(delete_options, "propagation_policy", None)
        self.backend.delete(JAXJOB, name, namespace, propagation)
