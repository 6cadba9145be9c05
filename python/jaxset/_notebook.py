"""Output in a Jupyter notebook: one output of the running cell replaced in place (IPython's
display handles).  Outside a kernel nothing is shown and IPython is never imported, but for
the progress bar, which is a line of stdout there."""
from __future__ import annotations

import html
import shutil
import sys
import time
from typing import Any, Dict, Iterator, Optional

from .types import TrainJob

BAR_WIDTH = 30  # characters of a text progress bar


class Live:
    """show() replaces the text (and HTML, when given) of one output of the running cell, at
    most once in `every` seconds; `on` only in a Jupyter kernel: elsewhere show() does
    nothing."""

    def __init__(self) -> None:
        ipy = sys.modules.get("IPython")  # a kernel has imported it
        self.on = bool(ipy and getattr(ipy.get_ipython(), "kernel", None))
        self.handle: Any = None
        self.shown = 0.0

    def show(self, text: str, every: float = 0, html_text: Optional[str] = None) -> None:
        if self.on and time.monotonic() - self.shown >= every:
            from IPython.display import display
            data: Dict[str, str] = {"text/plain": text}
            if html_text is not None:
                data["text/html"] = html_text
            if self.handle is None:
                self.handle = display(data, raw=True, display_id=True)
            self.handle.update(data, raw=True)
            self.shown = time.monotonic()


def progress_line(job: TrainJob) -> str:
    """The job as one line: "NAME [#########---------]  45% Running, eta 1m05s, loss=0.12";
    "  ?%" and "no progress reported" while its training code reported nothing."""
    ts = job.trainer_status
    p = None if ts is None else ts.progress_percentage
    filled = 0 if p is None else BAR_WIDTH * p // 100
    pct = "  ?%" if p is None else f"{p:3d}%"
    more = ts.details() if ts else "no progress reported"
    return (f"{job.name} [{'#' * filled}{'-' * (BAR_WIDTH - filled)}] {pct} {job.status}"
            f"{', ' + more if more else ''}")


def progress_html(job: TrainJob) -> str:
    """progress_line as HTML: a <progress> element (without a value, an indeterminate one,
    while nothing was reported), then the line's text after the bar."""
    ts = job.trainer_status
    p = None if ts is None else ts.progress_percentage
    value = "" if p is None else f' value="{p}"'
    text = progress_line(job).split("] ", 1)[1]
    return (f'<progress max="100"{value} style="width: 20em"></progress> '
            f"<code>{html.escape(job.name)}</code> {html.escape(text)}")


class ProgressBar:
    """A TrainJob's progress bar: in a notebook one output of the cell updated in place,
    elsewhere one line of stdout rewritten after a carriage return (cut to a terminal's
    width), ended by close()."""

    def __init__(self) -> None:
        self.live = Live()
        self.line = ""

    def show(self, job: TrainJob) -> None:
        if self.live.on:
            self.live.show(progress_line(job), html_text=progress_html(job))
            return
        line = progress_line(job)
        if sys.stdout.isatty():
            line = line[:shutil.get_terminal_size().columns - 1]
        if line != self.line:
            sys.stdout.write("\r" + line.ljust(len(self.line)))  # over a longer last line
            sys.stdout.flush()
            self.line = line

    def close(self) -> None:
        """Ends the line on stdout (a notebook's output stays as it is)."""
        if self.line:
            sys.stdout.write("\n")
            sys.stdout.flush()


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
