"""Positions for the few nodes that carry findings, without libcst's PositionProvider.

PositionProvider records a range for every node of the module (measured: 1.4x the cost of
parsing, and a full codegen alone costs about as much as the parse on large files). We only
need ranges for the handful of nodes rules reported, so:

1. each reported node comes with an *anchor*: the function (with the indentation of its
   ``def`` line) whose source contains it;
2. we run libcst's codegen on the anchor only, with a state that notes the token index where
   each target node starts and ends, seeded with the anchor's indentation so the generated
   text is byte-for-byte the source text;
3. that text is found in the source (``str.find``), which gives the anchor's first line;
   token indices become (line, column) in one scan.

Nodes without an anchor (or whose anchor text is not found) fall back to one codegen of the
whole module.

Each codegen stops once the last target's tokens are out (``EARLY_STOP``): the text before
that is enough to place the targets. An anchor's shortened text is a prefix of its whole text;
where the prefix occurs once in the source it is where the whole text is, and where it occurs
more than once the whole text is generated and found as before (identical positions either way).
"""

from __future__ import annotations

from typing import Iterable, Optional

import libcst as cst
from libcst._nodes.internal import CodegenState

Pos = tuple[int, int, int, int]

#: stop each codegen after the last target's tokens (False: the whole anchor, as first written;
#: tests/test_speed12_equivalence.py compares the two)
EARLY_STOP = True


class _Done(Exception):
    """Raised by a stopping ``_MarkingState`` once every target's tokens are out."""


class _MarkingState(CodegenState):
    __slots__ = ("targets", "marks", "left", "stop")

    def __init__(self, default_indent: str, default_newline: str, targets: set[int], stop: bool = False) -> None:
        super().__init__(default_indent=default_indent, default_newline=default_newline)
        self.targets = targets
        self.marks: dict[int, list[int]] = {}
        #: targets whose end is not known yet; with ``stop``, the codegen ends (``_Done``) when
        #: none is left: what follows the last target is not needed
        self.left = len(targets)
        self.stop = stop

    def before_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.targets and id(node) not in self.marks:
            self.marks[id(node)] = [len(self.tokens), -1]

    def after_codegen(self, node: cst.CSTNode) -> None:
        m = self.marks.get(id(node))
        if m is not None and m[1] < 0:
            m[1] = len(self.tokens)
            self.left -= 1
            if self.left == 0 and self.stop:
                raise _Done


def _generate(node: cst.CSTNode, state: _MarkingState) -> bool:
    """Codegen of ``node`` into ``state``; True when it stopped after the last target."""
    try:
        node._codegen(state)
    except _Done:
        return True
    return False


def _positions(state: _MarkingState, line0: int, col0: int) -> dict[int, Pos]:
    """(line, col) of marked ranges; line0/col0: where the generated text starts (1-based line)."""
    tokens = state.tokens
    wanted = sorted({i for m in state.marks.values() for i in m if i >= 0} | {len(tokens)})
    at: dict[int, tuple[int, int]] = {}
    line, col = line0, col0
    wi, nw = 0, len(wanted)
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
    out: dict[int, Pos] = {}
    for nid, (s, e) in state.marks.items():
        if e < 0:
            e = len(tokens)
        while s < e and not tokens[s].strip():
            s += 1
        while e > s and not tokens[e - 1].strip():
            e -= 1
        if s >= len(tokens):
            continue
        sl, sc = at[s] if s in at else _walk(tokens, s, line0, col0)
        tok = tokens[s]
        lead = len(tok) - len(tok.lstrip())
        if "\n" in tok[:lead]:
            sl += tok[:lead].count("\n")
            sc = lead - tok[:lead].rfind("\n") - 1
        else:
            sc += lead
        if e > s:
            el, ec = at[e - 1] if (e - 1) in at else _walk(tokens, e - 1, line0, col0)
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


def _walk(tokens: list[str], index: int, line0: int, col0: int) -> tuple[int, int]:
    text = "".join(tokens[:index])
    nl = text.count("\n")
    if nl:
        return line0 + nl, len(text) - text.rfind("\n") - 1
    return line0, col0 + len(text)


def resolve_positions(
    module: cst.Module,
    source: str,
    items: Iterable[tuple[cst.CSTNode, Optional[tuple]]],
) -> dict[int, Pos]:
    """Map id(node) -> (line, col, end_line, end_col), 1-based, for (node, anchor) items."""
    groups: dict[int, tuple[tuple, set[int]]] = {}
    loose: set[int] = set()
    for node, anchor in items:
        if anchor is not None and anchor[0] is not None and anchor[1] is not None:
            g = groups.setdefault(id(anchor[0]), (anchor, set()))
            g[1].add(id(node))
        else:
            loose.add(id(node))
    out: dict[int, Pos] = {}
    for (anchor_node, indent), targets in groups.values():
        # the anchor's text up to its last target's end: where that prefix occurs once in the
        # source, it is where the anchor's whole text is (which starts with it); else the whole
        # text decides, as it always did (tests/test_speed12_equivalence.py)
        state = _MarkingState(module.default_indent, module.default_newline, targets, stop=EARLY_STOP)
        if indent:
            state.indent_tokens.append(indent)
        partial = _generate(anchor_node, state)
        text = "".join(state.tokens)
        off = source.find(text)
        if partial and off >= 0 and source.find(text, off + 1) >= 0:
            state = _MarkingState(module.default_indent, module.default_newline, targets)
            if indent:
                state.indent_tokens.append(indent)
            anchor_node._codegen(state)
            text = "".join(state.tokens)
            off = source.find(text)
        if off < 0 or (off > 0 and source[off - 1] != "\n"):
            loose |= targets
            continue
        line0 = source.count("\n", 0, off) + 1
        out.update(_positions(state, line0, 0))
        loose |= targets - set(out)
    if loose:
        state = _MarkingState(module.default_indent, module.default_newline, loose, stop=EARLY_STOP)
        _generate(module, state)  # (from the module's first line: nothing to find)
        out.update(_positions(state, 1, 0))
    return out
