"""Finding and calling the jaxset binary; manifests handed to it as files."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .errors import BinaryNotFoundError, ValidationError, parse_field_errors

PathLike = Union[str, "os.PathLike[str]"]
Manifest = Union[PathLike, Mapping[str, Any]]

EXIT_INVALID = 2
BIN_ENV = "JAXSET_BIN"


def _candidates() -> List[Tuple[str, str]]:
    here = os.path.dirname(os.path.abspath(__file__))
    out = []
    if os.environ.get(BIN_ENV):
        out.append((f"${BIN_ENV}", os.environ[BIN_ENV]))
    # the binary the wheel carries (python/setup.py), of the package's own version
    out.append(("beside the package", os.path.join(here, "bin", "jaxset")))
    out.append(("PATH", shutil.which("jaxset") or ""))
    # the source tree: python/jaxset/ -> build/jaxset
    out.append(("the source tree's build", os.path.join(here, "..", "..", "build", "jaxset")))
    return out


def find_binary(explicit: Optional[PathLike] = None) -> str:
    """The jaxset executable: `explicit`, else the first of _candidates(); BinaryNotFoundError
    names every place looked at."""
    if explicit is not None:
        path = os.fspath(explicit)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.abspath(path)
        raise BinaryNotFoundError(f"jaxset binary {path!r} (given) is not an executable file")
    tried = []
    for where, path in _candidates():
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.abspath(path)
        if where.startswith("$"):
            raise BinaryNotFoundError(
                f"jaxset binary {path!r} (from {where}) is not an executable file")
        tried.append(f"{where}" + (f" ({os.path.normpath(path)})" if path else ""))
    raise BinaryNotFoundError(
        "no jaxset binary found: looked at " + ", ".join(tried) +
        f"; build it (./scripts/setup.sh) and set {BIN_ENV}, put it on PATH, or pass "
        "its path (LocalBackendConfig(jaxset_bin=...), binary=...)")


def call(binary: str, args: Sequence[str], env: Optional[Mapping[str, str]] = None,
         timeout: Optional[float] = 120) -> subprocess.CompletedProcess:
    """Runs the binary to completion, capturing its output as text."""
    return subprocess.run([binary, *args], capture_output=True, text=True, env=env,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def decode_files(binary: str, paths: Sequence[PathLike]) -> List[Dict[str, Any]]:
    """Every document of the YAML/JSON files, decoded by the binary with kubectl's rules.
    Raises ValidationError (syntax errors, missing files) naming the file."""
    files = [os.fspath(p) for p in paths]
    p = call(binary, ["decode", *files])
    if p.returncode != 0:
        raise ValidationError(parse_field_errors(p.stderr, files), p.stderr)
    docs = json.loads(p.stdout)
    return [d for d in docs if isinstance(d, dict)]


def label_of(doc: Mapping[str, Any], i: int) -> str:
    """How errors name a manifest given as a dict: "<TrainJob x1a2b3c4d5e6>"."""
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    kind, name = doc.get("kind"), meta.get("name") if meta else None
    if kind and name:
        return f"<{kind} {name}>"
    return f"<manifest {i}>"


class ManifestFiles:
    """Manifests as files for the binary: paths stay as they are, dicts are written as JSON
    files into `directory` (a new temporary directory when None), removed by close().
    `labels` maps each written file to the label errors use for it."""

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
                self.labels[path] = label_of(m, i)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        for path in self._written:
            with contextlib.suppress(OSError):
                os.unlink(path)
        self._written = []
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def __enter__(self) -> "ManifestFiles":
        return self

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
    p = call(binary, ["validate", *files.paths], env=env)
    if p.returncode == EXIT_INVALID:
        raise ValidationError(parse_field_errors(p.stderr, files.paths, files.labels),
                              _relabel(p.stderr, files.labels))
    if p.returncode != 0:
        raise RuntimeError(f"jaxset validate exited with status {p.returncode}: {p.stderr}")
    return [_relabel(line, files.labels) for line in p.stdout.splitlines()]


def _relabel(text: str, labels: Mapping[str, str]) -> str:
    for path, label in labels.items():
        text = text.replace(path, label)
    return text
