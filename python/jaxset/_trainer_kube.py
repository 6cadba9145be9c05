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

from . import _func, _kubecli as kj, runtimes
from ._trainer_local import (INITIALIZERS, STEP_RJOBS, TRAINJOB_KIND, node_fields,
                             print_runtime_packages, runtime_name, step_of, train_options,
                             trainjob_object, trainjob_status, wait_args)
from .errors import ApiNotFoundError, NotFoundError
from .types import (TRAINJOB_COMPLETE, TRAINJOB_FAILED, UNKNOWN, CustomTrainer,
                    CustomTrainerContainer, Event, KubernetesBackendConfig, Runtime, TrainJob)

logger = logging.getLogger(__name__)

RUNTIME_KINDS = (runtimes.NAMESPACED_KIND, runtimes.CLUSTER_KIND)  # looked for in this order
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
        self.kc = kj.Kube(cfg)
        self.namespace = self.kc.namespace

    # -- runtimes -------------------------------------------------------------------------

    def _runtime_objects(self) -> List[Dict[str, Any]]:
        out: List[Dict[str, Any]] = []
        for kind in RUNTIME_KINDS:
            try:
                out += self.kc.list(kind)
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
        for kind in RUNTIME_KINDS:
            try:
                cr = self.kc.get(kind, name)
                cr.setdefault("kind", kind)
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
        train_options(initializer, options)
        rt_name = runtime_name(runtime)
        spec = self._trainer_spec(trainer)  # bad input fails before the server is asked
        cr = self._runtime_object(rt_name)
        runtimes.to_runtime(cr)  # a runtime the SDK cannot read is refused here
        body = trainjob_object(self.namespace, cr, spec)
        name = body["metadata"]["name"]
        self.kc.create(body)
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

    def _runtime_of(self, tj: Dict[str, Any]) -> Runtime:
        ref = (tj.get("spec") or {}).get("runtimeRef") or {}
        rname = str(ref.get("name") or UNKNOWN)
        kind = runtimes.NAMESPACED_KIND if ref.get("kind") == runtimes.NAMESPACED_KIND \
            else runtimes.CLUSTER_KIND
        try:
            return runtimes.to_runtime(self.kc.get(kind, rname))
        except (ApiNotFoundError, ValueError):
            return Runtime(name=rname,
                           trainer=runtimes.to_runtime(runtimes.jax_distributed()).trainer)

    def _trainjob(self, tj: Dict[str, Any], pods: List[Dict[str, Any]],
                  rt: Optional[Runtime] = None) -> TrainJob:
        rt = rt or self._runtime_of(tj)
        latest = kj.newest(pods, self._step_name)
        steps = [step_of(n, p) for n, p in latest.items()]
        nodes = ((tj.get("spec") or {}).get("trainer") or {}).get("numNodes")
        num_nodes = nodes if isinstance(nodes, int) else rt.trainer.num_nodes
        terminal = next((t for t in (TRAINJOB_COMPLETE, TRAINJOB_FAILED) if _condition(tj, t)),
                        None)
        return TrainJob(name=kj.name_of(tj), runtime=rt, steps=steps, num_nodes=num_nodes,
                        creation_timestamp=datetime.fromtimestamp(kj.created(tj), timezone.utc),
                        status=trainjob_status(terminal, steps, num_nodes))

    def list_jobs(self, runtime: RuntimeRef = None) -> List[TrainJob]:
        want = runtime.name if isinstance(runtime, Runtime) else runtime
        items = self.kc.list("trainjobs")
        if want is not None:
            items = [t for t in items
                     if ((t.get("spec") or {}).get("runtimeRef") or {}).get("name") == want]
        items.sort(key=lambda t: (kj.created(t), kj.name_of(t)))
        pods = self.kc.list("pods", selector=kj.JOBSET_NAME) if items else []
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
        return self.kc.get("trainjob", name)

    def get_job(self, name: str) -> TrainJob:
        tj = self._get(name)
        return self._trainjob(tj, self._pods(name))

    def _pods(self, name: str) -> List[Dict[str, Any]]:
        return self.kc.list("pods", selector=f"{kj.JOBSET_NAME}={name}")

    def get_job_logs(self, name: str, follow: Optional[bool] = False,
                     step: str = runtimes.NODE + "-0") -> Iterator[str]:
        if step not in INITIALIZERS and not _STEP.match(str(step)):
            raise ValueError(f"step {step!r} is not one of node-<i>, "
                             f"{', '.join(INITIALIZERS)}")
        self._get(name)  # NotFound before iteration starts
        return self._logs(name, step, bool(follow))

    def _find(self, name: str, step: str) -> Optional[Dict[str, Any]]:
        return kj.newest(self._pods(name), self._step_name).get(step)

    def _logs(self, name: str, step: str, follow: bool) -> Iterator[str]:
        container = step if step in INITIALIZERS else runtimes.NODE
        if follow:  # the step's pod may not be there yet: wait for it while the job lives
            def ready() -> Any:
                try:
                    tj = self._get(name)
                except ApiNotFoundError:
                    return False
                if _condition(tj, TRAINJOB_COMPLETE) or _condition(tj, TRAINJOB_FAILED):
                    return self._find(name, step) or False
                return self._find(name, step)
            pod = None
            while pod is None:
                pod = self.kc.wait_until(ready, 300, [
                    ["trainjobs", "--all"], ["pods", "--all", "-l", f"{kj.JOBSET_NAME}={name}"]])
            if pod:
                yield from self.kc.stream("logs", f"trainjob/{name}", "-f", "--pod",
                                          kj.name_of(pod), "-c", container)
            return
        pod = self._find(name, step)
        if pod is not None:
            yield from self.kc.log("trainjob", name, kj.name_of(pod), container)

    def get_job_events(self, name: str) -> List[Event]:
        self._get(name)
        return self.kc.events(self.namespace, {(TRAINJOB_KIND, name)}, name)

    def wait_for_job_status(self, name: str, status: Set[str] = {TRAINJOB_COMPLETE},
                            timeout: float = 600, polling_interval: float = 2) -> TrainJob:
        wait_args(status, timeout, polling_interval)
        rt: List[Runtime] = []

        def check() -> Optional[TrainJob]:
            tj = self._get(name)
            if not rt:
                rt.append(self._runtime_of(tj))
            job = self._trainjob(tj, self._pods(name), rt[0])
            if TRAINJOB_FAILED not in status and job.status == TRAINJOB_FAILED:
                why = (_condition(tj, TRAINJOB_FAILED) or {}).get("message")
                raise RuntimeError(f"TrainJob {name} is Failed" + (f": {why}" if why else ""))
            return job if job.status in status else None

        job = self.kc.wait_until(check, timeout, [
            ["trainjobs", "--all"], ["pods", "--all", "-l", f"{kj.JOBSET_NAME}={name}"]])
        if job is None:
            raise TimeoutError(f"Timeout waiting for TrainJob {name} to reach status: "
                               f"{status} status")
        return job

    def delete_job(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"a TrainJob name is a non-empty string, got {name!r}")
        self.kc.delete("trainjob", name, cascade="Background")
        logger.debug("TrainJob %s/%s has been deleted", self.namespace, name)
