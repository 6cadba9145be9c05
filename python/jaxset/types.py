"""The SDK's data types, shaped as Kubeflow Trainer v2's Python SDK shapes them
(``kubeflow.trainer.types``), plus the backend configurations.

    from jaxset import CustomTrainer, LocalBackendConfig, TrainerClient

    def train(lr: float = 0.1):
        import os
        print("process", os.environ["JAX_PROCESS_ID"], "of", os.environ["JAX_NUM_PROCESSES"])

    client = TrainerClient(backend_config=LocalBackendConfig())
    name = client.train(trainer=CustomTrainer(func=train, func_args={"lr": 0.05}, num_nodes=4))
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

UNKNOWN = "Unknown"

# TrainJob statuses the SDK derives (Kubeflow Trainer SDK's constants).
TRAINJOB_CREATED = "Created"
TRAINJOB_RUNNING = "Running"
TRAINJOB_COMPLETE = "Complete"
TRAINJOB_FAILED = "Failed"


def _default_pip_index_urls() -> List[str]:
    return os.environ.get("DEFAULT_PIP_INDEX_URLS", "https://pypi.org/simple").split(",")


@dataclass
class CustomTrainer:
    """A self-contained training function run in every process.

    Its source is shipped as the command (``python3 -u -c <source + call>``), so it must be
    a plain ``def`` whose source can be read (not a lambda, not a closure over variables of an
    enclosing function, not using module globals): put imports and helpers inside it.  It is
    called as ``func(**func_args)``; `func_args` travel as JSON.  Every process gets the JAX
    variables (``JAX_COORDINATOR_ADDRESS``, ``JAX_NUM_PROCESSES``, ``JAX_PROCESS_ID``)::

        def train(steps: int):
            import jax
            jax.distributed.initialize()
            ...

        CustomTrainer(func=train, func_args={"steps": 100}, num_nodes=4,
                      resources_per_node={"cpu": 1}, env={"XLA_FLAGS": "..."})

    `packages_to_install` / `pip_index_urls`: on Kubernetes each node runs ``python3 -m pip
    install`` of them (the first URL as the index, the others as extra indexes) before the
    function; the local backend refuses packages (install them in the interpreter the
    processes use).
    """

    func: Callable[..., Any]
    func_args: Optional[Dict[str, Any]] = None
    packages_to_install: Optional[List[str]] = None
    pip_index_urls: List[str] = field(default_factory=_default_pip_index_urls)
    num_nodes: Optional[int] = None
    resources_per_node: Optional[Dict[str, Any]] = None
    env: Optional[Dict[str, str]] = None


@dataclass
class CustomTrainerContainer:
    """A training container: the runtime's image and command.  Locally images mean nothing,
    so the runtime's ``node`` container must carry a command."""

    image: str
    num_nodes: Optional[int] = None
    resources_per_node: Optional[Dict[str, Any]] = None
    env: Optional[Dict[str, str]] = None


class TrainerType(Enum):
    CUSTOM_TRAINER = "CustomTrainer"
    BUILTIN_TRAINER = "BuiltinTrainer"


@dataclass
class RuntimeTrainer:
    """The trainer a runtime describes: framework label, image, default node count, device."""

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
    """A TrainingRuntime or ClusterTrainingRuntime."""

    name: str
    trainer: RuntimeTrainer
    pretrained_model: Optional[str] = None


@dataclass
class Step:
    """One process of a TrainJob: ``node-<i>`` (or an initializer), its pod and the pod's
    phase (Pending, Running, Succeeded, Failed)."""

    name: str
    status: Optional[str]
    pod_name: str
    device: str = UNKNOWN
    device_count: str = UNKNOWN


@dataclass
class TrainJob:
    """A TrainJob: status is Created, Running (every node's process is running or done),
    Complete or Failed."""

    name: str
    runtime: Runtime
    steps: List[Step]
    num_nodes: int
    creation_timestamp: datetime
    status: str = UNKNOWN


@dataclass
class Event:
    """An event about a job (Kubernetes' Event, reduced to what the SDK shows)."""

    involved_object_kind: str
    involved_object_name: str
    message: str
    reason: str
    event_time: datetime


@dataclass
class LocalBackendConfig:
    """Runs jobs on this machine through the jaxset binary.

    - `jaxset_bin`: the binary; default $JAXSET_BIN, ``bin/jaxset`` beside the package (the
      wheel's own), ``jaxset`` on PATH, ``build/jaxset`` of the source tree.
    - `home`: the state home ($JAXSET_HOME, else $XDG_STATE_HOME/jaxset, else
      ~/.local/state/jaxset); runs are kept there as ``jaxset run`` keeps them, so
      ``jaxset get`` and ``jaxset logs NAME`` see them.
    - `runtime_files`: TrainingRuntime / ClusterTrainingRuntime YAML or JSON files, added to
      the built-in ``jax-distributed`` runtime (a runtime of the same name replaces it).
    - `python`: the interpreter CustomTrainer functions run with (default ``python3`` from
      PATH; ``sys.executable`` uses the notebook's own, with its packages).
    - `cwd`: the processes' working directory (default: the caller's).
    - `namespace`: the namespace jobs are created in (``default``).
    - `grace_period_seconds`, `restart_backoff_ms`, `gpus`: ``jaxset run``'s ``--grace``,
      ``--restart-backoff``, ``--gpus``.
    """

    jaxset_bin: Optional[str] = None
    home: Optional[str] = None
    runtime_files: Sequence[str] = ()
    python: str = "python3"
    cwd: Optional[str] = None
    namespace: str = "default"
    grace_period_seconds: Optional[int] = None
    restart_backoff_ms: Optional[int] = None
    gpus: Optional[int] = None


@dataclass
class KubernetesBackendConfig:
    """Runs jobs on a Kubernetes cluster (Kubeflow's default backend), reached as kubectl
    reaches it::

        client = TrainerClient(backend_config=KubernetesBackendConfig(context="prod",
                                                                      namespace="team-a"))

    Every call runs the jaxset binary's cluster verbs (``get -o json``, ``get -w``,
    ``submit``, ``logs``, ``delete``), which reach the cluster as kubectl does:

    - `config_file`: a kubeconfig file (``--kubeconfig``: only that one; never in-cluster).
      Default: $KUBECONFIG (several files merged), else ~/.kube/config, else the in-cluster
      configuration.
    - `context`: the kubeconfig context (``--context``; default: its current-context).
    - `namespace`: where jobs are created and looked for (``-n``); default the context's
      namespace, in a cluster the pod's, else ``default``.
    - `client_configuration`: accepted for Kubeflow compatibility; a value is refused
      (ValueError).
    - `request_timeout`: seconds for each request (``--request-timeout``, 30); an unreachable
      server raises ApiConnectionError within it.
    - `jaxset_bin`: the binary, found as LocalBackendConfig finds it.

    Credentials are the binary's: bearer tokens and token files, client certificates, exec
    plugins (client.authentication.k8s.io v1 and v1beta1), basic auth.
    """

    namespace: Optional[str] = None
    config_file: Optional[str] = None
    context: Optional[str] = None
    client_configuration: Optional[Any] = None
    request_timeout: Optional[float] = 30.0
    jaxset_bin: Optional[str] = None
