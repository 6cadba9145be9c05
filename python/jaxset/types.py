"""The SDK's types, as kubeflow/sdk's kubeflow/trainer/types/types.py, and the backends'."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

UNKNOWN = "Unknown"

# TrainJob statuses the SDK derives (Kubeflow Trainer SDK's constants).
TRAINJOB_CREATED, TRAINJOB_RUNNING, TRAINJOB_COMPLETE, TRAINJOB_FAILED = (
    "Created", "Running", "Complete", "Failed")


@dataclass
class CustomTrainer:
    """A function run in every process as ``func(**func_args)``; only its source travels."""

    func: Callable[..., Any]
    func_args: Optional[Dict[str, Any]] = None
    packages_to_install: Optional[List[str]] = None
    pip_index_urls: List[str] = field(default_factory=lambda: os.environ.get(
        "DEFAULT_PIP_INDEX_URLS", "https://pypi.org/simple").split(","))
    num_nodes: Optional[int] = None
    resources_per_node: Optional[Dict[str, Any]] = None
    env: Optional[Dict[str, str]] = None


@dataclass
class CustomTrainerContainer:
    """The runtime's container with this image (locally, the runtime's command)."""

    image: str
    num_nodes: Optional[int] = None
    resources_per_node: Optional[Dict[str, Any]] = None
    env: Optional[Dict[str, str]] = None


class TrainerType(Enum):
    CUSTOM_TRAINER = "CustomTrainer"
    BUILTIN_TRAINER = "BuiltinTrainer"


@dataclass
class RuntimeTrainer:
    trainer_type: TrainerType
    framework: str
    image: str
    num_nodes: int = 1
    device: str = UNKNOWN
    device_count: str = UNKNOWN
    command: Tuple[str, ...] = field(default=(), repr=False)

    def set_command(self, command: Sequence[str]) -> None:
        self.command = tuple(command)


@dataclass
class Runtime:
    name: str
    trainer: RuntimeTrainer
    pretrained_model: Optional[str] = None


@dataclass
class Step:
    """One process of a TrainJob (``node-<i>``) or an initializer: its pod and phase."""

    name: str
    status: Optional[str]
    pod_name: str
    device: str = UNKNOWN
    device_count: str = UNKNOWN


@dataclass
class TrainerStatus:
    """What the training code last reported (the TrainJob's ``status.trainerStatus``, Kubeflow
    Trainer v2.2+: jaxset.report, kubeflow's update_trainjob_status): metrics in the order
    reported, their values as strings."""

    progress_percentage: Optional[int] = None
    estimated_remaining_seconds: Optional[int] = None
    metrics: Dict[str, str] = field(default_factory=dict)
    last_updated_time: Optional[datetime] = None

    def details(self, max_metrics: int = 3) -> str:
        """The remaining time and the first metrics: "eta 1m05s, loss=0.12, acc=0.9, +2
        metrics" (what of it is known)."""
        parts = [] if self.estimated_remaining_seconds is None else \
            [f"eta {duration(self.estimated_remaining_seconds)}"]
        shown = list(self.metrics.items())[:max_metrics]
        parts += [f"{k}={v}" for k, v in shown]
        if len(self.metrics) > len(shown):
            parts.append(f"+{len(self.metrics) - len(shown)} metrics")
        return ", ".join(parts)

    def summary(self) -> str:
        """The progress, then details(): "progress 45%, eta 1m05s, loss=0.12"."""
        parts = [] if self.progress_percentage is None else \
            [f"progress {self.progress_percentage}%"]
        details = self.details()
        return ", ".join([*parts, details] if details else parts)


@dataclass
class TrainJob:
    name: str
    runtime: Runtime
    steps: List[Step]
    num_nodes: int
    creation_timestamp: datetime
    status: str = UNKNOWN
    trainer_status: Optional[TrainerStatus] = None

    def __repr__(self) -> str:
        reported = self.trainer_status.summary() if self.trainer_status else ""
        return (f"<TrainJob {self.name}: {self.status}, {self.num_nodes} nodes, age "
                f"{age(self.creation_timestamp)}, runtime {self.runtime.name}"
                f"{', ' + reported if reported else ''}>")


def age(t: datetime) -> str:
    """How long ago `t` was, as kubectl shows an age: 45s, 7m, 3h, 2d."""
    s = int((datetime.now(timezone.utc) - t.replace(tzinfo=t.tzinfo or timezone.utc))
            .total_seconds())
    return next((f"{s // n}{u}" for u, n in (("d", 86400), ("h", 3600), ("m", 60))
                 if s >= 2 * n), f"{max(s, 0)}s")


def duration(seconds: int) -> str:
    """A remaining time as a clock shows it: 42s, 3m05s, 2h07m."""
    m, s = divmod(max(int(seconds), 0), 60)
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m" if h else f"{m}m{s:02d}s" if m else f"{s}s"


@dataclass
class Event:
    involved_object_kind: str
    involved_object_name: str
    message: str
    reason: str
    event_time: datetime


@dataclass
class LocalBackendConfig:
    """Jobs run on this machine by `jaxset run` (docs/sdk.md describes the fields)."""

    jaxset_bin: Optional[str] = None
    home: Optional[str] = None
    runtime_files: Sequence[str] = ()
    python: str = field(default_factory=lambda: sys.executable or "python3")
    cwd: Optional[str] = None
    namespace: str = "default"
    grace_period_seconds: Optional[int] = None
    restart_backoff_ms: Optional[int] = None
    gpus: Optional[int] = None


@dataclass
class LocalProcessBackendConfig(LocalBackendConfig):
    """Kubeflow's name; jaxset makes no virtual environment, so `cleanup_venv` is unused."""

    cleanup_venv: bool = True


PULL_POLICIES = ("IfNotPresent", "Always", "Never")
CONTAINER_RUNTIMES = ("docker", "podman")


@dataclass
class TrainingRuntimeSource:
    """kubeflow/sdk's runtime sources (kubeflow/trainer/backends/container/types.py): jaxset
    reads the ``file://`` and absolute-path ones (a YAML file, or a folder's ``*.yaml``)."""

    sources: List[str] = field(default_factory=lambda: ["github://kubeflow/trainer"])


@dataclass
class ContainerBackendConfig:
    """kubeflow/sdk 0.5.0's ContainerBackendConfig: each node a container in its image, run
    by `jaxset run --images` (docs/sdk.md: which fields are honoured); then jaxset's own."""

    pull_policy: str = "IfNotPresent"
    auto_remove: bool = True
    container_host: Optional[str] = None
    container_runtime: Optional[str] = None
    runtime_source: TrainingRuntimeSource = field(default_factory=TrainingRuntimeSource)
    dataset_initializer_image: str = "ghcr.io/kubeflow/trainer/dataset-initializer:latest"
    model_initializer_image: str = "ghcr.io/kubeflow/trainer/model-initializer:latest"
    initializer_timeout: int = 600
    # jaxset's, as LocalBackendConfig's; `python` is the interpreter inside the image
    jaxset_bin: Optional[str] = None
    home: Optional[str] = None
    python: str = "python3"
    namespace: str = "default"
    grace_period_seconds: Optional[int] = None
    restart_backoff_ms: Optional[int] = None
    gpus: Optional[int] = None

    def __post_init__(self) -> None:
        """Upstream's pydantic checks (container_runtime's values, the types), and a pull
        policy of upstream's three in any case (upstream takes any other string as
        IfNotPresent), a positive initializer_timeout."""
        policy = next((p for p in PULL_POLICIES if isinstance(self.pull_policy, str) and
                       p.lower() == self.pull_policy.lower()), None)
        if policy is None:
            raise ValueError(f"pull_policy must be one of {', '.join(PULL_POLICIES)}, got "
                             f"{self.pull_policy!r}")
        self.pull_policy = policy
        if self.container_runtime is not None and \
                self.container_runtime not in CONTAINER_RUNTIMES:
            raise ValueError(f"container_runtime must be 'docker', 'podman' or None, got "
                             f"{self.container_runtime!r}")
        if isinstance(self.runtime_source, Mapping):
            self.runtime_source = TrainingRuntimeSource(**self.runtime_source)
        if not isinstance(self.runtime_source, TrainingRuntimeSource) or not all(
                isinstance(s, str) for s in self.runtime_source.sources):
            raise ValueError("runtime_source must be a TrainingRuntimeSource(sources=[...]) of "
                             "strings")
        for key in ("dataset_initializer_image", "model_initializer_image"):
            if not isinstance(getattr(self, key), str) or not getattr(self, key):
                raise ValueError(f"{key} must be an image name")
        t = self.initializer_timeout
        if isinstance(t, bool) or not isinstance(t, int) or t < 1:
            raise ValueError(f"initializer_timeout must be a whole number of seconds >= 1, "
                             f"got {t!r}")


@dataclass
class KubernetesBackendConfig:
    """Jobs on the cluster kubectl would reach; a `client_configuration` is refused."""

    namespace: Optional[str] = None
    config_file: Optional[str] = None
    context: Optional[str] = None
    client_configuration: Optional[Any] = None
    request_timeout: Optional[float] = 30.0
    jaxset_bin: Optional[str] = None
