"""Issue 13: options for adopting the tool and for living with it without an editor.

- ``--add-noqa``: suppress every current finding with a ``# noqa: CODE`` comment;
- ``--show-settings``: the resolved configuration and where each value came from;
- ``--watch``: re-lint when a linted file changes;
- a transient progress bar for long runs on a terminal.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
import time
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from exportlint.suppress import CODE_RE

# ---------------------------------------------------------------------------------------
# --add-noqa
# ---------------------------------------------------------------------------------------

_NOQA_CODES = re.compile(r"#\s*noqa:\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)", re.IGNORECASE)


@dataclass
class NoqaRun:
    added: int = 0  # lines that got (or extended) a noqa comment
    skipped: int = 0  # findings no comment could be placed for
    #: findings a comment cannot suppress: EXL002 (a bad suppression itself), and every finding of
    #: a file that Python cannot parse (EXL001 / EXL003: fix the file, not the report)
    unsuppressible: int = 0
    files: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _comment_lines(text: str) -> tuple[set[int], dict[int, tuple[int, str]]]:
    """Lines at whose end a comment is legal (they end with a NEWLINE/NL token: not inside a
    string, not continued by a backslash), and the comment already on a line (column, text)."""
    ok: set[int] = set()
    comments: dict[int, tuple[int, str]] = {}
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.NEWLINE, tokenize.NL):
            ok.add(tok.start[0])
        elif tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = (tok.start[1], tok.string)
    return ok, comments


def add_noqa_text(text: str, codes_by_line: dict[tuple[int, int], set[str]]) -> tuple[str, int, int]:
    """Add ``# noqa`` comments. ``codes_by_line`` maps (start line, end line) of findings to their
    codes. Each goes on its start line, or on its end line when a comment is not legal at the
    end of the start line (inside a multi-line string, a backslash continuation), or else on
    the last line of the multi-line string that line ends in; suppression honours all three.
    Returns (new text, lines changed, findings skipped)."""
    from exportlint.fixes.apply import line_starts, split_lines

    from exportlint.suppress import string_ends

    ok, comments = _comment_lines(text)
    ends = string_ends(text)
    want: dict[int, set[str]] = {}
    skipped = 0
    for (line, end_line), codes in codes_by_line.items():
        # else at the end of the multi-line string the line ends in (suppress.py honours it)
        target = next((ln for ln in (line, end_line, ends.get(line), ends.get(end_line)) if ln in ok), None)
        if target is None:
            skipped += len(codes)
            continue
        want.setdefault(target, set()).update(codes)
    lines = split_lines(text)
    starts = line_starts(text)
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement) offsets in text
    for ln, codes in want.items():
        if ln > len(lines):
            skipped += len(codes)
            continue
        content = lines[ln - 1]
        base = starts[ln - 1]
        com = comments.get(ln)
        m = _NOQA_CODES.search(com[1]) if com else None
        if m:
            have = set(CODE_RE.findall(m.group("codes").upper()))
            merged = ", ".join(sorted(have | codes))
            s = base + com[0] + m.start("codes")
            edits.append((s, base + com[0] + m.end("codes"), merged))
        else:
            stripped = content.rstrip()
            if not stripped:
                skipped += len(codes)
                continue
            edits.append((base + len(stripped), base + len(content), f"  # noqa: {', '.join(sorted(codes))}"))
    for s, e, rep in sorted(edits, reverse=True):
        text = text[:s] + rep + text[e:]
    return text, len(edits), skipped


def add_noqa(findings: Iterable[Any], files: Iterable[str]) -> NoqaRun:
    """Write ``# noqa`` comments for ``findings`` into ``files`` (atomically, the encoding, BOM and
    line endings kept). A file that does not tokenize, or would not parse afterwards, is left alone."""
    from exportlint.fixes.apply import encode_source, parses, read_source, write_atomic

    run = NoqaRun()
    wanted = set(files)
    by_path: dict[str, dict[tuple[int, int], set[str]]] = {}
    for f in findings:
        if f.path in wanted and f.code == "EXL002":
            run.unsuppressible += 1
        elif f.path in wanted:
            by_path.setdefault(f.path, {}).setdefault((f.line, f.end_line), set()).add(f.code)
    for path, codes_by_line in sorted(by_path.items()):
        n = sum(len(c) for c in codes_by_line.values())
        try:
            src = read_source(path)
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError) as e:
            run.errors.append(f"{path}: cannot read: {e}")
            run.skipped += n
            continue
        if not parses(src.text):
            run.unsuppressible += n
            continue
        try:
            new, changed, skipped = add_noqa_text(src.text, codes_by_line)
        except (tokenize.TokenError, SyntaxError, IndentationError) as e:
            run.errors.append(f"{path}: not valid Python, no noqa comments added: {e}")
            run.skipped += n
            continue
        if changed and not parses(new):
            run.errors.append(f"{path}: adding noqa comments would break the file; left unchanged")
            run.skipped += n
            continue
        run.skipped += skipped
        if changed:
            try:
                write_atomic(path, encode_source(src, new))
            except (OSError, UnicodeEncodeError) as e:
                run.errors.append(f"{path}: cannot write: {e}")
                run.skipped += n - skipped
                continue
            run.added += changed
            run.files.append(path)
    return run


# ---------------------------------------------------------------------------------------
# --show-settings
# ---------------------------------------------------------------------------------------

#: (config key, Config attribute, command-line option or None)
_SETTINGS = (
    ("select", "select", "select"),
    ("extend-select", "extend_select", "extend_select"),
    ("ignore", "ignore", "ignore"),
    ("per-file-ignores", "per_file_ignores", None),
    ("exclude", "exclude", "exclude"),
    ("extend-exclude", "extend_exclude", "extend_exclude"),
    ("target-exporters", "target_exporters", "target_exporters"),
    ("opset", "opset", "opset"),
    ("dynamic-shapes", "dynamic_shapes", None),
    ("targets", "targets", None),
    ("confirm.timeout", "confirm_timeout", None),
    ("confirm.exporter-timeout", "confirm_exporter_timeout", None),
    ("confirm.memory-limit", "confirm_memory_mb", None),
    ("confirm.rtol", "rtol", None),
    ("confirm.atol", "atol", None),
    ("cache-dir", "cache_dir", None),
    ("file-timeout", "file_timeout", None),
)


def _jsonable(v: Any) -> Any:
    if isinstance(v, Path):
        return str(v)
    if isinstance(v, (tuple, list)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    return v


def _table_of(cfg) -> tuple[dict, str]:
    """The raw table the settings were read from, and its key prefix."""
    src = cfg.source
    if src is None:
        return {}, ""
    from exportlint.config import _toml

    tomllib = _toml()

    try:
        data = tomllib.loads(Path(src).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}, ""
    if Path(src).name == "pyproject.toml":
        return data.get("tool", {}).get("exportlint", {}), "tool.exportlint."
    return data, ""


def settings(cfg, args) -> list[dict[str, Any]]:
    """Every setting: its key, resolved value and where it came from."""
    table, prefix = _table_of(cfg)
    out: list[dict[str, Any]] = []
    for key, attr, opt in _SETTINGS:
        value = getattr(cfg, attr)
        parts = key.split(".")
        in_file = table
        for p in parts:
            in_file = in_file.get(p) if isinstance(in_file, dict) else None
        from_file = in_file is not None
        from_cli = opt is not None and getattr(args, opt, None) not in (None, (), [])
        origins = []
        if from_file and not (from_cli and opt != "extend_exclude"):
            origins.append(f"{cfg.source}:{prefix}{key}")
        if from_cli:
            origins.append(f"command line (--{opt.replace('_', '-')})")
        if key == "dynamic-shapes" and value is None:
            value = "auto"
        if key == "cache-dir" and value is None:
            value = cfg.effective_cache_dir()
        out.append({"key": key, "value": _jsonable(value), "source": " + ".join(origins) or "default"})
    extra = (
        ("config-file", str(cfg.source) if cfg.source else None,
         "command line (--config)" if getattr(args, "config", None) else "found from the first path" if cfg.source else "default"),
        ("root", str(cfg.root), f"{cfg.source}" if cfg.source else "default (the working directory)"),
        ("respect-gitignore", bool(getattr(args, "respect_gitignore", True)),
         "default" if getattr(args, "respect_gitignore", True) else "command line (--no-respect-gitignore)"),
        ("cache", not getattr(args, "no_cache", False),
         "command line (--no-cache)" if getattr(args, "no_cache", False) else "default"),
    )
    for key, value, source in extra:
        out.append({"key": key, "value": value, "source": source})
    return out


def print_settings(cfg, args, stream=None) -> None:
    stream = stream or sys.stdout
    rows = settings(cfg, args)
    if (args.format or "text") == "json":
        json.dump({"settings": rows}, stream, indent=2)
        stream.write("\n")
        return
    width = max(len(r["key"]) for r in rows)
    for r in rows:
        stream.write(f"{r['key']:<{width}} = {json.dumps(r['value'])}  ({r['source']})\n")


# ---------------------------------------------------------------------------------------
# --watch
# ---------------------------------------------------------------------------------------


def snapshot(list_files: Callable[[], list[str]]) -> dict[str, tuple[int, int]]:
    from exportlint.discovery import DiscoveryError

    out: dict[str, tuple[int, int]] = {}
    try:
        files = list_files()
    except (DiscoveryError, OSError):  # a folder that vanished mid-walk: the next poll sees the new state
        return out
    for f in files:
        try:
            st = os.stat(f)
        except OSError:
            continue
        out[f] = (st.st_mtime_ns, st.st_size)
    return out


def watch(lint_once: Callable[[], int], list_files: Callable[[], list[str]], *, interval: float = 0.5,
          err=None) -> int:
    """Lint, then re-lint whenever a watched file is added, removed or modified. Ctrl-C: 130."""
    err = err or sys.stderr
    try:
        before = snapshot(list_files)
        lint_once()
        print(f"[watch] watching {len(before)} files for changes (Ctrl-C to stop)", file=err, flush=True)
        while True:
            time.sleep(interval)
            now = snapshot(list_files)
            if now != before:
                before = now
                print("[watch] change detected: re-linting", file=err, flush=True)
                lint_once()
                sys.stdout.flush()
    except KeyboardInterrupt:
        print("[watch] stopped", file=err, flush=True)
        return 130


# ---------------------------------------------------------------------------------------
# progress
# ---------------------------------------------------------------------------------------

#: more files than this get a progress bar (on a terminal)
PROGRESS_MIN_FILES = 50


class Progress:
    """A transient rich progress bar on stderr; use as a context manager, call ``advance()``."""

    def __init__(self, total: int):
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.progress import Progress as RP

        self._p = RP(TextColumn("linting"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                     console=Console(stderr=True), transient=True)
        self._task = self._p.add_task("lint", total=total)

    def __enter__(self):
        self._p.start()
        return self

    def __exit__(self, *exc):
        self._p.stop()
        return False

    def advance(self, n: int = 1) -> None:
        self._p.advance(self._task, n)


def want_progress(args, n_files: int) -> bool:
    fmt = args.format or "text"
    if args.quiet or fmt not in ("text", "full", "concise") or n_files <= PROGRESS_MIN_FILES:
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False
