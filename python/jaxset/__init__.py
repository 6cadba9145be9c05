"""jaxset: run distributed JAX training on N processes, locally or on a Kubernetes cluster,
with the Kubeflow SDKs' shape.  Standard library only; locally it drives the ``jaxset``
binary, on a cluster it talks to the API server (``KubernetesBackendConfig``).

Kubeflow Trainer v2's client, in a notebook::

    from jaxset import TrainerClient, CustomTrainer, LocalBackendConfig

    def train(steps: int):
        import os
        print("process", os.environ["JAX_PROCESS_ID"], "of", os.environ["JAX_NUM_PROCESSES"])

    client = TrainerClient(backend_config=LocalBackendConfig())
    name = client.train(trainer=CustomTrainer(func=train, func_args={"steps": 10},
                                              num_nodes=4))
    client.wait_for_job_status(name)
    print("\\n".join(client.get_job_logs(name)))

The Training Operator's client for JAXJob: ``TrainingClient(backend_config=...)`` with
``create_job(job=...)``, ``wait_for_job_conditions`` ...  Plain helpers over the binary:
``jaxset.validate(...)`` and ``jaxset.run(...)``.
"""
from .commands import RunResult, decode, run, validate
from .errors import (ApiConnectionError, ApiError, ApiNotFoundError, BinaryNotFoundError,
                     FieldError, JobFailedError, KubeConfigError, NotFoundError, ValidationError)
from .trainer_client import TrainerClient
from .training_client import TrainingClient
from .types import (CustomTrainer, CustomTrainerContainer, Event, KubernetesBackendConfig,
                    LocalBackendConfig, Runtime, RuntimeTrainer, Step, TrainerType, TrainJob)



def _version() -> str:
    """The repository's VERSION file (the one place the version is written) from a source
    tree, else the installed distribution's metadata (setup.py copied VERSION there)."""
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "VERSION")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        from importlib import metadata
        try:
            return metadata.version("jaxset")
        except metadata.PackageNotFoundError:
            return "unknown"


__version__ = _version()

__all__ = [
    "TrainerClient", "TrainingClient",
    "CustomTrainer", "CustomTrainerContainer", "LocalBackendConfig", "KubernetesBackendConfig",
    "Runtime", "RuntimeTrainer", "TrainerType", "Step", "TrainJob", "Event",
    "run", "validate", "decode", "RunResult",
    "ValidationError", "FieldError", "JobFailedError", "BinaryNotFoundError", "NotFoundError",
    "KubeConfigError", "ApiError", "ApiNotFoundError", "ApiConnectionError",
]
