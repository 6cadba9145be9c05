"""The SDK's types, as kubeflow/sdk's kubeflow/trainer/types/types.py, and the backends'."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

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
class TrainJob:
    name: str
    runtime: Runtime
    steps: List[Step]
    num_nodes: int
    creation_timestamp: datetime
    status: str = UNKNOWN

    def __repr__(self) -> str:
        return (f"<TrainJob {self.name}: {self.status}, {self.num_nodes} nodes, age "
                f"{age(self.creation_timestamp)}, runtime {self.runtime.name}>")


def age(t: datetime) -> str:
    """How long ago `t` was, as kubectl shows an age: 45s, 7m, 3h, 2d."""
    s = int((datetime.now(timezone.utc) - t.replace(tzinfo=t.tzinfo or timezone.utc))
            .total_seconds())
    return next((f"{s // n}{u}" for u, n in (("d", 86400), ("h", 3600), ("m", 60))
                 if s >= 2 * n), f"{max(s, 0)}s")


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


@dataclass
class KubernetesBackendConfig:
    """Jobs on the cluster kubectl would reach; a `client_configuration` is refused."""

    namespace: Optional[str] = None
    config_file: Optional[str] = None
    context: Optional[str] = None
    client_configuration: Optional[Any] = None
    request_timeout: Optional[float] = 30.0
    jaxset_bin: Optional[str] = None
