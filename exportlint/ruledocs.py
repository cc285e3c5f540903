"""Rule documentation pages (``rules/EXLnnn.md``): locate, parse, render.

A page has fixed sections (``## What it detects``, ``## Why it breaks export``,
``## Bad example``, ``## Good example``, ``## Fix``, ``## Suppress``); the python blocks of
the example sections are the rule's tests. Pages ship in the wheel as ``exportlint/_rules``
and are read from the source tree's ``rules/`` in a checkout.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Optional

SECTIONS = ("What it detects", "Why it breaks export", "Bad example", "Good example", "Fix", "Suppress")
DOC_BASE_URL = "https://github.com/exportlint/exportlint/blob/main/rules/"

_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\s*$", re.S | re.M)


@lru_cache(maxsize=1)
def rules_dir() -> Optional[Path]:
    here = Path(__file__).resolve().parent
    for cand in (here / "_rules", here.parent / "rules"):
        if cand.is_dir():
            return cand
    return None


def doc_url(code: str) -> str:
    return f"{DOC_BASE_URL}{code}.md"


@dataclass
class RuleDoc:
    code: str
    title: str
    text: str
    sections: dict[str, str] = field(default_factory=dict)

    def examples(self, section: str) -> list[str]:
        body = self.sections.get(section, "")
        return [m.group(2) for m in _FENCE.finditer(body) if m.group(1) in ("python", "py")]

    @property
    def bad_examples(self) -> list[str]:
        return self.examples("Bad example")

    @property
    def good_examples(self) -> list[str]:
        return self.examples("Good example")

    def summary(self) -> str:
        """First paragraph of 'What it detects' (for SARIF shortDescription, LSP)."""
        body = self.sections.get("What it detects", "").strip()
        para = body.split("\n\n", 1)[0]
        return " ".join(para.split())


def parse_doc(code: str, text: str) -> RuleDoc:
    lines = text.splitlines()
    title = lines[0].lstrip("# ").strip() if lines else code
    sections: dict[str, str] = {}
    cur: Optional[str] = None
    buf: list[str] = []
    in_fence = False
    for line in lines[1:]:
        if line.startswith("```"):
            in_fence = not in_fence
        if not in_fence and line.startswith("## "):
            if cur is not None:
                sections[cur] = "\n".join(buf).strip("\n")
            cur = line[3:].strip()
            buf = []
        else:
            buf.append(line)
    if cur is not None:
        sections[cur] = "\n".join(buf).strip("\n")
    return RuleDoc(code, title, text, sections)


@lru_cache(maxsize=None)
def load_doc(code: str) -> Optional[RuleDoc]:
    d = rules_dir()
    if d is None:
        return None
    p = d / f"{code}.md"
    if not p.is_file():
        return None
    return parse_doc(code, p.read_text(encoding="utf-8"))
