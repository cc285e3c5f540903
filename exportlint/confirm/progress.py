"""Live progress of a confirm run on a terminal (rich, stderr); nothing in JSON/CI/non-tty mode.

``make_progress(fmt)`` returns ``None`` when nothing should be shown, else a ``LiveProgress``:
callable with a plain line (the ``progress=`` protocol of ``run_confirm``) and with structured
events through ``event(kind, **data)``: ``target-start``, ``exporter-start``, ``exporter``,
``target-done``. The live line shows the target, the exporter running, its elapsed time and
its time limit; finished exporters are printed above it, one line each.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any, Optional

#: output formats read by programs: never decorate stderr for them
MACHINE_FORMATS = ("json", "sarif", "lsp", "github")


def progress_wanted(fmt: Optional[str] = None, stream: Any = None) -> bool:
    stream = stream if stream is not None else sys.stderr
    if fmt in MACHINE_FORMATS:
        return False
    if os.environ.get("CI") or os.environ.get("EXPORTLINT_NO_PROGRESS"):
        return False
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError):
        return False


def make_progress(fmt: Optional[str] = None, stream: Any = None) -> Optional["LiveProgress"]:
    if not progress_wanted(fmt, stream):
        return None
    try:
        return LiveProgress(stream if stream is not None else sys.stderr)
    except Exception:  # noqa: BLE001 - rich missing or a strange terminal: no progress
        return None


class LiveProgress:
    def __init__(self, stream: Any):
        from rich.console import Console

        self.console = Console(file=stream, stderr=True)
        self._lock = threading.Lock()
        self._live: Any = None
        self._running: dict[str, dict] = {}  # target -> {"exporter", "since", "limit", "index"}
        self.total = 0

    # the plain-line protocol (messages that are not structured events)
    def __call__(self, message: str) -> None:
        if message.startswith("[") and ":" in message:  # per-target lines are shown live instead
            return
        with self._lock:
            self.console.print(message, style="dim", highlight=False)

    def event(self, kind: str, **d: Any) -> None:
        with self._lock:
            self._start()
            name = d.get("target", "")
            if kind == "target-start":
                self.total = d.get("total", self.total)
                self._running[name] = {"exporter": "building the model", "since": time.monotonic(),
                                       "limit": d.get("target_limit"), "index": d.get("index", 0),
                                       "exporter_limit": d.get("exporter_limit")}
            elif kind == "exporter-start" and name in self._running:
                r = self._running[name]
                r["exporter"], r["since"], r["limit"] = d["exporter"], time.monotonic(), r.get("exporter_limit")
            elif kind == "exporter":
                status = d.get("status", "?")
                style = {"pass": "green", "fail": "red", "diverged": "magenta", "timeout": "yellow"}.get(status, "")
                where = f" at {d['where']}" if d.get("where") else ""
                self.console.print(f"[{style}]{status:8s}[/] {name}  {d.get('exporter')}{where} "
                                   f"[dim]({d.get('seconds') or 0:.1f}s)[/]", highlight=False)
            elif kind == "target-done":
                self._running.pop(name, None)
            self._refresh()

    def _render(self) -> Any:
        from rich.spinner import Spinner
        from rich.table import Table

        t = Table.grid(padding=(0, 1))
        now = time.monotonic()
        for name, r in list(self._running.items()):
            limit = f" / limit {r['limit']:g}s" if r.get("limit") else ""
            t.add_row(Spinner("dots"), f"[{r['index'] + 1}/{self.total}] {name}",
                      f"[cyan]{r['exporter']}[/]", f"{now - r['since']:.0f}s{limit}")
        return t

    def _start(self) -> None:
        if self._live is None:
            from rich.live import Live

            self._live = Live(self._render(), console=self.console, refresh_per_second=4, transient=True,
                              get_renderable=self._render)
            self._live.start()

    def _refresh(self) -> None:
        if self._live is not None:
            self._live.refresh()

    def close(self) -> None:
        with self._lock:
            if self._live is not None:
                self._live.stop()
                self._live = None
