"""TrainerClient.train(options=[...]): kubeflow/sdk 0.5.0's training options, with its names,
fields and checks (kubeflow/sdk kubeflow/trainer/options/common.py Name; options/kubernetes.py
Labels, Annotations, TrainerCommand, TrainerArgs, ActiveDeadlineSeconds, RuntimePatch and the
patch types under it), and TrainerEnvFrom as kubeflow/sdk PR #477 proposes it (not in 0.5.0).

As upstream, each option is called as ``option(job_spec, trainer, backend)`` and writes its part
of a TrainJob dict; train() then takes metadata.name/labels/annotations, spec.trainer.command/
args (and env), spec.runtimePatches and spec.activeDeadlineSeconds from it, as kubeflow/sdk's
KubernetesBackend.train does.  Upstream's local backends refuse every option but Name; jaxset's
local backend keeps the TrainJob as a real object and runs it through the converter a cluster
runs, so it honours all of them but TrainerEnvFrom (a Secret or ConfigMap is not on this
machine).  kubeflow/sdk's own option objects are taken too (`adopt`): they are matched by class
name and fields, since calling them would check for kubeflow's own backend classes."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional

from ._local import Local

Spec = Dict[str, Any]
MANAGER = "trainer.kubeflow.org/kubeflow-sdk"
VALUE_FROM_KEYS = ("configMapKeyRef", "secretKeyRef", "fieldRef", "resourceFieldRef")


def backend_name(backend: Any) -> str:
    """The backend as upstream's messages name it (type(backend).__name__ there)."""
    return backend.display if isinstance(backend, Local) else "KubernetesBackend"


def kubernetes_only(option: str, backend: Any) -> None:
    """Upstream's refusal of a Kubernetes option on another backend."""
    if isinstance(backend, Local):
        raise ValueError(f"{option} option is not compatible with {backend_name(backend)}. "
                         f"Supported backends: KubernetesBackend")


def _strings(what: str, value: Any) -> List[str]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{what} must be a list of strings, got {value!r}")
    return list(value)


def _string_map(what: str, value: Any) -> Dict[str, str]:
    if not isinstance(value, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ValueError(f"{what} must be a dict of strings to strings, got {value!r}")
    return dict(value)


def _container_only(option: str, trainer: Any, what: str, whats: str) -> None:
    """TrainerCommand/TrainerArgs: a CustomTrainerContainer's (or no trainer's) only."""
    from .types import CustomTrainerContainer
    if trainer is not None and not isinstance(trainer, CustomTrainerContainer):
        raise ValueError(f"{option} can only be used with CustomTrainerContainer. "
                         f"CustomTrainer generates its own {what} from the function, and "
                         f"BuiltinTrainer uses pre-configured {whats}.")


def _trainer_spec(job_spec: Spec) -> Spec:
    return job_spec.setdefault("spec", {}).setdefault("trainer", {})


# -- metadata ----------------------------------------------------------------------------------

@dataclass
class Name:
    """The TrainJob's name (.metadata.name), on every backend."""

    name: str

    def __call__(self, job_spec: Spec, trainer: Any, backend: Any) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"Name: the name must be a non-empty string, got {self.name!r}")
        job_spec.setdefault("metadata", {})["name"] = self.name


@dataclass
class Labels:
    """Labels of the TrainJob (.metadata.labels); locally kept on the run's TrainJob."""

    labels: Dict[str, str]

    def __call__(self, job_spec: Spec, trainer: Any, backend: Any) -> None:
        job_spec.setdefault("metadata", {})["labels"] = _string_map("Labels", self.labels)


@dataclass
class Annotations:
    """Annotations of the TrainJob (.metadata.annotations); locally kept on the run's TrainJob."""

    annotations: Dict[str, str]

    def __call__(self, job_spec: Spec, trainer: Any, backend: Any) -> None:
        job_spec.setdefault("metadata", {})["annotations"] = _string_map("Annotations",
                                                                         self.annotations)


# -- the trainer -------------------------------------------------------------------------------

@dataclass
class TrainerCommand:
    """The trainer container's command (.spec.trainer.command); CustomTrainerContainer only.
    Locally it is the command each process runs."""

    command: List[str]

    def __call__(self, job_spec: Spec, trainer: Any, backend: Any) -> None:
        _container_only("TrainerCommand", trainer, "command", "commands")
        _trainer_spec(job_spec)["command"] = _strings("TrainerCommand", self.command)


@dataclass
class TrainerArgs:
    """The trainer container's arguments (.spec.trainer.args); CustomTrainerContainer only."""

    args: List[str]

    def __call__(self, job_spec: Spec, trainer: Any, backend: Any) -> None:
        _container_only("TrainerArgs", trainer, "arguments", "arguments")
        _trainer_spec(job_spec)["args"] = _strings("TrainerArgs", self.args)


def _value_from(value: Any) -> Dict[str, Any]:
    """An EnvVarSource as a dict: a dict, or a model with to_dict() (kubeflow_trainer_api)."""
    if hasattr(value, "to_dict") and not isinstance(value, Mapping):
        value = value.to_dict()
    if not isinstance(value, Mapping) or not any(k in value for k in VALUE_FROM_KEYS):
        raise ValueError(f"TrainerEnvFrom: value_from must be an EnvVarSource with one of "
                         f"{', '.join(VALUE_FROM_KEYS)}, got {value!r}")
    return dict(value)


@dataclass
class TrainerEnvFrom:
    """A trainer env variable from a Secret, ConfigMap or field (.spec.trainer.env, after
    CustomTrainer(env=...)'s), as kubeflow/sdk PR #477 proposes it (not in kubeflow/sdk 0.5.0).
    Kubernetes only: the local backend has no Secrets or ConfigMaps to read."""

    env_name: str
    value_from: Any

    def __post_init__(self):
        if not self.env_name:
            raise ValueError("env_name must be a non-empty string")

    @classmethod
    def secret(cls, env_name: str, *, secret_name: str, key: str) -> "TrainerEnvFrom":
        return cls(env_name, {"secretKeyRef": {"name": secret_name, "key": key}})

    @classmethod
    def config_map(cls, env_name: str, *, config_map_name: str, key: str) -> "TrainerEnvFrom":
        return cls(env_name, {"configMapKeyRef": {"name": config_map_name, "key": key}})

    def __call__(self, job_spec: Spec, trainer: Any, backend: Any) -> None:
        from .types import CustomTrainer, CustomTrainerContainer
        kubernetes_only("TrainerEnvFrom", backend)
        if trainer is not None and not isinstance(trainer, (CustomTrainer,
                                                            CustomTrainerContainer)):
            raise ValueError(f"TrainerEnvFrom option is not compatible with "
                             f"{type(trainer).__name__}. Supported trainers: CustomTrainer, "
                             f"CustomTrainerContainer")
        _trainer_spec(job_spec).setdefault("env", []).append(
            {"name": self.env_name, "valueFrom": _value_from(self.value_from)})


@dataclass
class ActiveDeadlineSeconds:
    """The TrainJob's deadline (.spec.activeDeadlineSeconds, at least 1); locally the trainer
    Job's, as jaxset's converter puts it on a cluster too."""

    seconds: int

    def __post_init__(self):
        if type(self.seconds) is not int or self.seconds < 1:
            raise ValueError("activeDeadlineSeconds must be a positive integer (minimum 1)")

    def __call__(self, job_spec: Spec, trainer: Any, backend: Any) -> None:
        job_spec.setdefault("spec", {})["activeDeadlineSeconds"] = self.seconds


# -- runtime patches ---------------------------------------------------------------------------

def _check_env(env: Any) -> None:
    if not isinstance(env, list):
        raise ValueError("env must be a list of dictionaries")
    for e in env:
        if not isinstance(e, dict):
            raise ValueError("Each env entry must be a dictionary")
        if "name" not in e:
            raise ValueError("Each env entry must have a 'name' key")
        if not e.get("name"):
            raise ValueError("env 'name' must be a non-empty string")
        if "value" not in e and "valueFrom" not in e:
            raise ValueError("Each env entry must have either 'value' or 'valueFrom' key")
        if "valueFrom" in e:
            if not isinstance(e["valueFrom"], dict):
                raise ValueError("env 'valueFrom' must be a dictionary")
            if not any(k in e["valueFrom"] for k in VALUE_FROM_KEYS):
                raise ValueError(f"env 'valueFrom' must contain one of: "
                                 f"{', '.join(VALUE_FROM_KEYS)}")


def _check_mounts(mounts: Any) -> None:
    if not isinstance(mounts, list):
        raise ValueError("volume_mounts must be a list of dictionaries")
    for m in mounts:
        if not isinstance(m, dict):
            raise ValueError("Each volume_mounts entry must be a dictionary")
        if "name" not in m:
            raise ValueError("Each volume_mounts entry must have a 'name' key")
        if not m.get("name"):
            raise ValueError("volume_mounts 'name' must be a non-empty string")
        if "mountPath" not in m:
            raise ValueError("Each volume_mounts entry must have a 'mountPath' key")
        path = m.get("mountPath")
        if not path or not isinstance(path, str):
            raise ValueError("volume_mounts 'mountPath' must be a non-empty string")
        if not path.startswith("/"):
            raise ValueError(f"volume_mounts 'mountPath' must be an absolute path "
                             f"(start with /): {path}")


@dataclass
class ContainerPatch:
    """A container of the runtime's pod template, by name: env, volumeMounts, securityContext
    (env is refused by Trainer's webhook for node and the initializers: use CustomTrainer(env=))."""

    name: str
    env: Optional[List[dict]] = None
    volume_mounts: Optional[List[dict]] = None
    security_context: Optional[dict] = None

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError("Container name must be a non-empty string")
        if self.env is not None:
            _check_env(self.env)
        if self.volume_mounts is not None:
            _check_mounts(self.volume_mounts)


@dataclass
class PodSpecPatch:
    service_account_name: Optional[str] = None
    volumes: Optional[List[dict]] = None
    init_containers: Optional[List[ContainerPatch]] = None
    containers: Optional[List[ContainerPatch]] = None
    image_pull_secrets: Optional[List[dict]] = None
    security_context: Optional[dict] = None
    node_selector: Optional[Dict[str, str]] = None
    affinity: Optional[dict] = None
    tolerations: Optional[List[dict]] = None
    scheduling_gates: Optional[List[dict]] = None


@dataclass
class PodTemplatePatch:
    metadata: Optional[dict] = None
    spec: Optional[PodSpecPatch] = None


@dataclass
class JobSpecPatch:
    template: Optional[PodTemplatePatch] = None


@dataclass
class JobTemplatePatch:
    metadata: Optional[dict] = None
    spec: Optional[JobSpecPatch] = None


@dataclass
class ReplicatedJobPatch:
    name: str
    template: Optional[JobTemplatePatch] = None


@dataclass
class JobSetSpecPatch:
    replicated_jobs: Optional[List[ReplicatedJobPatch]] = None


@dataclass
class JobSetTemplatePatch:
    metadata: Optional[dict] = None
    spec: Optional[JobSetSpecPatch] = None


@dataclass
class TrainingRuntimeSpecPatch:
    template: Optional[JobSetTemplatePatch] = None


def _camel(snake: str) -> str:
    first, *rest = snake.split("_")
    return first + "".join(w.capitalize() for w in rest)


def patch_dict(obj: Any) -> Any:
    """A patch dataclass (jaxset's or kubeflow/sdk's) as the API's dict, as upstream's
    _patch_to_dict: camelCase keys, None left out, an empty list or nested patch left out,
    other values as they are."""
    if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        return obj
    out: Dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if value is None:
            continue
        if isinstance(value, list) or dataclasses.is_dataclass(value):
            value = [patch_dict(v) for v in value] if isinstance(value, list) \
                else patch_dict(value)
            if not value:
                continue
        out[_camel(f.name)] = value
    return out


@dataclass
class RuntimePatch:
    """A runtime patch of the TrainJob (.spec.runtimePatches), its manager
    trainer.kubeflow.org/kubeflow-sdk: merged into the runtime's JobSet template as Trainer v2.3
    merges it, by jaxset's controller on a cluster and by the local run alike."""

    training_runtime_spec: Optional[TrainingRuntimeSpecPatch] = None
    manager: str = dataclasses.field(default=MANAGER, init=False, repr=False)

    def __call__(self, job_spec: Spec, trainer: Any, backend: Any) -> None:
        job_spec.setdefault("spec", {}).setdefault("runtimePatches", []).append(
            patch_dict(self))


OPTIONS = (Name, Labels, Annotations, TrainerCommand, TrainerArgs, TrainerEnvFrom,
           ActiveDeadlineSeconds, RuntimePatch)


# -- kubeflow/sdk's own objects ----------------------------------------------------------------

def _adopt_env_from(o: Any) -> TrainerEnvFrom:
    return TrainerEnvFrom(getattr(o, "_env_name", None) or getattr(o, "env_name"),
                          _value_from(getattr(o, "_value_from", None) or
                                      getattr(o, "value_from")))


def _adopt_patch(o: Any) -> RuntimePatch:
    return RuntimePatch(training_runtime_spec=o.training_runtime_spec)


# class name -> (fields it has, the jaxset option made from it)
ADOPT: Dict[str, Any] = {
    "Name": (("name",), lambda o: Name(o.name)),
    "Labels": (("labels",), lambda o: Labels(o.labels)),
    "Annotations": (("annotations",), lambda o: Annotations(o.annotations)),
    "TrainerCommand": (("command",), lambda o: TrainerCommand(o.command)),
    "TrainerArgs": (("args",), lambda o: TrainerArgs(o.args)),
    "ActiveDeadlineSeconds": (("seconds",), lambda o: ActiveDeadlineSeconds(o.seconds)),
    "RuntimePatch": (("training_runtime_spec",), _adopt_patch),
    "TrainerEnvFrom": ((), _adopt_env_from),
}


def adopt(option: Any) -> Callable[[Spec, Any, Any], None]:
    """What applies `option`: a jaxset option; kubeflow/sdk's of the same class name and
    fields as the jaxset one; else any callable taking (job_spec, trainer, backend), as
    upstream calls any option."""
    if isinstance(option, OPTIONS):
        return option
    known = ADOPT.get(type(option).__name__)
    if known and all(hasattr(option, f) for f in known[0]):
        return known[1](option)
    if callable(option) and not isinstance(option, type):
        return option
    raise ValueError(f"{option!r} is not a training option: use one of "
                     f"{', '.join(c.__name__ for c in OPTIONS)} (jaxset.options or "
                     f"kubeflow.trainer.options)")


def apply_options(options: Any, trainer: Any, backend: Any) -> Spec:
    """The TrainJob parts the options write, each called in order as upstream calls them."""
    if not isinstance(options, (list, tuple)):
        raise ValueError(f"options must be a list of training options, got "
                         f"{type(options).__name__}")
    job_spec: Spec = {}
    for option in options:
        adopt(option)(job_spec, trainer, backend)
    return job_spec
