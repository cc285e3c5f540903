"""Suppression comments.

- ``# noqa: EXL101`` / ``# noqa: EXL101, EXL203`` on the reported line (bare ``# noqa`` too);
- ``# exportlint: ignore[EXL101]`` / ``# exportlint: ignore`` on the reported line;
- ``# exportlint: ignore-file[EXL101]`` / ``# exportlint: ignore-file`` anywhere: whole file.

A finding on a line that ends inside a multi-line string (where no comment can go) is
suppressed by a comment at the end of the string's last line, as in ruff and flake8; that is
where ``--add-noqa`` puts it.

Comments are found by a regex over the raw text (no tokenizer): a ``#`` inside a string that
happens to look like a suppression is the one false match, and it only hides findings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

NOQA_RE = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
EXL_RE = re.compile(r"#\s*exportlint:\s*(?P<what>ignore-file|ignore)(?:\[(?P<codes>[^\]]*)\])?")
CODE_RE = re.compile(r"[A-Z]+[0-9]+")


@dataclass
class Suppressions:
    #: line -> None (all codes) or set of codes
    lines: dict[int, Optional[set[str]]] = field(default_factory=dict)
    file_all: bool = False
    file_codes: set[str] = field(default_factory=set)
    #: (line, col, code) of every EXL code named in a suppression (for EXL002)
    named: list[tuple[int, int, int, str]] = field(default_factory=list)
    #: the text, for ``string_ends`` (only kept when it has line suppressions)
    text: Optional[str] = None
    _ends: Optional[dict[int, int]] = None

    def is_suppressed(self, code: str, line: int, end_line: int) -> bool:
        if self.file_all or code in self.file_codes:
            return True
        if self._on(code, (line, end_line)):
            return True
        if self.lines and self.text is not None:
            if self._ends is None:
                self._ends = string_ends(self.text)
            more = [self._ends[ln] for ln in (line, end_line) if ln in self._ends]
            return bool(more) and self._on(code, more)
        return False

    def _on(self, code: str, lines) -> bool:
        for ln in lines:
            if ln in self.lines:
                codes = self.lines[ln]
                if codes is None or code in codes:
                    return True
        return False


def string_ends(text: str) -> dict[int, int]:
    """For every line that ends inside a multi-line string (its first line and every line but
    its last): the string's last line. Empty when the text does not tokenize."""
    import io
    import tokenize

    out: dict[int, int] = {}
    fstart = getattr(tokenize, "FSTRING_START", None)  # Python 3.12+: an f-string is several tokens
    fend = getattr(tokenize, "FSTRING_END", None)
    opened: list[int] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            first = None
            if tok.type == tokenize.STRING:
                first = tok.start[0]
            elif fstart is not None and tok.type == fstart:
                opened.append(tok.start[0])
            elif fend is not None and tok.type == fend and opened:
                first = opened.pop()
                if opened:  # nested in another f-string: the outer one decides
                    continue
            if first is not None and tok.end[0] > first:
                for ln in range(first, tok.end[0]):
                    out[ln] = tok.end[0]
    except (tokenize.TokenError, SyntaxError):
        return out
    return out


def parse_suppressions(text: str) -> Suppressions:
    s = Suppressions()
    if "noqa" not in text and "exportlint:" not in text:
        return s
    for lineno, line in enumerate(text.splitlines(), 1):
        if "#" not in line:
            continue
        m = NOQA_RE.search(line)
        if m:
            codes = m.group("codes")
            if codes:
                found = CODE_RE.findall(codes.upper())
                _add(s, lineno, set(found))
                base = m.start("codes")
                for cm in CODE_RE.finditer(codes.upper()):
                    if cm.group().startswith("EXL"):
                        col = base + cm.start() + 1
                        s.named.append((lineno, col, col + len(cm.group()), cm.group()))
            else:
                s.lines[lineno] = None
        for m in EXL_RE.finditer(line):
            codes_txt = m.group("codes")
            codes = set(CODE_RE.findall(codes_txt)) if codes_txt is not None else None
            if codes_txt is not None:
                base = m.start("codes")
                for cm in CODE_RE.finditer(codes_txt):
                    col = base + cm.start() + 1
                    s.named.append((lineno, col, col + len(cm.group()), cm.group()))
            if m.group("what") == "ignore-file":
                if codes is None:
                    s.file_all = True
                else:
                    s.file_codes |= codes
            else:
                if codes is None:
                    s.lines[lineno] = None
                else:
                    _add(s, lineno, codes)
    if s.lines:
        s.text = text
    return s


def _add(s: Suppressions, line: int, codes: set[str]) -> None:
    cur = s.lines.get(line, set())
    if line in s.lines and cur is None:
        return
    s.lines[line] = (cur or set()) | codes
