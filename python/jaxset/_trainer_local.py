"""TrainerClient's local backend: a TrainJob and its runtime run by the jaxset binary."""
from __future__ import annotations

import logging
import os
import random
import string
import uuid
from datetime import datetime, timezone
from typing import Any, Dict, Iterator, List, Mapping, Optional, Set, Union

from . import _binary, _func, _local, runtimes
from .errors import JobFailedError, NotFoundError
from .types import (TRAINJOB_COMPLETE, TRAINJOB_CREATED, TRAINJOB_FAILED, TRAINJOB_RUNNING,
                    UNKNOWN, CustomTrainer, CustomTrainerContainer, Event, LocalBackendConfig,
                    Runtime, Step, TrainJob)

logger = logging.getLogger(__name__)

TRAINJOB_KIND = "TrainJob"
JOB_STATUSES = {TRAINJOB_CREATED, TRAINJOB_RUNNING, TRAINJOB_COMPLETE, TRAINJOB_FAILED}
INITIALIZERS = ("dataset-initializer", "model-initializer")
STEP_RJOBS = (*INITIALIZERS, "launcher", runtimes.NODE)

RuntimeRef = Union[Runtime, str, None]
Trainer = Union[CustomTrainer, CustomTrainerContainer, None]


def job_name() -> str:
    """As Kubeflow's SDK names a TrainJob: a letter and 11 hex digits."""
    return random.choice(string.ascii_lowercase) + uuid.uuid4().hex[:11]


def _num_nodes(n: Any) -> Optional[int]:
    if n is None:
        return None
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"num_nodes must be a whole number >= 1, got {n!r}")
    return n


def resources_per_node(res: Mapping[str, Any]) -> Dict[str, Any]:
    """Kubeflow's mapping: cpu, memory, storage (ephemeral-storage), gpu (nvidia.com/gpu),
    mig-<profile> (nvidia.com/mig-<profile>); other keys as given.  Requests = limits."""
    if not isinstance(res, Mapping):
        raise ValueError("resources_per_node must be a dict such as {'cpu': 2, 'gpu': 1}")
    aliases = {"gpu": "nvidia.com/gpu", "storage": "ephemeral-storage"}
    standard = {"cpu", "memory", "gpu", "storage", "ephemeral-storage"}
    out: Dict[str, Any] = {}
    for k, v in res.items():
        key = k.lower() if k.lower() in standard or k.lower().startswith("mig-") else k
        key = aliases.get(key, key)
        if key.startswith("mig-"):
            key = runtimes.GPU_MIG_PREFIX + key[4:]
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            raise ValueError(f"resources_per_node[{k!r}] must be a quantity, got {v!r}")
        out[key] = v if isinstance(v, (int, str)) else str(v)
    mig = [k for k in out if k.startswith(runtimes.GPU_MIG_PREFIX)]
    if len(mig) > 1 or (mig and "nvidia.com/gpu" in out):
        raise ValueError(f"resources_per_node: one MIG profile and no whole GPU, got {mig}")
    return {"requests": dict(out), "limits": dict(out)}


def _env(env: Optional[Mapping[str, str]]) -> List[Dict[str, str]]:
    if env is None:
        return []
    if not isinstance(env, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise ValueError("env must be a dict of strings to strings")
    return [{"name": k, "value": v} for k, v in env.items()]


def node_fields(trainer: Any, spec: Dict[str, Any]) -> Dict[str, Any]:
    """Adds what both backends take from a trainer to a TrainJob's spec.trainer: numNodes,
    resourcesPerNode and env (ValueError on a bad one).  Returns `spec`."""
    n = _num_nodes(trainer.num_nodes)
    if n is not None:
        spec["numNodes"] = n
    if trainer.resources_per_node:
        spec["resourcesPerNode"] = resources_per_node(trainer.resources_per_node)
    env = _env(trainer.env)
    if env:
        spec["env"] = env
    return spec


def runtime_name(runtime: Any) -> str:
    """train()'s `runtime`: a Runtime, a runtime's name, or None for $DEFAULT_TRAINING_RUNTIME
    (else jaxset's default runtime)."""
    if isinstance(runtime, Runtime):
        return runtime.name
    if runtime is None:
        return os.environ.get("DEFAULT_TRAINING_RUNTIME", runtimes.DEFAULT_RUNTIME)
    if isinstance(runtime, str):
        return runtime
    raise ValueError(f"runtime must be a Runtime or a runtime name, not "
                     f"{type(runtime).__name__}")


def _print_packages():
    import subprocess
    import sys
    print(f"Python: {sys.version}")
    pip = subprocess.run([sys.executable, "-m", "pip", "list"], capture_output=True, text=True)
    print(pip.stdout if pip.returncode == 0 else "pip is not available")


def step_of(name: str, pod: Mapping[str, Any]) -> Step:
    """The Step of a pod: its phase and the devices its step's container asks for."""
    step = Step(name=name, status=str((pod.get("status") or {}).get("phase") or "Pending"),
                pod_name=str((pod.get("metadata") or {}).get("name")))
    want = name if name in INITIALIZERS else runtimes.NODE
    c = next((c for c in (pod.get("spec") or {}).get("containers") or []
              if c.get("name") == want), None)
    devices = runtimes.container_devices((c or {}).get("resources"))
    if devices:
        step.device, step.device_count = devices
    return step


def trainjob_status(terminal: Optional[str], steps: List[Step], num_nodes: Any) -> str:
    """Kubeflow Trainer SDK's TrainJob status: Complete or Failed as the job ended
    (`terminal`: "Complete", "Failed" or None), else Running once every node's step runs (or
    ran), else Created."""
    if terminal in (TRAINJOB_COMPLETE, TRAINJOB_FAILED):
        return terminal
    up = sum(1 for s in steps if s.name.startswith(runtimes.NODE + "-") and
             s.status in ("Running", "Succeeded"))
    return TRAINJOB_RUNNING if num_nodes and up >= num_nodes else TRAINJOB_CREATED


def wait_args(status: Set[str], timeout: float, polling_interval: float) -> None:
    """wait_for_job_status's arguments as Kubeflow Trainer's SDK checks them."""
    if not set(status) <= JOB_STATUSES:
        raise ValueError(f"Expected status {status} must be a subset of {JOB_STATUSES}")
    if polling_interval > timeout:
        raise ValueError(f"Polling interval {polling_interval} must be less than timeout: "
                         f"{timeout}")


def train_options(initializer: Any, options: Optional[list]) -> None:
    """What neither backend supports yet (ValueError)."""
    if initializer is not None:
        raise ValueError("initializers are not supported by jaxset's TrainerClient yet")
    if options:
        raise ValueError("options are not supported by jaxset's TrainerClient yet")


def trainjob_object(ns: str, runtime: Mapping[str, Any], spec: Dict[str, Any]) -> Dict[str, Any]:
    """A new TrainJob (a generated name) of `runtime` (the runtime object), with `spec` as
    spec.trainer when any, as Kubeflow Trainer's SDK creates it."""
    tj: Dict[str, Any] = {
        "apiVersion": runtimes.API_VERSION, "kind": TRAINJOB_KIND,
        "metadata": {"name": job_name(), "namespace": ns},
        "spec": {"runtimeRef": {"name": (runtime.get("metadata") or {}).get("name"),
                                "apiGroup": runtimes.GROUP,
                                "kind": runtime.get("kind") or runtimes.CLUSTER_KIND}}}
    if spec:
        tj["spec"]["trainer"] = spec
    return tj


def print_runtime_packages(backend: Any, runtime: Any, **wait: Any) -> None:
    """get_runtime_packages for either backend: a one-node job of `runtime` prints Python's
    version and `pip list`, its log is printed, the job deleted (`wait`: wait_for_job_status's
    keywords)."""
    name = backend.train(runtime=runtime, trainer=CustomTrainer(func=_print_packages,
                                                                num_nodes=1))
    try:
        backend.wait_for_job_status(name, **wait)
        print("\n".join(backend.get_job_logs(name)))
    finally:
        backend.delete_job(name)


class LocalTrainerBackend:
    """Runs TrainJobs on this machine (see TrainerClient)."""

    def __init__(self, cfg: LocalBackendConfig):
        self.cfg = cfg
        self.store = _local.Store(cfg)
        docs = _binary.decode_files(self.store.binary, list(cfg.runtime_files)) \
            if cfg.runtime_files else []
        self.runtimes = runtimes.RuntimeSet(docs)

    # -- runtimes -------------------------------------------------------------------------

    def list_runtimes(self) -> List[Runtime]:
        return self.runtimes.list()

    def _runtime_object(self, name: str) -> Dict[str, Any]:
        cr = self.runtimes.get_object(name)
        if cr is None:
            raise NotFoundError(f"runtime {name!r} not found; known runtimes: "
                                f"{', '.join(self.runtimes.names())}")
        return cr

    def get_runtime(self, name: str) -> Runtime:
        return runtimes.to_runtime(self._runtime_object(name))

    def get_runtime_packages(self, runtime: Runtime) -> None:
        print_runtime_packages(self, runtime, timeout=120, polling_interval=0.2)

    # -- train ----------------------------------------------------------------------------

    def _trainer_spec(self, rt: Runtime, trainer: Trainer) -> Dict[str, Any]:
        spec: Dict[str, Any] = {}
        if trainer is None:
            pass
        elif isinstance(trainer, CustomTrainer):
            if trainer.packages_to_install:
                raise ValueError("packages_to_install is not supported by the local backend: "
                                 "install the packages in the interpreter the processes use "
                                 f"({self.cfg.python})")
            spec["command"] = _func.container_command(trainer.func, trainer.func_args,
                                                     self.cfg.python)
        elif isinstance(trainer, CustomTrainerContainer):
            if trainer.image:
                spec["image"] = trainer.image
        else:
            raise ValueError(f"the trainer type {type(trainer).__name__} is not supported: use "
                             "CustomTrainer or CustomTrainerContainer")
        if "command" not in spec and not rt.trainer.command:
            raise ValueError(
                f"runtime {rt.name}'s node container has no command, and images are not run "
                "on this machine: use CustomTrainer(func=...), or a runtime whose node "
                "container has a command")
        if trainer is not None:
            node_fields(trainer, spec)
        return spec

    def train(self, runtime: RuntimeRef = None, initializer: Any = None,
              trainer: Trainer = None, options: Optional[list] = None) -> str:
        train_options(initializer, options)
        rt_name = runtime_name(runtime)
        cr = self._runtime_object(rt_name)
        rt = runtimes.to_runtime(cr)
        spec = self._trainer_spec(rt, trainer)
        ns = self.cfg.namespace
        if cr.get("kind") == runtimes.NAMESPACED_KIND:
            cr.setdefault("metadata", {})["namespace"] = ns
        trainjob = trainjob_object(ns, cr, spec)
        name = trainjob["metadata"]["name"]
        self.store.start(name, TRAINJOB_KIND, [trainjob, cr], ns, runtime=rt_name,
                         num_nodes=spec.get("numNodes", rt.trainer.num_nodes))
        logger.debug("TrainJob %s/%s has been created", ns, name)
        return name

    # -- jobs -----------------------------------------------------------------------------

    def _step(self, pod: Mapping[str, Any]) -> Step:
        rj = _local.pod_label(pod, "jobset.sigs.k8s.io/replicatedjob-name") or ""
        name = rj if rj in INITIALIZERS else f"{runtimes.NODE}-{_local.pod_index(pod)}"
        step = step_of(name, pod)
        if step.device == UNKNOWN:  # no accelerator asked for: on this machine none is seen
            c = next((c for c in (pod.get("spec") or {}).get("containers") or []
                      if c.get("name") == (rj if rj in INITIALIZERS else runtimes.NODE)), {})
            cpu = ((c.get("resources") or {}).get("requests") or {}).get("cpu")
            step.device, step.device_count = "cpu", str(cpu) if cpu is not None else UNKNOWN
        return step

    def _trainjob(self, rec: _local.Record) -> TrainJob:
        v = self.store.view(rec)
        cr = next((m for m in rec.manifests if m.get("kind") in runtimes.RUNTIME_KINDS), None)
        try:
            rt = runtimes.to_runtime(cr) if cr else self.get_runtime(rec.runtime or "")
        except (ValueError, NotFoundError):
            rt = Runtime(name=rec.runtime or UNKNOWN,
                         trainer=runtimes.to_runtime(runtimes.jax_distributed()).trainer)
        steps = [self._step(p) for p in v.pods
                 if _local.pod_label(p, "jobset.sigs.k8s.io/replicatedjob-name") in STEP_RJOBS]
        num_nodes = rec.num_nodes or rt.trainer.num_nodes
        created = _local.parse_time(rec.created) or datetime.now(timezone.utc)
        terminal = {"Completed": TRAINJOB_COMPLETE, "Failed": TRAINJOB_FAILED}.get(
            v.terminal or "")
        latest = [self._step(p) for p in _local.select_pods(v, runtimes.NODE).values()]
        return TrainJob(name=rec.name, runtime=rt, steps=steps, num_nodes=num_nodes,
                        creation_timestamp=created,
                        status=trainjob_status(terminal, latest, num_nodes))

    def list_jobs(self, runtime: RuntimeRef = None) -> List[TrainJob]:
        want = runtime.name if isinstance(runtime, Runtime) else runtime
        return [self._trainjob(r) for r in self.store.records(TRAINJOB_KIND)
                if want is None or r.runtime == want]

    def get_job(self, name: str) -> TrainJob:
        return self._trainjob(self.store.record(name, TRAINJOB_KIND))

    def get_job_logs(self, name: str, follow: Optional[bool] = False,
                     step: str = runtimes.NODE + "-0") -> Iterator[str]:
        rec = self.store.record(name, TRAINJOB_KIND)  # raises before iteration starts
        return self._logs(rec, bool(follow), step)

    def _pick(self, step: str):
        def pick(v: _local.View) -> Optional[Mapping[str, Any]]:
            found = None
            for p in v.pods:
                if _local.pod_phase(p) == "Pending":
                    continue
                rj = _local.pod_label(p, "jobset.sigs.k8s.io/replicatedjob-name")
                if rj not in STEP_RJOBS:
                    continue
                s = rj if rj in INITIALIZERS else f"{runtimes.NODE}-{_local.pod_index(p)}"
                if s == step and (found is None or
                                  _local.pod_attempt(p) >= _local.pod_attempt(found)):
                    found = p
            return found
        return pick

    def _logs(self, rec: _local.Record, follow: bool, step: str) -> Iterator[str]:
        if follow:
            yield from self.store.follow(rec, self._pick(step))
            return
        pod = self._pick(step)(self.store.view(rec))
        if pod is not None:
            yield from self.store.read_log(rec, pod).splitlines()

    def get_job_events(self, name: str) -> List[Event]:
        return self.store.events(self.store.record(name, TRAINJOB_KIND))

    def wait_for_job_status(self, name: str, status: Set[str] = {TRAINJOB_COMPLETE},
                            timeout: float = 600, polling_interval: float = 2) -> TrainJob:
        wait_args(status, timeout, polling_interval)
        def check() -> Optional[TrainJob]:
            job = self.get_job(name)
            if TRAINJOB_FAILED not in status and job.status == TRAINJOB_FAILED:
                v = self.store.view(self.store.record(name, TRAINJOB_KIND))
                why = v.failure_message
                raise JobFailedError(f"TrainJob {name} is Failed" + (f": {why}" if why else ""),
                                     v.failure)
            return job if job.status in status else None
        job = _local.poll_until(check, timeout, polling_interval)
        if job is None:
            raise TimeoutError(f"Timeout waiting for TrainJob {name} to reach status: "
                               f"{status} status")
        return job

    def delete_job(self, name: str) -> None:
        self.store.delete(self.store.record(name, TRAINJOB_KIND))
