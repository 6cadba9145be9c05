"""Finding and calling the jaxset binary; manifests handed to it as files."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from . import errors
from ._obj import dig
from .errors import BinaryNotFoundError, FieldError, ValidationError

PathLike = Union[str, "os.PathLike[str]"]
Manifest = Union[PathLike, Mapping[str, Any]]

EXIT_INVALID = 2
BIN_ENV = "JAXSET_BIN"


def find_binary(explicit: Optional[PathLike] = None) -> str:
    """The jaxset executable: `explicit`, else $JAXSET_BIN, else ``bin/jaxset`` beside the
    package (the wheel's, python/setup.py), else ``jaxset`` on PATH, else the source tree's
    ``build/jaxset``.  BinaryNotFoundError names every place looked at."""
    given = explicit if explicit is not None else os.environ.get(BIN_ENV)
    if given:
        path = os.fspath(given)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.abspath(path)
        src = "given" if explicit is not None else f"from ${BIN_ENV}"
        raise BinaryNotFoundError(f"jaxset binary {path!r} ({src}) is not an executable file")
    here = os.path.dirname(os.path.abspath(__file__))
    places = {"beside the package": os.path.join(here, "bin", "jaxset"),
              "PATH": shutil.which("jaxset") or "",
              "the source tree's build": os.path.join(here, "..", "..", "build", "jaxset")}
    for path in places.values():
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.abspath(path)
    tried = ", ".join(f"{k} ({os.path.normpath(v)})" if v else k for k, v in places.items())
    raise BinaryNotFoundError(
        f"no jaxset binary found: looked at {tried}; build it (./scripts/setup.sh) and set "
        f"{BIN_ENV}, put it on PATH, or pass its path (LocalBackendConfig(jaxset_bin=...), "
        "binary=...)")


def call(binary: str, args: Sequence[str], env: Optional[Mapping[str, str]] = None,
         timeout: Optional[float] = 120, cwd: Optional[PathLike] = None
         ) -> subprocess.CompletedProcess:
    """Runs the binary to completion, capturing its output as text."""
    return subprocess.run([binary, *args], capture_output=True, text=True, env=env,
                          timeout=timeout, stdin=subprocess.DEVNULL, cwd=cwd)


def field_errors(binary: str, paths: Sequence[str], labels: Optional[Mapping[str, str]] = None,
                 env: Optional[Mapping[str, str]] = None, cluster: bool = False,
                 cwd: Optional[PathLike] = None) -> List[FieldError]:
    """The errors ``jaxset validate --errors=json`` reports for the files ([] when they are
    valid): what another command that refused them (exit status 2) found, told by the
    binary's machine contract rather than read from that command's text."""
    args = ["validate", "--errors=json", *(["--cluster"] if cluster else []), *paths]
    return errors.field_errors(call(binary, args, env=env, cwd=cwd).stderr, labels)


def decode_files(binary: str, paths: Sequence[PathLike]) -> List[Dict[str, Any]]:
    """Every document of the files, decoded by the binary (ValidationError naming a file)."""
    files = [os.fspath(p) for p in paths]
    p = call(binary, ["decode", *files])
    if p.returncode != 0:
        raise ValidationError(field_errors(binary, files), p.stderr)
    docs = json.loads(p.stdout)
    return [d for d in docs if isinstance(d, dict)]


class ManifestFiles(contextlib.AbstractContextManager):
    """Manifests as files: paths as they are, dicts written into `directory` (else a new
    temporary one) until close(); `labels` names them in errors ("<TrainJob x1a2b3c4d5e6>")."""

    def __init__(self, manifests: Sequence[Manifest], directory: Optional[str] = None):
        self._tmp = None if directory else tempfile.mkdtemp(prefix="jaxset-")
        self._written: List[str] = []
        self.paths: List[str] = []
        self.labels: Dict[str, str] = {}
        try:
            for i, m in enumerate(manifests):
                if isinstance(m, (str, os.PathLike)):
                    self.paths.append(os.fspath(m))
                    continue
                if not isinstance(m, Mapping):
                    raise TypeError(f"a manifest is a path or a dict, not {type(m).__name__}")
                fd, path = tempfile.mkstemp(prefix=".jaxset-", suffix=".json",
                                            dir=directory or self._tmp)
                self._written.append(path)
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump(m, f, indent=1)
                self.paths.append(path)
                kind, name = m.get("kind"), dig(m, "metadata.name")
                self.labels[path] = f"<{kind} {name}>" if kind and name else f"<manifest {i}>"
        except BaseException:
            self.close()
            raise

    def invalid(self, stderr: str, binary: Optional[str] = None,
                env: Optional[Mapping[str, str]] = None,
                cwd: Optional[PathLike] = None) -> ValidationError:
        """The binary's exit status 2 as ValidationError, naming dicts by their labels: the
        errors of `stderr` when it is ``validate --errors=json``'s, else (another command's,
        `binary` given) those ``validate --errors=json`` reports for the files (field_errors);
        its text as the output."""
        errs = errors.field_errors(stderr, self.labels)
        if not errs and binary:
            errs = field_errors(binary, self.paths, self.labels, env=env, cwd=cwd)
        return ValidationError(errs, _relabel(errors.json_lines(stderr)[1], self.labels))

    def close(self) -> None:
        for path in self._written:
            with contextlib.suppress(OSError):
                os.unlink(path)
        self._written = []
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def __exit__(self, *exc: object) -> None:
        self.close()


def run_options(grace: Optional[int], backoff: Optional[int], gpus: Optional[int]) -> List[str]:
    """`jaxset run`'s --grace, --restart-backoff and --gpus for the values given."""
    out: List[str] = []
    for opt, val in (("--grace", grace), ("--restart-backoff", backoff), ("--gpus", gpus)):
        if val is not None:
            out += [opt, str(int(val))]
    return out


def validate_files(binary: str, files: ManifestFiles,
                   env: Optional[Mapping[str, str]] = None) -> List[str]:
    """`jaxset validate`: the summary lines, or ValidationError with every field error."""
    p = call(binary, ["validate", "--errors=json", *files.paths], env=env)
    if p.returncode == EXIT_INVALID:
        raise files.invalid(p.stderr)
    if p.returncode != 0:
        raise RuntimeError(f"jaxset validate exited with status {p.returncode}: {p.stderr}")
    return [_relabel(line, files.labels) for line in p.stdout.splitlines()]


def _relabel(text: str, labels: Mapping[str, str]) -> str:
    for path, label in labels.items():
        text = text.replace(path, label)
    return text
