"""Training runtimes: the built-in ``jax-distributed`` ClusterTrainingRuntime and runtimes read
from files, turned into the SDK's Runtime as Kubeflow's SDK reads them from a cluster."""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Tuple

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


def jax_distributed() -> Dict[str, Any]:
    """Kubeflow Trainer's built-in JAX runtime (kubeflow/trainer
    manifests/base/runtimes/jax_distributed.yaml): one replicated job ``node`` whose
    container ``node`` runs the trainer; one node unless the TrainJob says otherwise.  The
    JAX plugin's wiring (coordinator, process count and id) is added by jaxset."""
    return {
        "apiVersion": API_VERSION,
        "kind": CLUSTER_KIND,
        "metadata": {"name": DEFAULT_RUNTIME, "labels": {FRAMEWORK_LABEL: "jax"}},
        "spec": {
            "mlPolicy": {"numNodes": 1, "jax": {}},
            "template": {"spec": {"replicatedJobs": [{
                "name": NODE,
                "template": {
                    "metadata": {"labels": {ANCESTOR_LABEL: "trainer"}},
                    "spec": {"template": {"spec": {"containers": [
                        {"name": NODE, "image": "nvcr.io/nvidia/jax:25.10-py3"},
                    ]}}},
                },
            }]}},
        },
    }


def trainer_container(cr: Mapping[str, Any]) -> Optional[Dict[str, Any]]:
    """The ``node`` container of the replicated job labelled as the trainer ancestor."""
    rjobs = (((cr.get("spec") or {}).get("template") or {}).get("spec") or {}).get(
        "replicatedJobs") or []
    for rj in rjobs:
        tmpl = rj.get("template") or {}
        labels = (tmpl.get("metadata") or {}).get("labels") or {}
        if ANCESTOR_LABEL not in labels:
            continue
        pod = ((tmpl.get("spec") or {}).get("template") or {}).get("spec") or {}
        for c in pod.get("containers") or []:
            if c.get("name") == NODE:
                return c
    return None


def container_devices(resources: Optional[Mapping[str, Any]]) -> Optional[Tuple[str, str]]:
    """(device, count) from a container's resource limits, as Kubeflow's SDK reads them:
    gpu, tpu, a MIG profile or cpu; None when there are no limits."""
    limits = (resources or {}).get("limits") or {}
    if not limits:
        return None
    if GPU_LABEL in limits:
        return "gpu", str(limits[GPU_LABEL])
    if TPU_LABEL in limits:
        return "tpu", str(limits[TPU_LABEL])
    mig = [k for k in limits if k.startswith(GPU_MIG_PREFIX)]
    if mig:
        return mig[0].split("/", 1)[1], str(limits[mig[0]])
    if "cpu" in limits:
        return "cpu", str(limits["cpu"])
    return None


def to_runtime(cr: Mapping[str, Any]) -> Runtime:
    """The SDK's Runtime for a runtime object; ValueError when it is not one."""
    meta = cr.get("metadata") or {}
    name = meta.get("name")
    spec = cr.get("spec") or {}
    kind = cr.get("kind", "runtime")
    if not name or "mlPolicy" not in spec or trainer_container(cr) is None:
        raise ValueError(f"{kind} {name!r} is invalid: it needs metadata.name, spec.mlPolicy "
                         f"and a replicated job labelled {ANCESTOR_LABEL} with a container "
                         f"named {NODE!r}")
    labels = meta.get("labels") or {}
    if FRAMEWORK_LABEL not in labels:
        raise ValueError(f"runtime {name} must have the {FRAMEWORK_LABEL} label")
    container = trainer_container(cr) or {}
    policy = spec.get("mlPolicy") or {}
    trainer = RuntimeTrainer(trainer_type=TrainerType.CUSTOM_TRAINER,
                             framework=str(labels[FRAMEWORK_LABEL]),
                             image=str(container.get("image", "")))
    devices = container_devices(container.get("resources"))
    if devices:
        trainer.device, trainer.device_count = devices
    nodes = policy.get("numNodes")
    if isinstance(nodes, int) and nodes > 0:
        trainer.num_nodes = nodes
        if trainer.device_count.isdigit():
            trainer.device_count = str(int(trainer.device_count) * nodes)
    trainer.set_command(tuple(container.get("command") or ()))
    return Runtime(name=str(name), trainer=trainer)
