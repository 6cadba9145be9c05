"""TrainerClient: Kubeflow Trainer v2's client (``kubeflow.trainer.TrainerClient``) over jaxset.

In a notebook::

    from jaxset import TrainerClient, CustomTrainer, LocalBackendConfig

    def train(lr: float):
        import os
        rank = int(os.environ["JAX_PROCESS_ID"])
        print(f"process {rank} of {os.environ['JAX_NUM_PROCESSES']}, lr={lr}")

    client = TrainerClient(backend_config=LocalBackendConfig())
    name = client.train(runtime=client.get_runtime("jax-distributed"),
                        trainer=CustomTrainer(func=train, func_args={"lr": 0.1}, num_nodes=4))
    client.wait_for_job_status(name)                 # Complete, or RuntimeError when Failed
    for line in client.get_job_logs(name, step="node-0"):
        print(line)
    client.delete_job(name)

``train`` returns at once; the processes run detached from the notebook's kernel.

On a cluster (TrainJobs on the API server of the kubeconfig or in-cluster configuration)::

    client = TrainerClient(backend_config=KubernetesBackendConfig(namespace="team-a"))
    name = client.train(runtime="jax-distributed",
                        trainer=CustomTrainer(func=train, func_args={"lr": 0.1}, num_nodes=4))
    client.wait_for_job_status(name, status={"Running"}, timeout=900)
"""
from __future__ import annotations

from typing import Any, Iterator, List, Optional, Set, Union

from .types import (TRAINJOB_COMPLETE, CustomTrainer, CustomTrainerContainer, Event,
                    KubernetesBackendConfig, LocalBackendConfig, Runtime, TrainJob)

BackendConfig = Union[LocalBackendConfig, KubernetesBackendConfig]


class TrainerClient:
    """Creates and manages TrainJobs.

    `backend_config`: LocalBackendConfig (processes on this machine, through the jaxset
    binary) or KubernetesBackendConfig (the default, as in Kubeflow: TrainJobs on the cluster
    of the kubeconfig or in-cluster configuration; a TrainJob controller must serve them).
    Raises BinaryNotFoundError when the local backend finds no jaxset binary, ValidationError
    when a runtime file is malformed, KubeConfigError when no usable Kubernetes configuration
    is found.  On Kubernetes, a refusal of the API server raises ApiError (ApiNotFoundError,
    a NotFoundError, for a missing object) carrying its reason, code, message and causes; an
    unreachable server ApiConnectionError.
    """

    def __init__(self, backend_config: Optional[BackendConfig] = None):
        if backend_config is None:
            backend_config = KubernetesBackendConfig()
        self.backend: Any
        if isinstance(backend_config, KubernetesBackendConfig):
            from ._trainer_kube import KubeTrainerBackend
            self.backend = KubeTrainerBackend(backend_config)
        elif isinstance(backend_config, LocalBackendConfig):
            from ._trainer_local import LocalTrainerBackend
            self.backend = LocalTrainerBackend(backend_config)
        else:
            raise ValueError(f"Invalid backend config '{backend_config}'")

    def list_runtimes(self) -> List[Runtime]:
        """The runtimes: locally the built-in ``jax-distributed`` and those of the configured
        files; on Kubernetes the namespace's TrainingRuntimes and the ClusterTrainingRuntimes
        (runtimes without the ``trainer.kubeflow.org/framework`` label are skipped with a
        warning)."""
        return self.backend.list_runtimes()

    def get_runtime(self, name: str) -> Runtime:
        """One runtime (a TrainingRuntime of that name before a ClusterTrainingRuntime);
        NotFoundError (a RuntimeError) naming the known ones."""
        return self.backend.get_runtime(name=name)

    def get_runtime_packages(self, runtime: Runtime) -> None:
        """Prints the Python version and packages the runtime's processes see (runs a
        one-process job)."""
        return self.backend.get_runtime_packages(runtime=runtime)

    def train(self, runtime: Union[Runtime, str, None] = None, initializer: Any = None,
              trainer: Union[CustomTrainer, CustomTrainerContainer, None] = None,
              options: Optional[list] = None) -> str:
        """Creates a TrainJob and returns its generated name (a letter and 11 hex digits) at
        once.

        `runtime`: a Runtime, a runtime name, or None ($DEFAULT_TRAINING_RUNTIME, else
        ``jax-distributed``).  `trainer`: CustomTrainer (a function run in every process) or
        CustomTrainerContainer.  Everything is checked before anything starts: an unknown
        runtime (NotFoundError), a bad num_nodes, a function whose source cannot be shipped
        (ValueError), an invalid TrainJob (ValidationError with the field errors)."""
        return self.backend.train(runtime=runtime, initializer=initializer, trainer=trainer,
                                  options=options)

    def list_jobs(self, runtime: Union[Runtime, str, None] = None) -> List[TrainJob]:
        """Every TrainJob (of `runtime` only, when given), oldest first."""
        return self.backend.list_jobs(runtime=runtime)

    def get_job(self, name: str) -> TrainJob:
        """The TrainJob with its steps (one per process: ``node-<i>``, its pod, its phase and
        device) and status (Created, Running, Complete, Failed)."""
        return self.backend.get_job(name=name)

    def get_job_logs(self, name: str, step: str = "node-0",
                     follow: Optional[bool] = False) -> Iterator[str]:
        """The log lines of one step's process (``node-0`` is process 0).  With
        ``follow=True`` lines come as they are written, until that process ends (a job whose
        pod does not exist yet is waited for while the job lives)::

            for line in client.get_job_logs(name, follow=True):
                print(line)
        """
        return self.backend.get_job_logs(name=name, follow=follow, step=step)

    def get_job_events(self, name: str) -> List[Event]:
        """The job's events (restarts, failures, completion)."""
        return self.backend.get_job_events(name=name)

    def wait_for_job_status(self, name: str, status: Set[str] = {TRAINJOB_COMPLETE},
                            timeout: float = 600, polling_interval: float = 2) -> TrainJob:
        """Waits until the TrainJob's status is one of `status` (a subset of Created, Running,
        Complete, Failed) and returns it (on Kubernetes woken by watches of the TrainJob and
        its pods; `polling_interval` only paces the local backend).  RuntimeError when it Failed (and Failed was not
        expected), TimeoutError after `timeout` seconds, ValueError for a bad `status` or a
        polling interval longer than the timeout."""
        return self.backend.wait_for_job_status(name=name, status=status, timeout=timeout,
                                                polling_interval=polling_interval)

    def delete_job(self, name: str) -> None:
        """Deletes the TrainJob.  Locally a running job is stopped the kubelet's way (SIGTERM,
        the grace period, SIGKILL), this returns once no process is left, and its logs and
        state are removed; on Kubernetes the TrainJob is deleted (its JobSet and pods follow
        by garbage collection).  NotFoundError when there is no such job."""
        return self.backend.delete_job(name=name)
