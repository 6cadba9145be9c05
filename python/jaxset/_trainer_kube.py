"""TrainerClient's Kubernetes backend: TrainJobs (trainer.kubeflow.org/v1alpha1) on a cluster,
as Kubeflow Trainer's SDK manages them (kubeflow/sdk kubeflow/trainer/backends/kubernetes):
runtimes read from the server, TrainJobs created as kubectl creates them, status derived from
the TrainJob's conditions and the pods of the JobSet it owns."""
from __future__ import annotations

import logging
import re
import shlex
from datetime import datetime, timezone
from typing import Any, Dict, Iterator, List, Optional, Set, Union

from . import _func, _kubejobs as kj, runtimes
from ._kube import PODS, Resource, parse_time
from ._trainer_local import (INITIALIZERS, JOB_STATUSES, STEP_RJOBS, job_name, node_fields,
                             print_runtime_packages, runtime_name)
from .errors import ApiNotFoundError, NotFoundError
from .types import (TRAINJOB_COMPLETE, TRAINJOB_CREATED, TRAINJOB_FAILED, TRAINJOB_RUNNING,
                    UNKNOWN, CustomTrainer, CustomTrainerContainer, Event,
                    KubernetesBackendConfig, Runtime, Step, TrainJob)

logger = logging.getLogger(__name__)

VERSION = "v1alpha1"
TRAINJOBS = Resource(runtimes.GROUP, VERSION, "trainjobs", "TrainJob")
CLUSTER_RUNTIMES = Resource(runtimes.GROUP, VERSION, "clustertrainingruntimes",
                            runtimes.CLUSTER_KIND, namespaced=False)
RUNTIMES = Resource(runtimes.GROUP, VERSION, "trainingruntimes", runtimes.NAMESPACED_KIND)
_STEP = re.compile(r"^node-(\d+)$")

RuntimeRef = Union[Runtime, str, None]
Trainer = Union[CustomTrainer, CustomTrainerContainer, None]


def _condition(obj: Dict[str, Any], ctype: str) -> Optional[Dict[str, Any]]:
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c.get("type") == ctype and c.get("status") == "True":
            return c
    return None


def trainer_command(trainer: CustomTrainer, python: str = "python3") -> List[str]:
    """The command every node runs: the function's source (as the local backend ships it),
    after a pip install of `packages_to_install` when there are any."""
    cmd = _func.function_command(trainer.func, trainer.func_args, python)
    pkgs = trainer.packages_to_install
    if not pkgs:
        return _func.unexpanded(cmd)
    if not isinstance(pkgs, (list, tuple)) or not all(isinstance(p, str) and p for p in pkgs):
        raise ValueError("packages_to_install must be a list of package names")
    urls = list(trainer.pip_index_urls or [])
    index = []
    if urls:
        index = ["--index-url", urls[0]]
        for u in urls[1:]:
            index += ["--extra-index-url", u]
    pip = [python, "-m", "pip", "install", "--quiet", "--no-warn-script-location",
           "--disable-pip-version-check", *index, *pkgs]
    script = " ".join(shlex.quote(a) for a in pip) + " && exec " + \
        " ".join(shlex.quote(a) for a in cmd)
    return _func.unexpanded(["bash", "-c", script])


class KubeTrainerBackend:
    """TrainJobs on a cluster (see TrainerClient)."""

    def __init__(self, cfg: KubernetesBackendConfig):
        self.cfg = cfg
        self.kc, self.namespace = kj.connect(cfg)

    # -- runtimes -------------------------------------------------------------------------

    def _runtime_objects(self) -> List[Dict[str, Any]]:
        out: List[Dict[str, Any]] = []
        for res, ns in ((RUNTIMES, self.namespace), (CLUSTER_RUNTIMES, None)):
            try:
                out += self.kc.list(res, ns)["items"]
            except ApiNotFoundError:  # that kind is not served (its CRD is not installed)
                pass
        return out

    def list_runtimes(self) -> List[Runtime]:
        out = []
        for cr in self._runtime_objects():
            name = kj.name_of(cr)
            if runtimes.FRAMEWORK_LABEL not in kj.labels(cr):
                logger.warning("Runtime %s must have %s label.", name, runtimes.FRAMEWORK_LABEL)
                continue
            try:
                out.append(runtimes.to_runtime(cr))
            except ValueError as e:
                logger.warning("Runtime %s is skipped: %s", name, e)
        return out

    def _runtime_object(self, name: str) -> Dict[str, Any]:
        if not isinstance(name, str) or not name:
            raise ValueError(f"a runtime name is a non-empty string, got {name!r}")
        for res, ns in ((RUNTIMES, self.namespace), (CLUSTER_RUNTIMES, None)):
            try:
                cr = self.kc.get(res, name, ns)
                cr.setdefault("kind", res.kind)
                return cr
            except ApiNotFoundError:
                continue
        known = sorted({kj.name_of(o) for o in self._runtime_objects()})
        raise NotFoundError(
            f"runtime {name!r} not found: no TrainingRuntime {name} in namespace "
            f"{self.namespace} and no ClusterTrainingRuntime {name}; known runtimes: "
            f"{', '.join(known) or 'none'}")

    def get_runtime(self, name: str) -> Runtime:
        return runtimes.to_runtime(self._runtime_object(name))

    def get_runtime_packages(self, runtime: Runtime) -> None:
        print_runtime_packages(self, runtime, timeout=600)

    # -- train ----------------------------------------------------------------------------

    def _trainer_spec(self, trainer: Trainer) -> Dict[str, Any]:
        spec: Dict[str, Any] = {}
        if trainer is None:
            return spec
        if isinstance(trainer, CustomTrainer):
            spec["command"] = trainer_command(trainer)
        elif isinstance(trainer, CustomTrainerContainer):
            if not isinstance(trainer.image, str) or not trainer.image:
                raise ValueError("CustomTrainerContainer needs an image")
            spec["image"] = trainer.image
        else:
            raise ValueError(f"the trainer type {type(trainer).__name__} is not supported: use "
                             "CustomTrainer or CustomTrainerContainer")
        return node_fields(trainer, spec)

    def train(self, runtime: RuntimeRef = None, initializer: Any = None,
              trainer: Trainer = None, options: Optional[list] = None) -> str:
        if initializer is not None:
            raise ValueError("initializers are not supported by jaxset's TrainerClient yet")
        if options:
            raise ValueError("options are not supported by jaxset's TrainerClient yet")
        rt_name = runtime_name(runtime)
        spec = self._trainer_spec(trainer)  # bad input fails before the server is asked
        cr = self._runtime_object(rt_name)
        runtimes.to_runtime(cr)  # a runtime the SDK cannot read is refused here
        name = job_name()
        body: Dict[str, Any] = {
            "apiVersion": TRAINJOBS.api_version, "kind": TRAINJOBS.kind,
            "metadata": {"name": name, "namespace": self.namespace},
            "spec": {"runtimeRef": {"name": rt_name, "apiGroup": runtimes.GROUP,
                                    "kind": cr.get("kind") or runtimes.CLUSTER_KIND}},
        }
        if spec:
            body["spec"]["trainer"] = spec
        self.kc.create(TRAINJOBS, body, self.namespace)
        logger.debug("TrainJob %s/%s has been created", self.namespace, name)
        return name

    # -- jobs -----------------------------------------------------------------------------

    def _step_name(self, pod: Dict[str, Any]) -> Optional[str]:
        rj = kj.labels(pod).get(kj.RJOB_NAME)
        if rj in INITIALIZERS:
            return rj
        if rj in STEP_RJOBS:
            idx = kj.completion_index(pod)
            return f"{runtimes.NODE}-{idx if idx is not None else 0}"
        return None

    def _step(self, name: str, pod: Dict[str, Any]) -> Step:
        step = Step(name=name, status=kj.phase(pod), pod_name=kj.name_of(pod))
        want = name if name in INITIALIZERS else runtimes.NODE
        containers = (pod.get("spec") or {}).get("containers") or []
        c = next((c for c in containers if c.get("name") == want), None)
        devices = runtimes.container_devices((c or {}).get("resources"))
        if devices:
            step.device, step.device_count = devices
        return step

    def _runtime_of(self, tj: Dict[str, Any]) -> Runtime:
        ref = (tj.get("spec") or {}).get("runtimeRef") or {}
        rname = str(ref.get("name") or UNKNOWN)
        res = RUNTIMES if ref.get("kind") == runtimes.NAMESPACED_KIND else CLUSTER_RUNTIMES
        try:
            cr = self.kc.get(res, rname, self.namespace if res.namespaced else None)
            return runtimes.to_runtime(cr)
        except (ApiNotFoundError, ValueError):
            return Runtime(name=rname,
                           trainer=runtimes.to_runtime(runtimes.jax_distributed()).trainer)

    def _trainjob(self, tj: Dict[str, Any], pods: List[Dict[str, Any]],
                  rt: Optional[Runtime] = None) -> TrainJob:
        rt = rt or self._runtime_of(tj)
        latest = kj.newest(pods, self._step_name)
        steps = [self._step(n, p) for n, p in latest.items()]
        nodes = ((tj.get("spec") or {}).get("trainer") or {}).get("numNodes")
        num_nodes = nodes if isinstance(nodes, int) else rt.trainer.num_nodes
        created = parse_time((tj.get("metadata") or {}).get("creationTimestamp"))
        job = TrainJob(name=kj.name_of(tj), runtime=rt, steps=steps, num_nodes=num_nodes,
                       creation_timestamp=datetime.fromtimestamp(created or 0, timezone.utc),
                       status=TRAINJOB_CREATED)
        if _condition(tj, TRAINJOB_COMPLETE):
            job.status = TRAINJOB_COMPLETE
        elif _condition(tj, TRAINJOB_FAILED):
            job.status = TRAINJOB_FAILED
        else:
            up = sum(1 for s in steps if _STEP.match(s.name) and
                     s.status in ("Running", "Succeeded"))
            if num_nodes and up >= num_nodes:
                job.status = TRAINJOB_RUNNING
        return job

    def list_jobs(self, runtime: RuntimeRef = None) -> List[TrainJob]:
        want = runtime.name if isinstance(runtime, Runtime) else runtime
        items = self.kc.list(TRAINJOBS, self.namespace)["items"]
        if want is not None:
            items = [t for t in items
                     if ((t.get("spec") or {}).get("runtimeRef") or {}).get("name") == want]
        items.sort(key=lambda t: (parse_time((t.get("metadata") or {}).get(
            "creationTimestamp")) or 0, kj.name_of(t)))
        pods = self.kc.list(PODS, self.namespace, label_selector=kj.JOBSET_NAME)["items"] \
            if items else []
        by_job: Dict[str, List[Dict[str, Any]]] = {}
        for p in pods:
            by_job.setdefault(kj.labels(p).get(kj.JOBSET_NAME, ""), []).append(p)
        cache: Dict[str, Runtime] = {}
        out = []
        for t in items:
            ref = (t.get("spec") or {}).get("runtimeRef") or {}
            key = f"{ref.get('kind')}/{ref.get('name')}"
            if key not in cache:
                cache[key] = self._runtime_of(t)
            out.append(self._trainjob(t, by_job.get(kj.name_of(t), []), cache[key]))
        return out

    def _get(self, name: str) -> Dict[str, Any]:
        if not isinstance(name, str) or not name:
            raise ValueError(f"a TrainJob name is a non-empty string, got {name!r}")
        return self.kc.get(TRAINJOBS, name, self.namespace)

    def get_job(self, name: str) -> TrainJob:
        tj = self._get(name)
        return self._trainjob(tj, kj.jobset_pods(self.kc, self.namespace, name))

    def get_job_logs(self, name: str, follow: Optional[bool] = False,
                     step: str = runtimes.NODE + "-0") -> Iterator[str]:
        if step not in INITIALIZERS and not _STEP.match(str(step)):
            raise ValueError(f"step {step!r} is not one of node-<i>, "
                             f"{', '.join(INITIALIZERS)}")
        self._get(name)  # NotFound before iteration starts
        return self._logs(name, step, bool(follow))

    def _find(self, name: str, step: str) -> Optional[Dict[str, Any]]:
        pods = kj.jobset_pods(self.kc, self.namespace, name)
        return kj.newest(pods, self._step_name).get(step)

    def _logs(self, name: str, step: str, follow: bool) -> Iterator[str]:
        container = step if step in INITIALIZERS else runtimes.NODE
        if follow:
            def alive() -> bool:
                try:
                    tj = self._get(name)
                except ApiNotFoundError:
                    return False
                return not (_condition(tj, TRAINJOB_COMPLETE) or
                            _condition(tj, TRAINJOB_FAILED))
            yield from kj.follow_log(
                self.kc, self.namespace, lambda: self._find(name, step), alive,
                [(PODS, self.namespace, f"{kj.JOBSET_NAME}={name}", None),
                 (TRAINJOBS, self.namespace, None, f"metadata.name={name}")], container)
            return
        pod = self._find(name, step)
        if pod is not None:
            yield from kj.read_log(self.kc, self.namespace, kj.name_of(pod),
                                   kj.pod_container(pod, container))

    def get_job_events(self, name: str) -> List[Event]:
        self._get(name)
        return kj.job_events(self.kc, self.namespace, {(TRAINJOBS.kind, name)}, name)

    def wait_for_job_status(self, name: str, status: Set[str] = {TRAINJOB_COMPLETE},
                            timeout: float = 600, polling_interval: float = 2) -> TrainJob:
        if not set(status) <= JOB_STATUSES:
            raise ValueError(f"Expected status {status} must be a subset of {JOB_STATUSES}")
        if polling_interval > timeout:
            raise ValueError(f"Polling interval {polling_interval} must be less than timeout: "
                             f"{timeout}")
        rt: List[Runtime] = []

        def check() -> Optional[TrainJob]:
            tj = self._get(name)
            if not rt:
                rt.append(self._runtime_of(tj))
            job = self._trainjob(tj, kj.jobset_pods(self.kc, self.namespace, name), rt[0])
            if TRAINJOB_FAILED not in status and job.status == TRAINJOB_FAILED:
                why = (_condition(tj, TRAINJOB_FAILED) or {}).get("message")
                raise RuntimeError(f"TrainJob {name} is Failed" + (f": {why}" if why else ""))
            return job if job.status in status else None

        job = kj.wait_until(self.kc, check, timeout, [
            (TRAINJOBS, self.namespace, None, f"metadata.name={name}"),
            (PODS, self.namespace, f"{kj.JOBSET_NAME}={name}", None)])
        if job is None:
            raise TimeoutError(f"Timeout waiting for TrainJob {name} to reach status: "
                               f"{status} status")
        return job

    def delete_job(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"a TrainJob name is a non-empty string, got {name!r}")
        self.kc.delete(TRAINJOBS, name, self.namespace, propagation="Background")
        logger.debug("TrainJob %s/%s has been deleted", self.namespace, name)
