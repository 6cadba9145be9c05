"""Plain helpers over the binary: validate manifests, run a job to its end, decode files.  A
manifest is a path (YAML or JSON, several documents allowed) or a dict."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from typing import IO, Any, List, Mapping, Optional

from . import _binary, errors
from ._binary import Manifest, PathLike



@dataclass
class RunResult:
    """How a `jaxset run` ended: exit status 0 Completed, 1 Failed, 130/143 Interrupted."""

    exit_status: int
    run_dir: Optional[str]
    stderr: str

    @property
    def state(self) -> str:
        return {0: "Completed", 1: "Failed"}.get(self.exit_status, "Interrupted")

    @property
    def succeeded(self) -> bool:
        return self.exit_status == 0


def validate(*manifests: Manifest, binary: Optional[PathLike] = None) -> List[str]:
    """``jaxset validate``: one summary line per job, or ValidationError with every field
    error."""
    if not manifests:
        raise ValueError("validate: no manifest given")
    bin_path = _binary.find_binary(binary)
    with _binary.ManifestFiles(manifests) as files:
        return _binary.validate_files(bin_path, files)


def _pump(src: IO[str], dst: Optional[IO[str]], keep: Optional[List[str]]) -> None:
    for line in src:
        if keep is not None:
            keep.append(line)
        if dst is not None and not line.startswith('{"kind":"Run"'):  # --errors=json's
            dst.write(line)
            dst.flush()


def run(*manifests: Manifest, run_dir: Optional[PathLike] = None, quiet: bool = False,
        pod_filter: Optional[str] = None, grace_period_seconds: Optional[int] = None,
        restart_backoff_ms: Optional[int] = None, gpus: Optional[int] = None,
        binary: Optional[PathLike] = None, home: Optional[PathLike] = None,
        cwd: Optional[PathLike] = None, env: Optional[Mapping[str, str]] = None,
        echo: bool = True) -> RunResult:
    """``jaxset run`` to its end, its output printed to sys.stdout and sys.stderr as it comes
    (nothing with ``quiet`` or ``echo=False``: jaxset's lines are in RunResult.stderr anyway).
    KeyboardInterrupt stops the job the kubelet's way and re-raises once it is gone."""
    if not manifests:
        raise ValueError("run: no manifest given")
    bin_path = _binary.find_binary(binary)
    args = ["run"]
    if run_dir is not None:
        args += ["--run-dir", os.fspath(run_dir)]
    if quiet:
        args.append("-q")
    if pod_filter:
        args += ["--filter", pod_filter]
    args += [*_binary.run_options(grace_period_seconds, restart_backoff_ms, gpus), "--no-color",
             "--errors=json"]
    echo = echo and not quiet
    penv = dict(os.environ if env is None else env)
    if home is not None:
        penv["JAXSET_HOME"] = os.path.abspath(os.fspath(home))
    with _binary.ManifestFiles(manifests) as files:
        proc = subprocess.Popen([bin_path, *args, *files.paths], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                                errors="replace", cwd=cwd, env=penv)
        err_lines: List[str] = []
        pumps = [threading.Thread(target=_pump, args=(src, dst if echo else None, keep),
                                  daemon=True) for src, dst, keep in
                 ((proc.stdout, sys.stdout, None), (proc.stderr, sys.stderr, err_lines))]
        for t in pumps:
            t.start()
        try:
            status = proc.wait()
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGINT)
            proc.wait()
            raise
        finally:
            for t in pumps:
                t.join()
        stderr = "".join(err_lines)
        if status == _binary.EXIT_INVALID:
            raise files.invalid(stderr, bin_path, penv, cwd)
    said = next((o.get("runDir") for o in errors.json_lines(stderr)[0]
                 if o.get("kind") == "Run"), None)
    rdir = said or (os.fspath(run_dir) if run_dir is not None else None)
    text = "".join(ln for ln in err_lines if not ln.startswith('{"kind":"Run"'))
    return RunResult(exit_status=status, run_dir=rdir, stderr=text)


def decode(*paths: PathLike, binary: Optional[PathLike] = None) -> List[Any]:
    """Every document of YAML/JSON files, decoded by the binary with kubectl's rules."""
    return list(_binary.decode_files(_binary.find_binary(binary), paths))
