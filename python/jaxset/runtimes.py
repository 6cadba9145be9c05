"""Training runtimes read into the SDK's Runtime as Kubeflow's SDK reads them."""
from __future__ import annotations

import functools
import json
from typing import Any, Dict, List, Mapping, Optional, Tuple

from . import _binary
from ._obj import dig
from .types import Runtime, RuntimeTrainer, TrainerType

GROUP = "trainer.kubeflow.org"
API_VERSION = f"{GROUP}/v1alpha1"
CLUSTER_KIND = "ClusterTrainingRuntime"
NAMESPACED_KIND = "TrainingRuntime"
RUNTIME_KINDS = (NAMESPACED_KIND, CLUSTER_KIND)
FRAMEWORK_LABEL = "trainer.kubeflow.org/framework"
ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"
NODE = "node"
DEFAULT_RUNTIME = "jax-distributed"

GPU_LABEL = "nvidia.com/gpu"
TPU_LABEL = "google.com/tpu"
GPU_MIG_PREFIX = "nvidia.com/mig-"


@functools.lru_cache(maxsize=None)
def _builtin_json(binary: str) -> str:
    p = _binary.call(binary, ["crds", "--runtimes", "-o", "json"])
    if p.returncode != 0:
        raise RuntimeError(f"{binary} crds --runtimes: "
                           f"{p.stderr.strip() or f'exit status {p.returncode}'}")
    return p.stdout


def builtin_runtimes(binary: str) -> List[Dict[str, Any]]:
    """The training runtimes built into the binary: the files of config/runtimes, as
    ``jaxset crds --runtimes -o json`` prints them (new dicts on every call)."""
    return [cr for cr in json.loads(_builtin_json(binary)) if isinstance(cr, dict)]


def jax_distributed(binary: str) -> Dict[str, Any]:
    """Kubeflow Trainer's built-in JAX runtime (kubeflow/trainer
    manifests/base/runtimes/jax_distributed.yaml), written once in config/runtimes and read
    from the binary, which embeds it."""
    for cr in builtin_runtimes(binary):
        if cr.get("kind") == CLUSTER_KIND and dig(cr, "metadata.name") == DEFAULT_RUNTIME:
            return cr
    raise RuntimeError(f"the jaxset binary {binary} has no {CLUSTER_KIND} {DEFAULT_RUNTIME}")


def trainer_container(cr: Mapping[str, Any]) -> Optional[Dict[str, Any]]:
    """The ``node`` container of the replicated job labelled as the trainer ancestor."""
    for rj in dig(cr, "spec.template.spec.replicatedJobs", []):
        if ANCESTOR_LABEL in dig(rj, "template.metadata.labels", {}):
            for c in dig(rj, "template.spec.template.spec.containers", []):
                if c.get("name") == NODE:
                    return c
    return None


def container_devices(resources: Optional[Mapping[str, Any]]) -> Optional[Tuple[str, str]]:
    """(device, count) from a container's resource limits, as Kubeflow's SDK reads them:
    gpu, tpu, a MIG profile or cpu; None when there are no limits."""
    limits = dig(resources, "limits", {})
    mig = [(k, k.split("/", 1)[1]) for k in limits if k.startswith(GPU_MIG_PREFIX)]
    for key, device in [(GPU_LABEL, "gpu"), (TPU_LABEL, "tpu"), *mig[:1], ("cpu", "cpu")]:
        if key in limits:
            return device, str(limits[key])
    return None


def to_runtime(cr: Mapping[str, Any]) -> Runtime:
    """The SDK's Runtime for a runtime object; ValueError when it is not one."""
    name, labels = dig(cr, "metadata.name"), dig(cr, "metadata.labels", {})
    container = trainer_container(cr)
    if not name or dig(cr, "spec.mlPolicy") is None or container is None:
        raise ValueError(f"{cr.get('kind', 'runtime')} {name!r} is invalid: it needs "
                         f"metadata.name, spec.mlPolicy and a replicated job labelled "
                         f"{ANCESTOR_LABEL} with a container named {NODE!r}")
    if FRAMEWORK_LABEL not in labels:
        raise ValueError(f"runtime {name} must have the {FRAMEWORK_LABEL} label")
    trainer = RuntimeTrainer(trainer_type=TrainerType.CUSTOM_TRAINER,
                             framework=str(labels[FRAMEWORK_LABEL]),
                             image=str(container.get("image", "")))
    devices = container_devices(container.get("resources"))
    if devices:
        trainer.device, trainer.device_count = devices
    nodes = dig(cr, "spec.mlPolicy.numNodes")
    if isinstance(nodes, int) and nodes > 0:
        trainer.num_nodes = nodes
        if trainer.device_count.isdigit():
            trainer.device_count = str(int(trainer.device_count) * nodes)
    trainer.set_command(tuple(container.get("command") or ()))
    return Runtime(name=str(name), trainer=trainer)
