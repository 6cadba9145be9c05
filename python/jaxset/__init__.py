"""jaxset: run distributed JAX training on N processes with the Kubeflow SDKs' shape.
Standard library only; drives the ``jaxset`` binary.  Plain helpers over the binary:
``jaxset.validate(...)``, ``jaxset.run(...)``, ``jaxset.decode(...)``.
"""
from .commands import RunResult, decode, run, validate
from .errors import (BackendNotImplementedError, BinaryNotFoundError, FieldError,
                     NotFoundError, ValidationError)

__version__ = "0.1.0"

__all__ = [
    "run", "validate", "decode", "RunResult",
    "ValidationError", "FieldError", "BinaryNotFoundError", "NotFoundError",
    "BackendNotImplementedError",
]
