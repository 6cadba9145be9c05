"""Every name the jaxset binary and this package use on disk, in one place.

The binary keeps each run in ``<home>/runs/<name>/<UTC time>-<pid>/`` with
``runs/<name>/latest`` pointing at the newest (``jaxset get`` and ``jaxset logs`` read it).  A
run directory holds ``jobset.json`` (the JobSet and its status), ``jobs.json`` (the child Jobs),
``pods.json`` (every pod of every restart attempt; read as core/v1 Pods by _local.pod_object), ``run.json`` (pid, state, exit status),
``events.log`` and ``logs/<pod>.log`` (``logs/<pod>.<container>.log`` for pods with several
containers).  The status files are replaced atomically, pods.json, jobs.json, jobset.json and
run.json in that order.  The SDK keeps its own record of each job it started in
``<home>/sdk/jobs/<name>/``: ``job.json`` (kind, runtime, times, pid, run directory), the
manifests it ran and the binary's own output.
"""
from __future__ import annotations

import os
import time
from typing import Optional

HOME_ENV = "JAXSET_HOME"
BIN_ENV = "JAXSET_BIN"

RUNS = "runs"
LATEST = "latest"
RUN_JSON = "run.json"
JOBSET_JSON = "jobset.json"
JOBS_JSON = "jobs.json"
PODS_JSON = "pods.json"
EVENTS_LOG = "events.log"
LOGS = "logs"

SDK_JOBS = os.path.join("sdk", "jobs")
RECORD = "job.json"
BIN_STDOUT = "jaxset.out"
BIN_STDERR = "jaxset.err"

# run.json "state" once the binary has finished.
FINAL_STATES = ("Completed", "Failed", "Interrupted", "Error")


def home(explicit: Optional[str] = None) -> str:
    """The state home as the binary resolves it: `explicit`, else $JAXSET_HOME, else
    $XDG_STATE_HOME/jaxset, else ~/.local/state/jaxset."""
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    if os.environ.get(HOME_ENV):
        return os.path.abspath(os.environ[HOME_ENV])
    if os.environ.get("XDG_STATE_HOME"):
        return os.path.join(os.environ["XDG_STATE_HOME"], "jaxset")
    return os.path.join(os.path.expanduser("~"), ".local", "state", "jaxset")


def record_dir(home_dir: str, name: str) -> str:
    """Where the SDK keeps its record of job `name`."""
    return os.path.join(home_dir, SDK_JOBS, name)


def records_root(home_dir: str) -> str:
    return os.path.join(home_dir, SDK_JOBS)


def new_run_dir(home_dir: str, name: str) -> str:
    """A new, empty run directory for `name` in the binary's layout (created)."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    base = os.path.join(home_dir, RUNS, name, f"{stamp}-{os.getpid()}")
    path, n = base, 1
    while True:
        try:
            os.makedirs(path)
            return path
        except FileExistsError:
            n += 1
            path = f"{base}.{n}"


def mark_latest(home_dir: str, name: str, run_dir: str) -> None:
    """Points runs/<name>/latest at `run_dir` (atomically, as the binary does)."""
    link = os.path.join(home_dir, RUNS, name, LATEST)
    tmp = f"{link}.{os.getpid()}"
    try:
        os.symlink(os.path.basename(run_dir), tmp)
        os.replace(tmp, link)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def forget_run(home_dir: str, name: str, run_dir: str) -> None:
    """After `run_dir` was removed: drops runs/<name>/latest when it pointed there, and
    runs/<name> when nothing else is left in it."""
    parent = os.path.join(home_dir, RUNS, name)
    link = os.path.join(parent, LATEST)
    try:
        if os.readlink(link) == os.path.basename(run_dir):
            os.unlink(link)
    except OSError:
        pass
    try:
        os.rmdir(parent)
    except OSError:
        pass


def log_file(run_dir: str, pod: str, container: Optional[str] = None) -> str:
    """logs/<pod>.log, or logs/<pod>.<container>.log for a pod with several containers."""
    if container:
        return os.path.join(run_dir, LOGS, f"{pod}.{container}.log")
    return os.path.join(run_dir, LOGS, f"{pod}.log")
