"""jaxset: run distributed JAX training on N processes, locally or on a Kubernetes cluster, with
the Kubeflow SDKs' shape and names (docs/sdk.md): Trainer v2's TrainerClient and the Training
Operator's TrainingClient for JAXJob, both over the jaxset binary; ``jaxset.validate``,
``jaxset.run`` and ``jaxset.decode`` are plain helpers over it; ``jaxset.options`` has
kubeflow/sdk's training options for ``TrainerClient.train(options=[...])``; ``jaxset.report``
(kubeflow's ``update_trainjob_status``) reports a TrainJob's progress from its training code."""
from .commands import RunResult, decode, run, validate
from .errors import (ApiConnectionError, ApiError, ApiNotFoundError, BinaryNotFoundError,
                     FieldError, JobFailedError, KubeConfigError, NotFoundError, ValidationError)
from .options import (ActiveDeadlineSeconds, Annotations, ContainerPatch, JobSetSpecPatch,
                      JobSetTemplatePatch, JobSpecPatch, JobTemplatePatch, Labels, Name,
                      PodSpecPatch, PodTemplatePatch, ReplicatedJobPatch, RuntimePatch,
                      TrainerArgs, TrainerCommand, TrainerEnvFrom, TrainingRuntimeSpecPatch)
from .progress import report, update_trainjob_status
from .trainer_client import TrainerClient
from .training_client import TrainingClient
from .types import (ContainerBackendConfig, CustomTrainer, CustomTrainerContainer, Event,
                    KubernetesBackendConfig, LocalBackendConfig, LocalProcessBackendConfig,
                    Runtime, RuntimeTrainer, Step, TrainerStatus, TrainerType,
                    TrainingRuntimeSource, TrainJob)


def _version() -> str:
    """The repository's VERSION file from a source tree, else the installed distribution's."""
    import os
    from importlib import metadata
    try:
        with open(os.path.join(os.path.dirname(__file__), "..", "..", "VERSION"),
                  encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        try:
            return metadata.version("jaxset")
        except metadata.PackageNotFoundError:
            return "unknown"


__version__ = _version()

__all__ = [
    "TrainerClient", "TrainingClient", "CustomTrainer", "CustomTrainerContainer",
    "LocalBackendConfig", "LocalProcessBackendConfig", "KubernetesBackendConfig",
    "ContainerBackendConfig", "TrainingRuntimeSource", "Runtime",
    "RuntimeTrainer", "TrainerType", "Step", "TrainJob", "TrainerStatus", "Event", "run",
    "validate", "decode", "report", "update_trainjob_status",
    "RunResult", "ValidationError", "FieldError", "JobFailedError", "BinaryNotFoundError",
    "NotFoundError", "KubeConfigError", "ApiError", "ApiNotFoundError", "ApiConnectionError",
    # training options (kubeflow.trainer.options' names): jaxset.options
    "Name", "Labels", "Annotations", "TrainerCommand", "TrainerArgs", "TrainerEnvFrom",
    "ActiveDeadlineSeconds", "RuntimePatch", "TrainingRuntimeSpecPatch", "JobSetTemplatePatch",
    "JobSetSpecPatch", "ReplicatedJobPatch", "JobTemplatePatch", "JobSpecPatch",
    "PodTemplatePatch", "PodSpecPatch", "ContainerPatch",
]
