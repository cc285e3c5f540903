"""Reporters: findings -> text. They never analyse; one small function per format."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import IO, Callable, Optional

from exportlint.findings import Finding, Severity
from exportlint.ruledocs import doc_url

FORMATS = ("text", "full", "concise", "json", "lsp", "sarif", "github")


def _rel(path: str) -> str:
    return path


def render_concise(findings: list[Finding], out: IO[str], **_) -> None:
    for f in findings:
        verdict = f" [{f.verdict}]" if f.verdict else ""
        out.write(f"{f.path}:{f.line}:{f.column}: {f.code} {f.message}{verdict}\n")


def render_json(findings: list[Finding], out: IO[str], **_) -> None:
    json.dump([f.to_dict() for f in findings], out, indent=2)
    out.write("\n")


LSP_SEVERITY = {Severity.ERROR: 1, Severity.WARNING: 2, Severity.INFO: 3}


def to_lsp_diagnostic(f: Finding) -> dict:
    """An LSP 3.17 Diagnostic (0-based positions; columns as characters)."""
    d = {
        "range": {
            "start": {"line": max(f.line - 1, 0), "character": max(f.column - 1, 0)},
            "end": {"line": max(f.end_line - 1, 0), "character": max(f.end_column - 1, 0)},
        },
        "severity": LSP_SEVERITY[f.severity],
        "code": f.code,
        "codeDescription": {"href": doc_url(f.code)},
        "source": "exportlint",
        "message": f.message + (f" [{f.verdict}]" if f.verdict else ""),
        "data": {"exporters": list(f.exporters), "fix": f.fix.to_dict() if f.fix else None},
    }
    if f.verdict:
        d["data"]["verdict"] = f.verdict
    if f.related:
        d["relatedInformation"] = [
            {
                "location": {
                    "uri": Path(r.path).resolve().as_uri() if not r.path.startswith("<") else r.path,
                    "range": {"start": {"line": max(r.line - 1, 0), "character": max(r.column - 1, 0)},
                              "end": {"line": max(r.line - 1, 0), "character": max(r.column - 1, 0)}},
                },
                "message": r.message,
            }
            for r in f.related
        ]
    return d


def render_lsp(findings: list[Finding], out: IO[str], **_) -> None:
    by_uri: dict[str, list[dict]] = {}
    for f in findings:
        uri = Path(f.path).resolve().as_uri() if not f.path.startswith("<") else f.path
        by_uri.setdefault(uri, []).append(to_lsp_diagnostic(f))
    json.dump(by_uri, out, indent=2)
    out.write("\n")


def _gh_escape(s: str, prop: bool = False) -> str:
    s = s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        s = s.replace(":", "%3A").replace(",", "%2C")
    return s


def render_github(findings: list[Finding], out: IO[str], **_) -> None:
    level = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
    for f in findings:
        out.write(
            f"::{level[f.severity]} file={_gh_escape(f.path, True)},line={f.line},col={f.column},"
            f"endLine={f.end_line},endColumn={f.end_column},title={_gh_escape(f.code, True)}::"
            f"{_gh_escape(f.message)}\n"
        )


def render_sarif(findings: list[Finding], out: IO[str], **_) -> None:
    from exportlint.report.sarif import to_sarif

    json.dump(to_sarif(findings), out, indent=2)
    out.write("\n")


def render_text(findings: list[Finding], out: IO[str], *, color: Optional[bool] = None, summary: str = "", **_) -> None:
    from exportlint.report.text import render

    render(findings, out, color=color, summary=summary)


RENDERERS: dict[str, Callable[..., None]] = {
    "text": render_text,
    "full": render_text,
    "concise": render_concise,
    "json": render_json,
    "lsp": render_lsp,
    "sarif": render_sarif,
    "github": render_github,
}


def render_statistics(findings: list[Finding], out: IO[str]) -> None:
    from exportlint.checks.base import all_rules

    rules = all_rules()
    counts = Counter(f.code for f in findings)
    sev = Counter(f.severity.value for f in findings)
    width = max((len(str(c)) for c in counts.values()), default=1)
    for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        name = rules[code].name if code in rules else "?"
        fixable = sum(1 for f in findings if f.code == code and f.fix is not None)
        fx = f" [{fixable} with fix]" if fixable else ""
        out.write(f"{n:>{width}}\t{code}\t{name}{fx}\n")
    out.write(
        f"Total: {len(findings)} ({sev.get('error', 0)} error, {sev.get('warning', 0)} warning, {sev.get('info', 0)} info)\n"
    )


def render_statistics_json(findings: list[Finding], out: IO[str]) -> None:
    """--statistics with a JSON format: one object per rule, most frequent first."""
    from exportlint.checks.base import all_rules

    rules = all_rules()
    counts = Counter(f.code for f in findings)
    rows = [
        {"code": code, "name": rules[code].name if code in rules else None, "count": n,
         "fixable": sum(1 for f in findings if f.code == code and f.fix is not None)}
        for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    json.dump(rows, out, indent=2)
    out.write("\n")
