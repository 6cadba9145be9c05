"""TrainerClient: Kubeflow Trainer v2's client (kubeflow/sdk kubeflow/trainer/api/
trainer_client.py) on either backend, status derived as Kubeflow's SDK derives it."""
from __future__ import annotations

import logging
import os
import random
import string
import uuid
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Set, Union

from . import _func, _notebook, runtimes
from ._containers import Containers
from ._kube import Kube
from ._local import Local
from ._obj import (JOBSET_NAME, RJOB_NAME, Obj, attempt, completion_index, condition, created,
                   dig, labels, name_of, newest, parse_time, rank, stopped_on_interrupt)
from .errors import JobFailedError, NotFoundError
from .options import apply_options
from .runtimes import NODE
from .types import (TRAINJOB_COMPLETE, TRAINJOB_CREATED, TRAINJOB_FAILED, TRAINJOB_RUNNING,
                    UNKNOWN, ContainerBackendConfig, CustomTrainer, CustomTrainerContainer,
                    Event, KubernetesBackendConfig, LocalBackendConfig, Runtime, Step,
                    TrainerStatus, TrainJob)

logger = logging.getLogger(__name__)

TRAINJOB = "TrainJob"
JOB_STATUSES = {TRAINJOB_CREATED, TRAINJOB_RUNNING, TRAINJOB_COMPLETE, TRAINJOB_FAILED}
INITIALIZERS = ("dataset-initializer", "model-initializer")
STEP_RJOBS = (*INITIALIZERS, "launcher", NODE)

RuntimeRef = Union[Runtime, str, None]
Trainer = Union[CustomTrainer, CustomTrainerContainer, None]


def backend_of(cfg: Any, namespace: Optional[str] = None) -> Union[Local, Kube]:
    if cfg is None:
        cfg = KubernetesBackendConfig(namespace=namespace)
    if isinstance(cfg, KubernetesBackendConfig):
        return Kube(cfg, namespace)
    if isinstance(cfg, LocalBackendConfig):
        return Local(cfg, namespace)
    if isinstance(cfg, ContainerBackendConfig):
        return Containers(cfg, namespace)
    raise ValueError(f"Invalid backend config '{cfg}'")


def resources_per_node(res: Mapping[str, Any]) -> Dict[str, Any]:
    """Kubeflow's mapping: cpu, memory, storage (ephemeral-storage), gpu (nvidia.com/gpu),
    mig-<profile> (nvidia.com/mig-<profile>); other keys as given.  Requests = limits."""
    if not isinstance(res, Mapping):
        raise ValueError("resources_per_node must be a dict such as {'cpu': 2, 'gpu': 1}")
    aliases = {"gpu": runtimes.GPU_LABEL, "storage": "ephemeral-storage"}
    out: Dict[str, Any] = {}
    for k, v in res.items():
        low = k.lower()
        key = low if low in ("cpu", "memory", "gpu", "storage", "ephemeral-storage") else k
        key = runtimes.GPU_MIG_PREFIX + low[4:] if low.startswith("mig-") else \
            aliases.get(key, key)
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            raise ValueError(f"resources_per_node[{k!r}] must be a quantity, got {v!r}")
        out[key] = v if isinstance(v, (int, str)) else str(v)
    mig = [k for k in out if k.startswith(runtimes.GPU_MIG_PREFIX)]
    if len(mig) > 1 or (mig and runtimes.GPU_LABEL in out):
        raise ValueError(f"resources_per_node: one MIG profile and no whole GPU, got {mig}")
    return {"requests": dict(out), "limits": dict(out)}


def _env(env: Optional[Mapping[str, str]]) -> List[Dict[str, str]]:
    if env is not None and (not isinstance(env, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in env.items())):
        raise ValueError("env must be a dict of strings to strings")
    return [{"name": k, "value": v} for k, v in (env or {}).items()]


def initializer_spec(init: Any) -> Dict[str, Any]:
    """kubeflow/sdk's Initializer(dataset=, model=): storageUri and, as env, the other fields
    set (NAME=value, lists comma-joined), as kubeflow/sdk sends them."""
    parts = {k: vars(getattr(init, k)) for k in ("dataset", "model") if getattr(init, k, None)}
    if not all(isinstance(f.get("storage_uri"), str) for f in parts.values()):
        raise ValueError("initializer: its dataset and model need a storage_uri (a string)")
    return {k: {"storageUri": f["storage_uri"], "env": [
        {"name": n.upper(), "value": ",".join(map(str, v)) if isinstance(v, list) else str(v)}
        for n, v in f.items() if n != "storage_uri" and v is not None]} for k, f in parts.items()}


def runtime_name(runtime: RuntimeRef) -> str:
    """train()'s `runtime`: a Runtime, a name, or None for $DEFAULT_TRAINING_RUNTIME, else
    jax-distributed."""
    if isinstance(runtime, Runtime):
        return runtime.name
    if runtime is None:
        return os.environ.get("DEFAULT_TRAINING_RUNTIME", runtimes.DEFAULT_RUNTIME)
    if isinstance(runtime, str):
        return runtime
    raise ValueError(f"runtime must be a Runtime or a runtime name, not "
                     f"{type(runtime).__name__}")


def step_name(pod: Obj) -> Optional[str]:
    """The TrainJob step a pod runs: an initializer, else node-<completion index>."""
    rj = labels(pod).get(RJOB_NAME)
    if rj in INITIALIZERS:
        return rj
    return f"{NODE}-{completion_index(pod) or 0}" if rj in STEP_RJOBS else None


def step_of(name: str, pod: Obj) -> Step:
    """The Step of a pod: its phase and the devices its step's container asks for."""
    step = Step(name=name, status=str(dig(pod, "status.phase", "Pending")),
                pod_name=name_of(pod))
    want = name if name in INITIALIZERS else NODE
    c = next((c for c in dig(pod, "spec.containers", []) if c.get("name") == want), {})
    devices = runtimes.container_devices(c.get("resources"))
    if devices:
        step.device, step.device_count = devices
    return step


def trainjob_status(tj: Obj, steps: List[Step], num_nodes: Any) -> str:
    """Kubeflow Trainer SDK's TrainJob status: Complete or Failed from the TrainJob's
    conditions, else Running once every node's step runs (or ran), else Created."""
    for end in (TRAINJOB_COMPLETE, TRAINJOB_FAILED):
        if condition(tj, end):
            return end
    up = sum(1 for s in steps if s.name.startswith(NODE + "-") and
             s.status in ("Running", "Succeeded"))
    return TRAINJOB_RUNNING if num_nodes and up >= num_nodes else TRAINJOB_CREATED


def _whole(v: Any) -> Optional[int]:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def trainer_status_of(tj: Obj) -> Optional[TrainerStatus]:
    """The TrainJob's ``status.trainerStatus`` (what its training code reported), or None when
    it has none; a field of the wrong type reads as absent, a metric without a name is
    skipped."""
    ts = dig(tj, "status.trainerStatus")
    if not isinstance(ts, dict):
        return None
    metrics = [m for m in ts.get("metrics") or [] if isinstance(m, dict) and m.get("name")]
    return TrainerStatus(
        progress_percentage=_whole(ts.get("progressPercentage")),
        estimated_remaining_seconds=_whole(ts.get("estimatedRemainingSeconds")),
        metrics={str(m["name"]): str(m.get("value", "")) for m in metrics},
        last_updated_time=parse_time(ts.get("lastUpdatedTime")))


def _print_packages():
    import subprocess
    import sys
    print(f"Python: {sys.version}")
    pip = subprocess.run([sys.executable, "-m", "pip", "list"], capture_output=True, text=True)
    print(pip.stdout if pip.returncode == 0 else "pip is not available")


def _override_trainer(spec: Dict[str, Any], overrides: Mapping[str, Any]) -> None:
    """The options' spec.trainer, as kubeflow/sdk's KubernetesBackend applies it: command and
    args replace the trainer's, env (TrainerEnvFrom) goes after the trainer's env."""
    for key in ("command", "args"):
        if key in overrides:
            spec[key] = list(overrides[key])
    if overrides.get("env"):
        spec["env"] = [*spec.get("env", []), *overrides["env"]]


def _trainjob(job_spec: Obj, ns: str, rt_name: str, cr: Obj, spec: Dict[str, Any]) -> Obj:
    """The TrainJob: the options' name (else one as Kubeflow's SDK names a TrainJob: a letter
    and 11 hex digits), labels, annotations, runtime patches and deadline."""
    meta = job_spec.get("metadata", {})
    name = meta.get("name") or random.choice(string.ascii_lowercase) + uuid.uuid4().hex[:11]
    tj: Obj = {"apiVersion": runtimes.API_VERSION, "kind": TRAINJOB,
               "metadata": {"name": name, "namespace": ns},
               "spec": {"runtimeRef": {"name": rt_name, "apiGroup": runtimes.GROUP,
                                       "kind": cr.get("kind")}}}
    for key in ("labels", "annotations"):
        if meta.get(key):
            tj["metadata"][key] = dict(meta[key])
    if spec:
        tj["spec"]["trainer"] = spec
    for key in ("runtimePatches", "activeDeadlineSeconds"):
        if dig(job_spec, f"spec.{key}") is not None:
            tj["spec"][key] = job_spec["spec"][key]
    return tj


class TrainerClient:
    """Creates and manages TrainJobs, as Kubeflow's TrainerClient (docs/sdk.md)."""

    def __init__(self, backend_config: Union[LocalBackendConfig, ContainerBackendConfig,
                                             KubernetesBackendConfig, None] = None):
        self.backend = backend_of(backend_config)

    # -- runtimes -------------------------------------------------------------------------

    def list_runtimes(self) -> List[Runtime]:
        """The runtimes; one the SDK cannot read is skipped with a warning."""
        out = []
        for cr in self.backend.runtime_objects():
            try:
                out.append(runtimes.to_runtime(cr))
            except ValueError as e:
                logger.warning("Runtime %s is skipped: %s", name_of(cr), e)
        return out

    def _runtime_object(self, name: str, kinds: Sequence[str] = runtimes.RUNTIME_KINDS) -> Obj:
        """The runtime `name` of the first of `kinds` that has one."""
        objs = self.backend.runtime_objects()
        cr = next((o for k in kinds for o in objs if o["kind"] == k and name_of(o) == name), None)
        if cr is None:
            known = sorted({name_of(o) for o in objs})
            raise NotFoundError(f"runtime {name!r} not found; known runtimes: "
                                f"{', '.join(known) or 'none'}")
        return cr

    def get_runtime(self, name: str) -> Runtime:
        """A TrainingRuntime of that name before a ClusterTrainingRuntime."""
        return runtimes.to_runtime(self._runtime_object(name))

    def get_runtime_packages(self, runtime: Runtime) -> None:
        """Prints the Python version and packages the runtime's processes see."""
        name = self.train(runtime=runtime, trainer=CustomTrainer(func=_print_packages,
                                                                 num_nodes=1))
        try:
            self.wait_for_job_status(name, timeout=600, polling_interval=0.2)
            print("\n".join(self.get_job_logs(name)))
        finally:
            self.delete_job(name)

    # -- train ----------------------------------------------------------------------------

    def _trainer_spec(self, trainer: Trainer) -> Dict[str, Any]:
        spec: Dict[str, Any] = {}
        if trainer is None:
            return spec
        if isinstance(trainer, CustomTrainer):
            python = "python3"
            if isinstance(self.backend, Local):
                python = self.backend.cfg.python
                if trainer.packages_to_install and not self.backend.images:
                    raise ValueError("packages_to_install is not supported by the local "
                                     "backend: install the packages in the interpreter the "
                                     f"processes use ({python})")
            spec["command"] = _func.trainer_command(trainer, python)
        elif isinstance(trainer, CustomTrainerContainer):
            if not isinstance(trainer.image, str) or not trainer.image:
                raise ValueError("CustomTrainerContainer needs an image")
            spec["image"] = trainer.image
        else:
            raise ValueError(f"the trainer type {type(trainer).__name__} is not supported: use "
                             "CustomTrainer or CustomTrainerContainer")
        n = trainer.num_nodes
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
            raise ValueError(f"num_nodes must be a whole number >= 1, got {n!r}")
        if n is not None:
            spec["numNodes"] = n
        if trainer.resources_per_node:
            spec["resourcesPerNode"] = resources_per_node(trainer.resources_per_node)
        if _env(trainer.env):
            spec["env"] = _env(trainer.env)
        return spec

    def train(self, runtime: RuntimeRef = None, initializer: Any = None,
              trainer: Trainer = None, options: Optional[list] = None) -> str:
        """Creates a TrainJob, checked before anything starts, and returns its name.
        `options`: kubeflow/sdk's training options (jaxset.options), applied first."""
        job_spec = apply_options(options or [], trainer, self.backend)
        rt_name = runtime_name(runtime)
        spec = self._trainer_spec(trainer)
        _override_trainer(spec, dig(job_spec, "spec.trainer", {}))
        cr = self._runtime_object(rt_name)
        rt = runtimes.to_runtime(cr)  # a runtime the SDK cannot read is refused here
        ns = self.backend.namespace
        tj = _trainjob(job_spec, ns, rt_name, cr, spec)
        name = name_of(tj)
        if initializer is not None:
            tj["spec"]["initializer"] = initializer_spec(initializer)
        if isinstance(self.backend, Kube):
            self.backend.create(tj)
        else:
            if "command" not in spec and not rt.trainer.command and not self.backend.images:
                raise ValueError(f"runtime {rt.name}'s node container has no command, and "
                                 "images are not run on this machine: use CustomTrainer(func="
                                 "...), the option TrainerCommand([...]), a runtime whose "
                                 "node container has a command, or ContainerBackendConfig "
                                 "(each node in its image)")
            cr = self.backend.job_runtime(cr, name, trainer)
            if cr.get("kind") == runtimes.NAMESPACED_KIND:
                cr.setdefault("metadata", {})["namespace"] = ns
            self.backend.start(name, TRAINJOB, [tj, cr])
        logger.debug("TrainJob %s/%s has been created", ns, name)
        return name

    # -- jobs -----------------------------------------------------------------------------

    def _runtime_of(self, tj: Obj) -> Runtime:
        ref = dig(tj, "spec.runtimeRef", {})
        rname = str(ref.get("name") or UNKNOWN)
        kind = runtimes.NAMESPACED_KIND if ref.get("kind") == runtimes.NAMESPACED_KIND \
            else runtimes.CLUSTER_KIND
        try:
            return runtimes.to_runtime(self._runtime_object(rname, (kind,)))
        except (NotFoundError, ValueError):  # gone, or not one this client knows
            return Runtime(name=rname,
                           trainer=runtimes.to_runtime(
                               runtimes.jax_distributed(self.backend.binary)).trainer)

    def _trainjob(self, tj: Obj, rt: Optional[Runtime] = None) -> TrainJob:
        rt = rt or self._runtime_of(tj)
        latest = newest(self.backend.pods(name_of(tj)), step_name)
        steps = [step_of(n, p) for n, p in latest.items()]
        nodes = dig(tj, "spec.trainer.numNodes")
        num_nodes = nodes if isinstance(nodes, int) else rt.trainer.num_nodes
        return TrainJob(name=name_of(tj), runtime=rt, steps=steps, num_nodes=num_nodes,
                        creation_timestamp=created(tj),
                        status=trainjob_status(tj, steps, num_nodes),
                        trainer_status=trainer_status_of(tj))

    def list_jobs(self, runtime: RuntimeRef = None) -> List[TrainJob]:
        """Every TrainJob (of `runtime`, when given), oldest first."""
        want = runtime.name if isinstance(runtime, Runtime) else runtime
        return [self._trainjob(tj) for tj in self.backend.jobs(TRAINJOB)
                if want is None or dig(tj, "spec.runtimeRef.name") == want]

    def get_job(self, name: str) -> TrainJob:
        """The TrainJob with a step per process (node-<i>) and its status."""
        return self._trainjob(self.backend.job(TRAINJOB, name))

    def get_job_logs(self, name: str, step: str = NODE + "-0",
                     follow: Optional[bool] = False) -> Iterator[str]:
        """One step's log lines, as `jaxset logs` groups them by restart attempt."""
        job = self.get_job(name)  # raises before iteration starts
        known = [f"{NODE}-{i}" for i in range(job.num_nodes or 0)]
        known += [s.name for s in job.steps if s.name not in known]
        if step not in known:
            raise ValueError(f"TrainJob {name} has no step {step!r}; its steps: "
                             f"{', '.join(known)}")
        return _notebook.Lines(self._logs(name, step, bool(follow)), f"{name} {step}")

    def _step_pods(self, name: str, step: str) -> List[Obj]:
        """The step's pods, oldest attempt first."""
        return sorted((p for p in self.backend.pods(name) if step_name(p) == step), key=rank)

    def _logs(self, name: str, step: str, follow: bool) -> Iterator[str]:
        """The lines; the stop button while following stops a local job."""
        container = step if step in INITIALIZERS else NODE
        shown: Set[str] = set()
        with stopped_on_interrupt(self.backend, TRAINJOB, name, follow):
            while True:
                pods = self._step_pods(name, step)
                todo = [p for p in pods if name_of(p) not in shown]
                if not todo and (shown or not follow or not self._wait_for_pod(name, step)):
                    return
                for p in todo:
                    if shown or len({attempt(q) for q in pods}) > 1:
                        yield f"--- restart attempt {attempt(p)} ---"
                    shown.add(name_of(p))
                    read = self.backend.follow if follow and p is pods[-1] else self.backend.log
                    yield from read(TRAINJOB, name, p, container)

    def _wait_for_pod(self, name: str, step: str) -> bool:
        """Whether the step has a pod, once it has one or the job ended or went."""
        def found() -> Optional[bool]:
            try:
                tj = self.backend.job(TRAINJOB, name)
            except NotFoundError:
                return False
            if self._step_pods(name, step):
                return True
            return False if trainjob_status(tj, [], 0) in (TRAINJOB_COMPLETE,
                                                           TRAINJOB_FAILED) else None
        return self.backend.wait_until(found, float("inf"), 0.1, self._watches(name))

    def _watches(self, name: str) -> List[Any]:
        return [("trainjobs", None), ("pods", f"{JOBSET_NAME}={name}")]

    def get_job_events(self, name: str) -> List[Event]:
        """The job's events (restarts, failures, completion)."""
        self.backend.job(TRAINJOB, name)
        return self.backend.events(TRAINJOB, name)

    def wait_for_job_status(self, name: str, status: Set[str] = {TRAINJOB_COMPLETE},
                            timeout: float = 600, polling_interval: float = 2,
                            callbacks: Optional[List[Callable[[TrainJob], None]]] = None,
                            ) -> TrainJob:
        """The TrainJob once its status is one of `status`; JobFailedError when it Failed.  A
        notebook shows its progress in place; its stop button stops a local job."""
        if not set(status) <= JOB_STATUSES:
            raise ValueError(f"Expected status {status} must be a subset of {JOB_STATUSES}")
        if polling_interval > timeout:
            raise ValueError(f"Polling interval {polling_interval} must be less than timeout: "
                             f"{timeout}")
        live = _notebook.Live()

        def show(job: TrainJob) -> None:
            for callback in callbacks or []:
                callback(job)
            if live.on:
                live.show(self._progress(job))
        job = self._wait(name, status, timeout, polling_interval, show, self._watches(name))
        if job is None:
            raise TimeoutError(f"Timeout waiting for TrainJob {name} to reach status: "
                               f"{status} status")
        return job

    def watch_progress(self, name: str, interval: float = 1.0,
                       timeout: Optional[float] = None) -> TrainJob:
        """A progress bar of the TrainJob (its trainer_status: jaxset.report's progress, eta
        and metrics), from get_job every `interval` seconds until it is Complete or Failed;
        the final TrainJob (a Failed one too).  A notebook shows it as one output updated in
        place, elsewhere it is one line of stdout rewritten after a carriage return.
        TimeoutError after `timeout` seconds (None: no limit); the stop button stops a local
        job."""
        if not interval > 0 or (timeout is not None and not timeout > 0):
            raise ValueError(f"interval and timeout must be > 0 seconds, got {interval!r} and "
                             f"{timeout!r}")
        bar = _notebook.ProgressBar()
        try:
            job = self._wait(name, {TRAINJOB_COMPLETE, TRAINJOB_FAILED},
                             float("inf") if timeout is None else timeout, interval, bar.show,
                             [])
        finally:
            bar.close()
        if job is None:
            raise TimeoutError(f"Timeout watching the progress of TrainJob {name}")
        return job

    def _wait(self, name: str, status: Set[str], timeout: float, interval: float,
              show: Callable[[TrainJob], None], watches: List[Any]) -> Optional[TrainJob]:
        """The TrainJob once its status is one of `status` (None after `timeout`), each one
        read handed to show(); JobFailedError when it Failed and Failed is not awaited."""
        rt: List[Runtime] = []

        def check() -> Optional[TrainJob]:
            tj = self.backend.job(TRAINJOB, name)
            rt[:] = rt or [self._runtime_of(tj)]
            job = self._trainjob(tj, rt[0])
            show(job)
            if TRAINJOB_FAILED not in status and job.status == TRAINJOB_FAILED:
                why = dig(condition(tj, TRAINJOB_FAILED), "message")
                raise JobFailedError(f"TrainJob {name} is Failed" + (f": {why}" if why else ""),
                                     self.backend.failure(TRAINJOB, name))
            return job if job.status in status else None

        with stopped_on_interrupt(self.backend, TRAINJOB, name):
            return self.backend.wait_until(check, timeout, interval, watches)

    def _progress(self, job: TrainJob) -> str:
        """The job, then each step's phase and last log line (a notebook's wait shows it)."""
        rows = [repr(job)]
        for step, pod in newest(self.backend.pods(job.name), step_name).items():
            c = step if step in INITIALIZERS else NODE
            last = self.backend.log(TRAINJOB, job.name, pod, c)[-1:]
            rows.append(f"  {step:<8} {dig(pod, 'status.phase', 'Pending'):<9} {''.join(last)}")
        return "\n".join(rows)

    def delete_job(self, name: str) -> None:
        """Deletes the TrainJob (locally, once its processes are stopped)."""
        self.backend.delete(TRAINJOB, name, cascade="Background")
        logger.debug("TrainJob %s/%s has been deleted", self.backend.namespace, name)
