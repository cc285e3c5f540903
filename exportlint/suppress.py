"""Suppression comments.

- ``# noqa: EXL101`` / ``# noqa: EXL101, EXL203`` on the reported line (bare ``# noqa`` too);
- ``# exportlint: ignore[EXL101]`` / ``# exportlint: ignore`` on the reported line;
- ``# exportlint: ignore-file[EXL101]`` / ``# exportlint: ignore-file`` anywhere: whole file.

Comments are found by a regex over the raw text (no tokenizer): a ``#`` inside a string that
happens to look like a suppression is the one false match, and it only hides findings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_EXL = re.compile(r"#\s*exportlint:\s*(?P<what>ignore-file|ignore)(?:\[(?P<codes>[^\]]*)\])?")
_CODE = re.compile(r"[A-Z]+[0-9]+")


@dataclass
class Suppressions:
    #: line -> None (all codes) or set of codes
    lines: dict[int, Optional[set[str]]] = field(default_factory=dict)
    file_all: bool = False
    file_codes: set[str] = field(default_factory=set)
    #: (line, col, code) of every EXL code named in a suppression (for EXL002)
    named: list[tuple[int, int, int, str]] = field(default_factory=list)

    def is_suppressed(self, code: str, line: int, end_line: int) -> bool:
        if self.file_all or code in self.file_codes:
            return True
        for ln in (line, end_line):
            if ln in self.lines:
                codes = self.lines[ln]
                if codes is None or code in codes:
                    return True
        return False


def parse_suppressions(text: str) -> Suppressions:
    s = Suppressions()
    if "noqa" not in text and "exportlint:" not in text:
        return s
    for lineno, line in enumerate(text.splitlines(), 1):
        if "#" not in line:
            continue
        m = _NOQA.search(line)
        if m:
            codes = m.group("codes")
            if codes:
                found = _CODE.findall(codes.upper())
                _add(s, lineno, set(found))
                base = m.start("codes")
                for cm in _CODE.finditer(codes.upper()):
                    if cm.group().startswith("EXL"):
                        col = base + cm.start() + 1
                        s.named.append((lineno, col, col + len(cm.group()), cm.group()))
            else:
                s.lines[lineno] = None
        for m in _EXL.finditer(line):
            codes_txt = m.group("codes")
            codes = set(_CODE.findall(codes_txt)) if codes_txt is not None else None
            if codes_txt is not None:
                base = m.start("codes")
                for cm in _CODE.finditer(codes_txt):
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
    return s


def _add(s: Suppressions, line: int, codes: set[str]) -> None:
    cur = s.lines.get(line, set())
    if line in s.lines and cur is None:
        return
    s.lines[line] = (cur or set()) | codes
