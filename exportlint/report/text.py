"""Human output (rich): location, code, message, the source line with a caret, exporters, fix."""

from __future__ import annotations

from typing import IO, Optional

from exportlint.findings import Finding, Severity

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "bold yellow", Severity.INFO: "bold blue"}


def _lines_of(path: str, cache: dict) -> list[str]:
    if path not in cache:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                cache[path] = fh.read().splitlines()
        except OSError:
            cache[path] = []
    return cache[path]


def render(findings: list[Finding], out: IO[str], *, color: Optional[bool] = None, summary: str = "",
           sources: Optional[dict[str, str]] = None) -> None:
    from rich.console import Console
    from rich.markup import escape

    import os

    if color is None and os.environ.get("NO_COLOR"):  # no-color.org; ruff prints no escapes at all
        color = False
    console = Console(color_system=None if color is False else "auto", file=out, force_terminal=color if color is not None else None, no_color=True if color is False else None,  # None: rich reads NO_COLOR
                      
                      highlight=False, soft_wrap=True, width=10000 if not (color or out.isatty()) else None)
    cache: dict = {}
    if sources:
        for k, v in sources.items():
            cache[k] = v.splitlines()
    for f in findings:
        st = _STYLE[f.severity]
        verdict = f" [{'green' if f.verdict == 'refuted' else 'magenta'}]({f.verdict})[/]" if f.verdict else ""
        console.print(
            f"[bold]{escape(f.path)}:{f.line}:{f.column}:[/] [{st}]{f.code}[/] [{st}]{f.severity.value}[/]{verdict} {escape(f.message)}"
        )
        lines = _lines_of(f.path, cache)
        if 1 <= f.line <= len(lines):
            src = lines[f.line - 1].expandtabs(1)
            gutter = str(f.line)
            pad = " " * len(gutter)
            console.print(f"[blue]{pad} |[/]")
            console.print(f"[blue]{gutter} |[/] {escape(src)}")
            start = max(f.column - 1, 0)
            end = f.end_column - 1 if f.end_line == f.line and f.end_column > f.column else len(src.rstrip())
            width = max(end - start, 1)
            console.print(f"[blue]{pad} |[/] {' ' * start}[{st}]{'^' * width}[/] [{st}]{f.code}[/]")
            if f.exporters:
                console.print(f"[blue]{pad} =[/] breaks: {', '.join(f.exporters)}")
            for r in f.related:
                console.print(f"[blue]{pad} =[/] {escape(r.message)} at {escape(r.path)}:{r.line}:{r.column}")
            if f.fix is not None:
                fx = f.fix
                console.print(f"[blue]{pad} =[/] [green]fix ({fx.safety.value})[/]: {escape(fx.replacement) or '(remove)'}"
                              + (f"  — {escape(fx.description)}" if fx.description else ""))
            console.print()
        elif f.exporters:
            console.print(f"  = breaks: {', '.join(f.exporters)}\n")
    if summary:
        console.print(summary)
