"""Exceptions of the jaxset SDK, and the reading of the binary's errors for programs: the lines
of JSON its ``--errors=json`` adds to stderr (docs/cli.md, "Errors for programs"), never its
text for people."""
from __future__ import annotations

import json
from dataclasses import dataclass, field as _field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple


@dataclass(frozen=True)
class FieldError:
    """One error of ``jaxset validate --errors=json``: the file (the job's label for a dict),
    the field's path ("" for a whole file's error, or what `jaxset run` would refuse) and the
    message after it; `type` ("Invalid value"...), `value` and `detail` when it has them."""

    file: str
    field: str
    message: str
    type: Optional[str] = _field(default=None, compare=False)
    value: Optional[str] = _field(default=None, compare=False)
    detail: Optional[str] = _field(default=None, compare=False)

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


def json_lines(stderr: str) -> Tuple[List[Dict[str, Any]], str]:
    """The objects of stderr's lines of JSON (--errors=json), and the text of the others."""
    objs: List[Dict[str, Any]] = []
    text: List[str] = []
    for line in stderr.splitlines():
        try:
            obj = json.loads(line) if line.startswith("{") else None
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            objs.append(obj)
        else:
            text.append(line)
    return objs, "\n".join(text)


def field_errors(stderr: str, labels: Optional[Mapping[str, str]] = None) -> List[FieldError]:
    """The FieldErrors of ``jaxset validate --errors=json``'s stderr; `labels` rename files."""
    labels = labels or {}
    out: List[FieldError] = []
    for e in json_lines(stderr)[0]:
        if "field" in e and "message" in e and e.get("kind") != "Status":
            name = str(e.get("file") or "")
            out.append(FieldError(labels.get(name, name), str(e["field"] or ""),
                                  str(e["message"]), e.get("type"), e.get("value"),
                                  e.get("detail")))
    return out
