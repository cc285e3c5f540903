"""``--fix`` / ``--diff`` / ``--show-fixes`` over files (the command line's side of fixing)."""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional, TextIO

from exportlint.findings import Finding, Fix, FixSafety
from exportlint.fixes.apply import (
    SAFE_AND_UNSAFE,
    SAFE_ONLY,
    encode_source,
    fix_key,
    fix_text,
    parses,
    read_source,
    unified_diff,
    write_atomic,
)


@dataclass
class FixRun:
    #: path -> findings whose fixes were applied (or would be, with --diff)
    fixed: dict[str, list[Finding]] = field(default_factory=dict)
    #: path -> (before, after) text of every changed file
    changes: dict[str, tuple[str, str]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    #: rewrites that --confirm refused: (finding, report, refused fix)
    dropped: list[tuple] = field(default_factory=list)

    @property
    def count(self) -> int:
        return sum(len(v) for v in self.fixed.values())


def known_verdicts(findings: list[Finding]) -> dict[tuple, Fix]:
    return {fix_key(f): f.fix for f in findings if f.fix is not None and f.fix.verified is not None}


def fix_files(paths: list[str], config, *, unsafe: bool, write: bool, codes=None,
              findings: Optional[list[Finding]] = None, dropped: tuple = ()) -> FixRun:
    """Fix each file until nothing changes; write atomically when ``write``. Rewrites --confirm
    verified apply as safe fixes; those it dropped never apply (even with ``unsafe``)."""
    from exportlint.engine import Linter

    linter = Linter(config, frozenset(codes) if codes is not None else None)
    known = known_verdicts(findings or [])
    for f, _rep, refused in dropped:
        known[(f.code, refused.replacement, refused.description)] = refused
    safeties = SAFE_AND_UNSAFE if unsafe else SAFE_ONLY
    run = FixRun()
    import os

    with_fix = {os.path.abspath(f.path) for f in findings if f.fix is not None} if findings is not None else None
    for path in paths:
        if with_fix is not None and os.path.abspath(path) not in with_fix:
            continue  # no finding of the lint pass carries a fix here
        try:
            src = read_source(path)
        except (OSError, UnicodeDecodeError, SyntaxError, LookupError) as e:
            run.errors.append(f"{path}: cannot read: {e}")
            continue

        def lint(text: str, path=path) -> list[Finding]:
            r = linter.lint_text(text, path)
            return r.findings

        out = fix_text(src.text, lint, safeties, known=known)
        if out.text == src.text:
            continue
        if parses(src.text) and not parses(out.text):  # fix_text never does this; belt and braces
            run.errors.append(f"{path}: not fixed: the result would not parse")
            continue
        run.fixed[path] = out.applied
        run.changes[path] = (src.text, out.text)
        if write:
            try:
                write_atomic(path, encode_source(src, out.text))
            except (OSError, UnicodeEncodeError) as e:
                run.errors.append(f"{path}: cannot write: {e}")
    return run


def print_diff(run: FixRun, out: TextIO = sys.stdout) -> None:
    for path, (before, after) in run.changes.items():
        out.write(unified_diff(path, before, after))


def print_fixed(run: FixRun, out: TextIO = sys.stdout, *, rules: Optional[dict] = None) -> None:
    """ruff-style summary: 'Fixed N errors:' then per file 'k × CODE (name)'."""
    n = run.count
    if not n:
        out.write("No errors fixed.\n")
        return
    out.write(f"Fixed {n} error{'s' if n != 1 else ''}:\n")
    for path, fs in run.fixed.items():
        out.write(f"- {path}:\n")
        for (code, title), k in Counter((f.code, _title(f)) for f in fs).items():
            out.write(f"    {k} × {code} ({title})\n")


def print_verification(findings: list[Finding], run: FixRun, out: TextIO = sys.stderr) -> None:
    """One line per rewrite --confirm checked: verified / kept unsafe / dropped, and why."""
    for f in findings:
        rep = f.fix.verification if f.fix is not None else None
        if rep:
            what = "verified" if f.fix.verified else "not verified (kept unsafe)"
            out.write(f"exportlint: rewrite {what} at {f.path}:{f.line}:{f.column} ({f.code}, "
                      f"{f.fix.title or f.fix.kind}): {rep.get('message', '')}\n")
    for f, rep, *_ in run.dropped:
        out.write(f"exportlint: rewrite dropped at {f.path}:{f.line}:{f.column} ({f.code}): {rep.get('message', '')}\n")


def _title(f: Finding) -> str:
    fx = f.fix
    if fx is None:
        return ""
    t = fx.title or fx.description or "fix"
    if fx.safety == FixSafety.UNSAFE:
        t += ", verified" if fx.verified else ", unsafe"
    return t


def fixable_counts(findings: list[Finding]) -> tuple[int, int]:
    """(fixes --fix would apply, more that --unsafe-fixes would apply)."""
    safe = sum(1 for f in findings if f.fix is not None and f.fix.verified is not False
               and f.fix.applicable_safety == FixSafety.SAFE)
    unsafe = sum(1 for f in findings if f.fix is not None and f.fix.verified is not False
                 and f.fix.applicable_safety == FixSafety.UNSAFE)
    return safe, unsafe
