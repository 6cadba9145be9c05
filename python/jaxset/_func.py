"""A training function shipped as a command, as Kubeflow's SDK ships it: its source and a call
with the arguments; a function that needs anything else is refused before anything starts."""
from __future__ import annotations

import ast
import builtins
import dis
import inspect
import json
import shlex
import textwrap
import types
from typing import Any, Callable, List, Mapping, Optional, Set

_MODULE_NAMES = {"__name__", "__doc__", "__builtins__", "__spec__", "__loader__",
                 "__package__", "__annotations__", "__file__"}


def _what(func: Any) -> str:
    return getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)


def _globals_used(code: types.CodeType) -> Set[str]:
    """Global names the code (and the code nested in it) reads and does not define itself."""
    read: Set[str] = set()
    stored: Set[str] = set()
    todo = [code]
    while todo:
        c = todo.pop()
        for ins in dis.get_instructions(c):
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
                read.add(str(ins.argval))
            elif ins.opname in ("STORE_GLOBAL", "STORE_NAME"):
                stored.add(str(ins.argval))
        todo.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return read - stored


def _header_names(fn: ast.AST) -> Set[str]:
    """Names the def statement itself evaluates: parameter defaults."""
    args = fn.args  # type: ignore[attr-defined]
    exprs = [d for d in list(args.defaults) + list(args.kw_defaults) if d is not None]
    return {n.id for e in exprs for n in ast.walk(e) if isinstance(n, ast.Name)}


def check_function(func: Any) -> str:
    """The dedented source of `func`, or ValueError saying why it cannot be shipped."""
    if inspect.ismethod(func):
        raise ValueError(f"training function {_what(func)} is a bound method: its object does "
                         "not travel; use a plain function")
    if not callable(func):
        raise ValueError(f"the training function must be callable, got {type(func).__name__}")
    if not inspect.isfunction(func):
        raise ValueError(f"training function {_what(func)} is a {type(func).__name__}, not a "
                         "function defined with def: only a def's source can be shipped")
    if func.__name__ == "<lambda>":
        raise ValueError("the training function is a lambda: its source cannot be called by "
                         "name in the processes; define it with def")
    if inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func):
        raise ValueError(f"training function {_what(func)} is async: use a plain def")
    if func.__code__.co_freevars:
        names = ", ".join(func.__code__.co_freevars)
        raise ValueError(
            f"training function {_what(func)} is a closure over {names} from its enclosing "
            "function: only its source travels to the processes, not that state; pass the "
            "values in func_args (as JSON) or create them inside the function")
    try:
        src = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError) as e:
        raise ValueError(
            f"the source of training function {_what(func)} cannot be read ({e}): define it "
            "with def in a file or a notebook cell, not with exec() or at an interactive "
            "python prompt") from None
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        raise ValueError(f"the source of training function {_what(func)} does not parse on "
                         f"its own ({e.msg}, line {e.lineno})") from None
    fn = tree.body[0] if tree.body else None
    if not isinstance(fn, ast.FunctionDef) or fn.name != func.__name__:
        raise ValueError(f"the source of training function {_what(func)} is not a plain def "
                         f"of {func.__name__}")
    if fn.decorator_list:
        raise ValueError(f"training function {_what(func)} is decorated: the decorator would "
                         "run in every process without its definition; ship the undecorated "
                         "function")
    missing = sorted((_globals_used(func.__code__) | _header_names(fn))
                     - set(dir(builtins)) - _MODULE_NAMES - {func.__name__})
    if missing:
        raise ValueError(
            f"training function {_what(func)} uses {', '.join(missing)} from outside its "
            "body: only its source travels to the processes; import modules and define "
            "helpers inside the function, and pass values in func_args")
    return src


def _check_args(func: Callable[..., Any], func_args: Optional[Mapping[str, Any]]) -> str:
    args = {} if func_args is None else func_args
    if not isinstance(args, Mapping) or not all(isinstance(k, str) for k in args):
        raise ValueError("func_args must be a dict with string keys (the function is called "
                         "as func(**func_args))")
    try:
        text = json.dumps(dict(args), allow_nan=False)
    except (TypeError, ValueError) as e:
        raise ValueError(f"func_args must be JSON values (they travel as JSON): {e}") from None
    try:
        inspect.signature(func).bind(**args)
    except TypeError as e:
        raise ValueError(f"func_args do not fit {_what(func)}{inspect.signature(func)}: "
                         f"{e}") from None
    return text


def function_program(func: Callable[..., Any], func_args: Optional[Mapping[str, Any]]) -> str:
    """The Python program every process runs: the function's source, then its call."""
    src = check_function(func)
    args = _check_args(func, func_args)
    call = f"{func.__name__}()" if func_args is None else \
        f"{func.__name__}(**__import__('json').loads({args!r}))"
    # Annotations stay unevaluated: the names they mention need not exist in the process.
    return f"from __future__ import annotations\n\n{src.rstrip()}\n\n\n{call}\n"


def function_command(func: Callable[..., Any], func_args: Optional[Mapping[str, Any]],
                     python: str = "python3") -> List[str]:
    """``[python, "-u", "-c", program]`` (unbuffered: lines show as they are printed)."""
    return [python, "-u", "-c", function_program(func, func_args)]


def unexpanded(argv: List[str]) -> List[str]:
    """`argv` as a container's ``command`` must hold it to reach the process unchanged.  The
    kubelet (and jaxset's pods) expand ``$(VAR)`` in command and args and turn ``$$`` into
    ``$`` (kubernetes/kubernetes third_party/forked/golang/expansion/expand.go, Expand):
    every ``$`` is doubled."""
    return [a.replace("$", "$$") for a in argv]


def container_command(func: Callable[..., Any], func_args: Optional[Mapping[str, Any]],
                      python: str = "python3") -> List[str]:
    """function_command as a container's ``command`` holds it (see unexpanded)."""
    return unexpanded(function_command(func, func_args, python))


def trainer_command(trainer: Any, python: str) -> List[str]:
    """A CustomTrainer's container command: its function, after a pip install of
    `packages_to_install` (the first of `pip_index_urls` as the index) when there are any."""
    pkgs = trainer.packages_to_install
    if not pkgs:
        return container_command(trainer.func, trainer.func_args, python)
    if not isinstance(pkgs, (list, tuple)) or not all(isinstance(p, str) and p for p in pkgs):
        raise ValueError("packages_to_install must be a list of package names")
    urls = list(trainer.pip_index_urls or [])
    index = ["--index-url", urls[0]] if urls else []
    for u in urls[1:]:
        index += ["--extra-index-url", u]
    pip = [python, "-m", "pip", "install", "--quiet", "--no-warn-script-location",
           "--disable-pip-version-check", *index, *pkgs]
    cmd = function_command(trainer.func, trainer.func_args, python)
    script = f"{shlex.join(pip)} && exec {shlex.join(cmd)}"
    return unexpanded(["bash", "-c", script])
