"""Positions for the few nodes that carry findings, without libcst's PositionProvider.

PositionProvider records a range for every node of the module (measured: 1.4x the cost of
parsing). We only need ranges for the handful of nodes rules reported, so we run the module's
codegen once with a state that notes the token index where each *target* node starts and
ends, then turn token indices into (line, column) in a single scan of the tokens.
"""

from __future__ import annotations

from typing import Iterable

import libcst as cst
from libcst._nodes.internal import CodegenState


class _MarkingState(CodegenState):
    __slots__ = ("targets", "marks")

    def __init__(self, default_indent: str, default_newline: str, targets: set[int]) -> None:
        super().__init__(default_indent=default_indent, default_newline=default_newline)
        self.targets = targets
        self.marks: dict[int, list[int]] = {}

    def before_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.targets and id(node) not in self.marks:
            self.marks[id(node)] = [len(self.tokens), -1]

    def after_codegen(self, node: cst.CSTNode) -> None:
        m = self.marks.get(id(node))
        if m is not None and m[1] < 0:
            m[1] = len(self.tokens)


def resolve_positions(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[int, tuple[int, int, int, int]]:
    """Map id(node) -> (line, col, end_line, end_col): 1-based lines, 1-based columns.

    Leading and trailing whitespace/newlines the node owns are trimmed (a statement owns its
    leading blank lines and indentation; we report where its code starts).
    """
    targets = {id(n) for n in nodes}
    if not targets:
        return {}
    state = _MarkingState(module.default_indent, module.default_newline, targets)
    module._codegen(state)
    tokens = state.tokens
    # token index -> (line, col) at the start of that token, for the indices we need
    wanted = sorted({i for m in state.marks.values() for i in m if i >= 0})
    at: dict[int, tuple[int, int]] = {}
    line, col = 1, 0
    wi = 0
    nw = len(wanted)
    for ti, tok in enumerate(tokens):
        while wi < nw and wanted[wi] == ti:
            at[ti] = (line, col)
            wi += 1
        if wi >= nw:
            break
        nl = tok.count("\n")
        if nl:
            line += nl
            col = len(tok) - tok.rfind("\n") - 1
        else:
            col += len(tok)
    while wi < nw:
        at[wanted[wi]] = (line, col)
        wi += 1
    out: dict[int, tuple[int, int, int, int]] = {}
    for nid, (s, e) in state.marks.items():
        if e < 0:
            e = len(tokens)
        # trim leading/trailing whitespace-only tokens
        while s < e and not tokens[s].strip():
            s += 1
        while e > s and not tokens[e - 1].strip():
            e -= 1
        sl, sc = at.get(s) or _pos_of(tokens, s)
        tok = tokens[s] if s < len(tokens) else ""
        lead = len(tok) - len(tok.lstrip())
        if "\n" in tok[:lead]:
            sl += tok[:lead].count("\n")
            sc = lead - tok[:lead].rfind("\n") - 1
        else:
            sc += lead
        if e > s:
            el, ec = at.get(e - 1) or _pos_of(tokens, e - 1)
            last = tokens[e - 1].rstrip()
            nl = last.count("\n")
            if nl:
                el += nl
                ec = len(last) - last.rfind("\n") - 1
            else:
                ec += len(last)
        else:
            el, ec = sl, sc
        out[nid] = (sl, sc + 1, el, ec + 1)
    return out


def _pos_of(tokens: list[str], index: int) -> tuple[int, int]:
    text = "".join(tokens[:index])
    return text.count("\n") + 1, len(text) - text.rfind("\n") - 1
