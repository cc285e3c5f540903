"""Applying fixes: edits, choosing non-overlapping ones, re-linting until nothing changes,
and writing files atomically with their encoding and line endings kept.

Used by the command line (``--fix``, ``--diff``) and by the language server's code actions
(``exportlint.lsp.edits`` re-exports the edit helpers from here), so both apply the same
edits the same way.

Coordinates of :class:`Edit` are 0-based lines and 0-based characters (code points).
Lines are split on ``\\r\\n``, ``\\r`` and ``\\n`` only, as Python's tokenizer and libcst do.
"""

from __future__ import annotations

import ast
import codecs
import io
import os
import re
import stat
import tempfile
import tokenize
import warnings
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

from exportlint.findings import Finding, Fix, FixSafety

_NEWLINE = re.compile(r"\r\n|\r|\n")

#: at most this many lint / fix rounds per file (each round applies every non-overlapping fix)
MAX_ROUNDS = 8


def split_lines(text: str) -> list[str]:
    """The lines of text without their terminators; always at least one (maybe empty)."""
    return _NEWLINE.split(text)


def line_starts(text: str) -> list[int]:
    """Offset of the first character of every line of :func:`split_lines`."""
    return [0] + [m.end() for m in _NEWLINE.finditer(text)]


@dataclass(frozen=True)
class Edit:
    """Replace [start, end) by new_text; 0-based lines and characters."""

    start_line: int
    start_char: int
    end_line: int
    end_char: int
    new_text: str

    @property
    def start(self) -> tuple[int, int]:
        return (self.start_line, self.start_char)

    @property
    def end(self) -> tuple[int, int]:
        return (self.end_line, self.end_char)


def finding_range(f: Finding) -> tuple[int, int, int, int]:
    """The finding's 0-based (line, char, end_line, end_char)."""
    return (max(f.line - 1, 0), max(f.column - 1, 0), max(f.end_line - 1, 0), max(f.end_column - 1, 0))


def fix_edit(f: Finding) -> Optional[Edit]:
    """The edit of the finding's fix: its explicit range if it has one, else the finding's."""
    fx = f.fix
    if fx is None:
        return None
    if fx.line is not None and fx.column is not None:
        end_line = fx.end_line if fx.end_line is not None else fx.line
        end_col = fx.end_column if fx.end_column is not None else fx.column
        rng = (max(fx.line - 1, 0), max(fx.column - 1, 0), max(end_line - 1, 0), max(end_col - 1, 0))
    else:
        rng = finding_range(f)
    return Edit(*rng, fx.replacement)


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """Apply non-overlapping edits (coordinates refer to the original text). Newlines in the
    replacements are written as the text's own line ending."""
    starts = line_starts(text)
    lines = split_lines(text)
    nl = newline_of(text)

    def offset(line: int, char: int) -> int:
        if line >= len(starts):
            return len(text)
        return starts[line] + max(0, min(char, len(lines[line])))

    out = text
    for e in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        a, b = offset(e.start_line, e.start_char), offset(e.end_line, e.end_char)
        new = _NEWLINE.sub(nl, e.new_text) if nl != "\n" else e.new_text.replace("\r\n", "\n")
        out = out[:a] + new + out[max(a, b):]
    return out


def newline_of(text: str) -> str:
    m = _NEWLINE.search(text)
    return m.group(0) if m else "\n"


def parses(text: str) -> bool:
    """Whether text is valid Python for this interpreter."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


SAFE_ONLY = frozenset({FixSafety.SAFE})
SAFE_AND_UNSAFE = frozenset({FixSafety.SAFE, FixSafety.UNSAFE})


def select_fix_all(findings: Iterable[Finding], safeties: frozenset[FixSafety] = SAFE_ONLY) -> list[tuple[Finding, Edit]]:
    """Fix edits of the given safeties that do not overlap each other (first one wins).
    A rewrite that --confirm verified counts as safe; one that failed verification is never
    applied."""
    chosen: list[tuple[Finding, Edit]] = []
    for f in sorted(findings, key=lambda f: (f.line, f.column, f.code)):
        if f.fix is None or f.fix.verified is False or f.fix.applicable_safety not in safeties:
            continue
        e = fix_edit(f)
        if e is None:
            continue
        if any(e.start < o.end and o.start < e.end or e.start == o.start for _, o in chosen):
            continue
        chosen.append((f, e))
    return chosen


# ---------------------------------------------------------------------------------------
# fixing a text until nothing changes
# ---------------------------------------------------------------------------------------


@dataclass
class FixOutcome:
    text: str
    #: the findings whose fixes were applied, in order
    applied: list[Finding] = field(default_factory=list)
    #: fixes left out because the result would not parse: (finding, reason)
    rejected: list[tuple[Finding, str]] = field(default_factory=list)
    rounds: int = 0


def fix_key(f: Finding) -> tuple:
    """Identity of a fix across re-lints (positions move when other fixes are applied)."""
    return (f.code, f.fix.replacement if f.fix else None, f.fix.description if f.fix else None)


def fix_text(text: str, lint: Callable[[str], list[Finding]], safeties: frozenset[FixSafety] = SAFE_ONLY,
             *, known: Optional[dict[tuple, Fix]] = None, max_rounds: int = MAX_ROUNDS) -> FixOutcome:
    """Apply the fixes ``lint(text)`` offers, re-lint, and repeat until no fix applies (at
    most ``max_rounds`` rounds). ``known`` maps :func:`fix_key` to fixes with a verification
    verdict (from --confirm): their ``verified`` flag is carried onto the re-linted findings.
    Never returns text that does not parse (when the input parsed)."""
    out = FixOutcome(text)
    original_parses = parses(text)
    seen_texts = {text}
    for _ in range(max_rounds):
        findings = lint(out.text)
        if known:
            findings = [_with_verdict(f, known) for f in findings]
        chosen = select_fix_all(findings, safeties)
        if not chosen:
            break
        out.rounds += 1
        new = apply_edits(out.text, [e for _, e in chosen])
        used = [f for f, _ in chosen]
        if original_parses and not parses(new):
            # apply them one by one, keeping those that leave the file parsing
            new, used = out.text, []
            for f, e in sorted(chosen, key=lambda fe: (fe[1].start, fe[1].end), reverse=True):
                cand = apply_edits(new, [e])
                if parses(cand):
                    new = cand
                    used.append(f)
                else:
                    out.rejected.append((f, "the result does not parse"))
        if new == out.text or new in seen_texts:
            break  # nothing changed, or a fix undoes another: stop
        seen_texts.add(new)
        out.text = new
        out.applied.extend(used)
    return out


def _with_verdict(f: Finding, known: dict[tuple, Fix]) -> Finding:
    if f.fix is None:
        return f
    k = known.get(fix_key(f))
    if k is None or k.verified is None:
        return f
    import dataclasses

    return dataclasses.replace(f, fix=dataclasses.replace(f.fix, verified=k.verified, verification=k.verification))


# ---------------------------------------------------------------------------------------
# files: encoding, BOM, line endings, atomic writes
# ---------------------------------------------------------------------------------------


@dataclass
class SourceFile:
    path: str
    text: str
    encoding: str
    bom: bool


def read_source(path: str) -> SourceFile:
    """Decode a Python file as the interpreter would (PEP 263 cookie, BOM); line endings kept."""
    with open(path, "rb") as fh:
        data = fh.read()
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    bom = data.startswith(codecs.BOM_UTF8)
    if encoding == "utf-8-sig":
        encoding, bom = "utf-8", True
    text = data.decode(encoding)
    if text.startswith("\ufeff"):
        text = text[1:]
    return SourceFile(path, text, encoding, bom)


def encode_source(src: SourceFile, text: str) -> bytes:
    data = text.encode(src.encoding)
    return (codecs.BOM_UTF8 + data) if src.bom else data


def write_atomic(path: str, data: bytes) -> None:
    """Write through a temporary file in the same folder and rename it over ``path`` (the file
    keeps its permission bits; a symlink keeps pointing at the file, which is rewritten)."""
    path = os.path.realpath(path)
    folder = os.path.dirname(path)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=".exportlint-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def unified_diff(path: str, before: str, after: str) -> str:
    import difflib

    a = before.splitlines(keepends=True)
    b = after.splitlines(keepends=True)
    rel = os.path.relpath(path) if os.path.isabs(path) else path
    if rel.startswith(".."):
        rel = path
    sep = "" if rel.startswith("/") else "/"
    lines = list(difflib.unified_diff(a, b, fromfile=f"a{sep}{rel}", tofile=f"b{sep}{rel}"))
    return "".join(l if l.endswith(("\n", "\r")) else l + "\n\\ No newline at end of file\n" for l in lines)


__all__ = [
    "Edit",
    "FixOutcome",
    "MAX_ROUNDS",
    "SAFE_AND_UNSAFE",
    "SAFE_ONLY",
    "SourceFile",
    "apply_edits",
    "encode_source",
    "finding_range",
    "fix_edit",
    "fix_key",
    "fix_text",
    "line_starts",
    "newline_of",
    "parses",
    "read_source",
    "select_fix_all",
    "split_lines",
    "unified_diff",
    "write_atomic",
]
