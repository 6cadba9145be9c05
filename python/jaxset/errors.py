"""Exceptions of the jaxset SDK, and the parsing of the binary's field errors."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence


@dataclass(frozen=True)
class FieldError:
    """One ``FILE: FIELD: MESSAGE`` line of the binary; `field` "" for a whole file's error."""

    file: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: " + (f"{self.field}: " if self.field else "") + self.message


class ValidationError(ValueError):
    """The manifests are invalid: each FieldError, and the binary's whole `output`."""

    def __init__(self, errors: Sequence[FieldError], output: str = ""):
        self.errors: List[FieldError] = list(errors)
        self.output = output
        lines = [str(e) for e in self.errors] or [output.strip() or "invalid input"]
        super().__init__("invalid manifest:\n  " + "\n  ".join(lines))


class BinaryNotFoundError(FileNotFoundError):
    """No jaxset executable was found where the SDK looks for one."""


class NotFoundError(RuntimeError, LookupError):
    """No runtime or job of that name."""


class JobFailedError(RuntimeError):
    """A job Failed.  `failure` is what jaxset attributed it to ({} when nothing is known): the
    first failed pod of the last attempt, as run.json's "failure" holds it (docs/sdk.md); the
    message ends with its summary line and error."""

    def __init__(self, message: str, failure: Optional[Dict[str, Any]] = None):
        self.failure: Dict[str, Any] = dict(failure or {})
        f = self.failure
        self.hostname: Optional[str] = f.get("hostname")
        self.pod: Optional[str] = f.get("pod")
        self.process_id: Optional[int] = f.get("jaxProcessId")
        self.container: Optional[str] = f.get("container")
        self.exit_code: Optional[int] = f.get("exitCode")
        self.signal: Optional[str] = f.get("signal")
        self.error: str = f.get("message") or ""
        self.log_path: Optional[str] = f.get("log")
        first = f"; first failed: {f['summary']}" if f.get("summary") else ""
        super().__init__(message + first + "".join(f"\n  {ln}" for ln in self.error.splitlines()))


class KubeConfigError(ValueError):
    """The Kubernetes configuration cannot be used; the message names file and entry."""


class ApiError(RuntimeError):
    """The API server's refusal: its Status' code, reason, message, details and causes."""

    def __init__(self, code: int, reason: str, message: str,
                 details: Optional[Dict[str, Any]] = None):
        self.code = code
        self.reason = reason
        self.message = message
        self.details: Dict[str, Any] = dict(details or {})
        self.causes: List[Dict[str, Any]] = list(self.details.get("causes") or [])
        text = f"{message} ({reason or 'HTTP'} {code})"
        if self.causes and reason == "Invalid":
            text += "".join(f"\n  {c.get('field', '')}: {c.get('message', '')}"
                            for c in self.causes)
        super().__init__(text)


class ApiNotFoundError(ApiError, NotFoundError):
    """404 NotFound: the object (named in the message) does not exist."""


class ApiConnectionError(ConnectionError):
    """The API server could not be reached (refused, unreachable, timed out, TLS failed)."""


# A field path has no spaces ("spec.replicatedJobs[0].replicas",
# "metadata.annotations[jaxset.dev/x]"); "line 3, column 1" and sentences do.
_FIELD = re.compile(r"^[A-Za-z_$][^\s]*$")
# "jaxset run: job.yaml: ..." (a subcommand's own error about a file)
_CMD_PREFIX = re.compile(r"^jaxset [a-z]+: ")


def parse_field_errors(text: str, files: Sequence[str] = (),
                       labels: Optional[Dict[str, str]] = None) -> List[FieldError]:
    """The FieldErrors of the text; `files` are matched whole (": " may be in a name),
    `labels` rename them."""
    labels = labels or {}
    out: List[FieldError] = []
    known = sorted(files, key=len, reverse=True)
    for line in text.splitlines():
        line = line.rstrip()
        if not line or line.startswith("jaxset:") or line.startswith("usage:"):
            continue
        line = _CMD_PREFIX.sub("", line)
        name = next((f for f in known if line.startswith(f + ": ")), None)
        if name is not None:
            rest = line[len(name) + 2:]
        elif ": " in line:
            name, rest = line.split(": ", 1)
        else:
            continue
        field, message = "", rest
        if ": " in rest:
            head, tail = rest.split(": ", 1)
            if _FIELD.match(head):
                field, message = head, tail
        out.append(FieldError(labels.get(name, name), field, message))
    return out
