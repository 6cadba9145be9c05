"""The container backend (kubeflow/sdk's ContainerBackendConfig): the local backend over
``jaxset run --images``, every container of a job in its image from the local containers store
(podman's), with kubeflow/sdk's per-job workspace at /workspace (docs/sdk.md)."""
from __future__ import annotations

import contextlib
import copy
import logging
import os
import shutil
import subprocess
import time
from typing import Any, Dict, List, Optional, Sequence, Union

from ._local import GOING, NAME_RE, RUN_STATE, Local
from ._obj import Obj, annotation, dig
from .runtimes import trainer_container
from .types import ContainerBackendConfig, CustomTrainer, LocalBackendConfig

logger = logging.getLogger(__name__)

TRAINJOB = "TrainJob"
# kubeflow/sdk kubeflow/trainer/constants/constants.py WORKSPACE_PATH: the job's folder on this
# machine, mounted read-write in every container (kubeflow/trainer/backends/container/
# backend.py, ContainerBackend.train), and the working directory of a training function's.
WORKSPACE = "/workspace"
WORKSPACE_VOLUME = "jaxset-workspace"
DEFAULT_SOURCE = "github://kubeflow/trainer"  # upstream's default: its built-in runtimes
# The initializer replicated jobs (and containers) of Trainer's runtimes and the config's
# fields naming their images.
INITIALIZER_IMAGES = {"dataset-initializer": "dataset_initializer_image",
                      "model-initializer": "model_initializer_image"}
# The states of a run past its start: its images are ready and its first pods started.
STARTED = tuple(s for s in GOING if s != "Starting") + ("Completed", "Failed")
INSTALL_PODMAN = ("apt-get install podman (Debian, Ubuntu) or dnf install podman (Fedora, "
                  "RHEL)")


def state_home(home: Optional[str]) -> str:
    """jaxset's state home as the binary finds it: `home`, else $JAXSET_HOME, else
    $XDG_STATE_HOME/jaxset, else ~/.local/state/jaxset."""
    given = home or os.environ.get("JAXSET_HOME")
    if given:
        return os.path.abspath(os.path.expanduser(given))
    xdg = os.environ.get("XDG_STATE_HOME")
    base = xdg if xdg else os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(os.path.abspath(base), "jaxset")


def runtime_files(sources: Sequence[str]) -> List[str]:
    """The runtime files of `sources`, as upstream's runtime loader reads them
    (kubeflow/trainer/backends/container/runtime_loader.py): a ``file://`` or absolute path,
    a YAML file or a folder's ``*.yaml``; what cannot be read is skipped with a warning.  The
    built-in runtimes (jax-distributed) come after them, as upstream's defaults do."""
    files: List[str] = []
    for src in sources:
        path = src[len("file://"):] if src.startswith("file://") else src
        if src == DEFAULT_SOURCE:
            continue  # upstream's own runtimes: jaxset's built-in ones stand for them
        if not path.startswith("/"):
            logger.warning("runtime source %s is skipped: jaxset reads runtimes from files "
                           "only (file:///path or an absolute path), nothing is downloaded", src)
        elif os.path.isdir(path):
            files += sorted(os.path.join(path, f) for f in os.listdir(path)
                            if f.endswith(".yaml") and f != "kustomization.yaml" and
                            os.path.isfile(os.path.join(path, f)))
        elif os.path.isfile(path):
            files.append(path)
        else:
            logger.warning("runtime source %s is skipped: the path does not exist", src)
    return files


def check_engine(cfg: ContainerBackendConfig) -> None:
    """podman must be there: jaxset runs images from its local containers store.  "docker"
    is taken when podman is installed too (its store, not docker's, holds the images)."""
    podman = shutil.which("podman")
    if cfg.container_runtime == "docker":
        if not podman:
            raise RuntimeError(
                "ContainerBackendConfig(container_runtime='docker') is not supported: jaxset "
                "runs each container in its image from podman's local containers store "
                f"(jaxset run --images), and podman is not installed: {INSTALL_PODMAN}; move "
                "docker's images over with `docker save IMAGE | podman load`")
        logger.warning("container_runtime='docker': jaxset runs the images of podman's local "
                       "containers store, not docker's (`docker save IMAGE | podman load` "
                       "moves an image over)")
    elif not podman:
        raise RuntimeError("ContainerBackendConfig: podman is not installed, and jaxset runs "
                           "each container in its image from podman's local containers store "
                           f"(jaxset run --images): {INSTALL_PODMAN}, or use "
                           "LocalBackendConfig to run the processes on this machine")
    if cfg.container_host:
        logger.warning("container_host %s is ignored: jaxset runs the containers on this "
                       "machine, from its local containers store", cfg.container_host)


def _pod_specs(cr: Obj) -> List[tuple]:
    """(replicated job, its Job spec, its pod spec) of each replicated job of a runtime."""
    out = []
    for rj in dig(cr, "spec.template.spec.replicatedJobs", []):
        job = dig(rj, "template.spec")
        pod = dig(job or {}, "template.spec")
        if isinstance(job, dict) and isinstance(pod, dict):
            out.append((rj, job, pod))
    return out


def _mount_workspace(pod: Dict[str, Any], path: str) -> None:
    """The workspace volume at /workspace in each container of the pod that mounts nothing
    there already (a runtime's own initializer volume stays)."""
    volumes = pod.setdefault("volumes", [])
    if any(v.get("name") == WORKSPACE_VOLUME for v in volumes):
        return
    mounted = False
    for c in [*pod.get("initContainers", []), *pod.get("containers", [])]:
        mounts = c.setdefault("volumeMounts", [])
        if not any(m.get("mountPath", "").rstrip("/") == WORKSPACE for m in mounts):
            mounts.append({"name": WORKSPACE_VOLUME, "mountPath": WORKSPACE})
            mounted = True
    if mounted:
        volumes.append({"name": WORKSPACE_VOLUME,
                        "hostPath": {"path": path, "type": "DirectoryOrCreate"}})


class Containers(Local):
    """The local backend with every container in its image."""
    display = "ContainerBackend (jaxset's ContainerBackendConfig)"
    images = True

    def __init__(self, cfg: ContainerBackendConfig, namespace: Optional[str] = None):
        check_engine(cfg)
        self.container_cfg = cfg
        local = LocalBackendConfig(
            jaxset_bin=cfg.jaxset_bin, home=cfg.home, python=cfg.python,
            runtime_files=runtime_files(cfg.runtime_source.sources), namespace=cfg.namespace,
            grace_period_seconds=cfg.grace_period_seconds,
            restart_backoff_ms=cfg.restart_backoff_ms, gpus=cfg.gpus)
        super().__init__(local, namespace)

    def _env(self) -> Dict[str, str]:
        """JAXSET_IMAGES=1: `jaxset validate` checks what `run --images` would refuse."""
        return dict(super()._env(), JAXSET_IMAGES="1")

    def _run_flags(self) -> List[str]:
        return ["--images"]

    def workspace(self, name: str, ns: Optional[str] = None) -> str:
        """The job's folder on this machine, its containers' /workspace (kubeflow/sdk's
        ~/.kubeflow/trainer/containers/<job>, here under jaxset's state home)."""
        return os.path.join(state_home(self.cfg.home), "containers", ns or self.namespace,
                            name)

    def job_runtime(self, cr: Obj, name: str, trainer: Any) -> Obj:
        """The runtime with the config applied: every container's imagePullPolicy the
        config's pull_policy; the workspace at /workspace (a training function's working
        directory when the runtime's node container names none); the initializers' images
        when the config names others than upstream's defaults, and their Jobs'
        activeDeadlineSeconds the initializer_timeout."""
        cfg, defaults = self.container_cfg, ContainerBackendConfig.__dataclass_fields__
        cr = copy.deepcopy(cr)
        for rj, job, pod in _pod_specs(cr):
            key = INITIALIZER_IMAGES.get(str(rj.get("name")))
            if key:
                job["activeDeadlineSeconds"] = cfg.initializer_timeout
                image = getattr(cfg, key)
                for c in pod.get("containers", []):
                    if c.get("name") == rj.get("name") and image != defaults[key].default:
                        c["image"] = image
            for c in [*pod.get("initContainers", []), *pod.get("containers", [])]:
                c["imagePullPolicy"] = cfg.pull_policy
            _mount_workspace(pod, self.workspace(name))
        node = trainer_container(cr)
        if isinstance(trainer, CustomTrainer) and node is not None and \
                not node.get("workingDir"):
            node["workingDir"] = WORKSPACE
        return cr

    def _started(self, name: str, kind: str, proc: subprocess.Popen, err: Any) -> None:
        """Once the run's images are ready and its first pods started (as upstream's train
        returns once the images are pulled and the containers made); RuntimeError with
        jaxset's reason when the run refused to start (an image missing, no root...)."""
        try:
            super()._started(name, kind, proc, err)
        except RuntimeError:
            if proc.returncode != 2:
                raise  # refused before anything was written: reported below, as jaxset said
        while proc.poll() is None and \
                annotation(self.jobset(name) or {}, RUN_STATE) not in STARTED:
            time.sleep(0.05)
        if proc.returncode is None or proc.returncode != 2:
            return  # running, or already ended Completed (0) or Failed (1)
        err.seek(0)
        text = err.read().decode("utf-8", "replace").strip()
        at = text.rfind("jaxset run: ")  # its last message, "jaxset run: FILE: WHY"
        why = text[at:].split(": ", 2)[-1] if at >= 0 else text or "exit status 2"
        raise RuntimeError(f"{kind} {name} did not start: {' '.join(why.split())}")

    def start(self, name: str, kind: str, docs: Sequence[Union[Obj, str]],
              beside: Optional[str] = None) -> None:
        """Starts the job, its workspace made first (removed again when it does not start)."""
        ws = self.workspace(name) if kind == TRAINJOB and isinstance(name, str) and \
            NAME_RE.match(name) else None
        made = bool(ws) and not os.path.exists(ws)
        if made:
            os.makedirs(ws)
            os.chmod(ws, 0o777)  # for the image's user, whoever it is
        try:
            super().start(name, kind, docs, beside)
        except BaseException:
            if made:
                shutil.rmtree(ws, ignore_errors=True)
            raise

    def delete(self, kind: str, name: str, ns: Optional[str] = None,
               cascade: Optional[str] = None) -> None:
        """Stops and removes the job; its workspace too when auto_remove is set."""
        super().delete(kind, name, ns, cascade)
        if kind == TRAINJOB and self.container_cfg.auto_remove:
            with contextlib.suppress(OSError):
                shutil.rmtree(self.workspace(name, ns or self.namespace))
