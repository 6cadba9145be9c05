"""Output in a Jupyter notebook: one output of the running cell replaced in place (IPython's
display handles).  Outside a kernel nothing is shown and IPython is never imported."""
from __future__ import annotations

import sys
import time
from typing import Any, Iterator


class Live:
    """show() replaces the text of one output of the running cell, at most once in `every`
    seconds; `on` only in a Jupyter kernel: elsewhere show() does nothing."""

    def __init__(self) -> None:
        ipy = sys.modules.get("IPython")  # a kernel has imported it
        self.on = bool(ipy and getattr(ipy.get_ipython(), "kernel", None))
        self.handle: Any = None
        self.shown = 0.0

    def show(self, text: str, every: float = 0) -> None:
        if self.on and time.monotonic() - self.shown >= every:
            from IPython.display import display
            if self.handle is None:
                self.handle = display({"text/plain": text}, raw=True, display_id=True)
            self.handle.update({"text/plain": text}, raw=True)
            self.shown = time.monotonic()


class Lines(Iterator[str]):
    """Log lines as they come; a notebook shows them (as a cell's value) as their count and
    last 20 lines, updated in place until the log ends."""

    def __init__(self, lines: Iterator[str], title: str) -> None:
        self.lines, self.title = lines, title

    def __next__(self) -> str:
        return next(self.lines)

    def _ipython_display_(self) -> None:
        live, tail, n = Live(), [], 0
        for n, line in enumerate(self, 1):
            tail = [*tail[-19:], line]
            live.show(f"{self.title}: {n} lines\n" + "\n".join(tail), every=0.2)
        live.show(f"{self.title}: {n} lines\n" + "\n".join(tail))
