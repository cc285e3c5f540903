"""Positions, fix edits and suppression edits for the language server (no pygls here).

Coordinates in this module are 0-based lines and 0-based *characters* (code points), the
unit the engine uses (``Finding`` columns are 1-based characters). The server converts to
the client's negotiated position encoding (UTF-16 unless the client offers another) with
:func:`to_client_units` / :func:`from_client_units`.

Lines are split on ``\\r\\n``, ``\\r`` and ``\\n`` only, as Python's tokenizer and libcst do
(``str.splitlines`` also splits on form feeds and U+2028, which would shift every line after
one of them).
"""

from __future__ import annotations

import io
import tokenize
from typing import Optional

from exportlint.findings import Finding

# the edits are the command line's (--fix): one implementation for both
from exportlint.fixes.apply import (  # noqa: F401 - re-exported
    Edit,
    apply_edits,
    finding_range,
    fix_edit,
    line_starts,
    parses,
    select_fix_all,
    split_lines,
)
from exportlint.suppress import CODE_RE, EXL_RE, NOQA_RE

#: codes that a line suppression cannot silence (EXL002 reports suppressions themselves)
UNSUPPRESSIBLE = frozenset({"EXL002"})


# ---------------------------------------------------------------------------------------
# position encodings
# ---------------------------------------------------------------------------------------


def _units(s: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(s.encode("utf-8", "surrogatepass"))
    if encoding == "utf-32":
        return len(s)
    # utf-16 (the LSP default): characters outside the BMP count twice
    return len(s) + sum(1 for c in s if ord(c) > 0xFFFF)


def to_client_units(lines: list[str], line: int, char: int, encoding: str) -> tuple[int, int]:
    """(line, character) in code points -> (line, character) in the client's units."""
    if line < 0:
        return 0, 0
    if line >= len(lines):
        return len(lines) - 1, _units(lines[-1], encoding)
    text = lines[line]
    char = max(0, min(char, len(text)))
    return line, _units(text[:char], encoding)


def from_client_units(lines: list[str], line: int, units: int, encoding: str) -> tuple[int, int]:
    """(line, character) in the client's units -> (line, character) in code points."""
    if line < 0:
        return 0, 0
    if line >= len(lines):
        return len(lines) - 1, len(lines[-1])
    if encoding == "utf-32":
        return line, max(0, min(units, len(lines[line])))
    count = 0
    for i, c in enumerate(lines[line]):
        if count >= units:
            return line, i
        count += _units(c, encoding)
    return line, len(lines[line])


# ---------------------------------------------------------------------------------------
# suppressions
# ---------------------------------------------------------------------------------------


def string_continuation_lines(text: str) -> frozenset[int]:
    """0-based lines that end inside a multi-line string (a comment cannot go there), or that
    end with a backslash continuation. Empty if the text does not tokenize."""
    out: set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            (sl, _), (el, _) = tok.start, tok.end
            if el > sl:  # a string (or f-string part) spanning lines
                out.update(range(sl - 1, el - 1))
    except (tokenize.TokenError, SyntaxError, ValueError):
        pass
    for i, line in enumerate(split_lines(text)):
        if line.rstrip().endswith("\\"):
            out.add(i)
    return frozenset(out)


def suppress_line_edit(line_text: str, line: int, code: str) -> Optional[Edit]:
    """Edit that makes ``line`` suppress ``code``: add it to an existing ``# noqa: ...`` list
    (or ``# exportlint: ignore[...]`` list), else append ``  # noqa: CODE``. None when the
    line already suppresses it."""
    m = NOQA_RE.search(line_text)
    if m is not None:
        codes = m.group("codes")
        if not codes:
            return None  # a bare `# noqa` already suppresses everything
        if code in CODE_RE.findall(codes.upper()):
            return None
        at = m.end("codes")
        return Edit(line, at, line, at, f", {code}")
    for m in EXL_RE.finditer(line_text):
        if m.group("what") != "ignore":
            continue
        codes_txt = m.group("codes")
        if codes_txt is None:
            return None  # `# exportlint: ignore` suppresses everything on the line
        if code in CODE_RE.findall(codes_txt):
            return None
        start = m.start("codes")
        if not codes_txt.strip():
            return Edit(line, start, line, m.end("codes"), code)
        at = start + len(codes_txt.rstrip())
        return Edit(line, at, line, at, f", {code}")
    stripped = line_text.rstrip()
    sep = "  " if stripped else ""
    return Edit(line, len(stripped), line, len(line_text), f"{sep}# noqa: {code}")


def suppress_edit(lines: list[str], f: Finding, unsafe_lines: frozenset[int] = frozenset()) -> Optional[Edit]:
    """Suppression of finding ``f`` on its first line, or on its last line when a comment
    cannot go on the first (inside a multi-line string, after a backslash). The engine honours
    a suppression on either line."""
    if f.code in UNSUPPRESSIBLE:
        return None
    first, last = max(f.line - 1, 0), max(f.end_line - 1, 0)
    for ln in dict.fromkeys((first, last)):
        if ln >= len(lines) or ln in unsafe_lines:
            continue
        return suppress_line_edit(lines[ln], ln, f.code)
    return None


__all__ = [
    "Edit",
    "UNSUPPRESSIBLE",
    "apply_edits",
    "finding_range",
    "fix_edit",
    "from_client_units",
    "line_starts",
    "parses",
    "select_fix_all",
    "split_lines",
    "string_continuation_lines",
    "suppress_edit",
    "suppress_line_edit",
    "to_client_units",
]
