"""The order in which a project run analyses its files the first time: importers first.

A file's analysis takes the calls other files make into it (``semantics.project.Root``) as
inputs. Analysed before its callers, a helper file is analysed a second time once their calls
are known; analysed after them, once. On timm's models+layers the first, discarded analyses of
the helper files that later got calls cost ~0.2 s of a ~3.5 s cold run. So the first round
hands files out one at a time, importers before the files they import (a scan of each text
for its module-level ``import a.b`` and ``from .x import y``, resolved inside the run's
files), each with the calls the files before it found. The order only changes how soon the
rounds settle, never what they settle on: every file is analysed again while its inputs
change.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

#: ``from <dots><module> import <names>`` and ``import <module>`` at the start of a line, not
#: indented: the module's own imports (an import inside a function runs when it is called: a
#: converter importing its sibling back would otherwise make a cycle of two model files)
_IMPORT = re.compile(
    rb"^(?:from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)|import[ \t]+([\w.]+))",
    re.M,
)
#: ``_IMPORT`` run over ``b"\n" + text``: the same matches (no match ends at a line start, so
#: starting at the line break before a line finds what starting at the line does), found six
#: times as fast: a pattern that starts with a literal is tried only where that character is,
#: one that starts with ``^`` at every character. tests/test_speed12_equivalence.py
_IMPORT_NL = re.compile(
    rb"\n(?:from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)|import[ \t]+([\w.]+))"
)
_NAME = re.compile(rb"[A-Za-z_]\w*")


def callers_first(paths: list[str], texts: dict[str, bytes]) -> list[str]:
    """``paths`` reordered so that a file comes before the files of ``paths`` it imports
    (depth-first; an import cycle is cut where the walk meets it). Stable otherwise."""
    from exportlint.semantics.index import absolute
    from exportlint.semantics.project import package_root

    if len(paths) < 2:
        return list(paths)
    mod_of: dict[str, tuple[str, bool]] = {}
    by_mod: dict[str, str] = {}
    for p in paths:
        try:
            _, module, is_pkg = package_root(Path(os.path.abspath(p)))
        except OSError:
            continue
        mod_of[p] = (module, is_pkg)
        by_mod.setdefault(module, p)
    edges: dict[str, list[str]] = {}
    for p in paths:
        if p not in mod_of:
            continue
        module, is_pkg = mod_of[p]
        pkg = module if is_pkg else module.rpartition(".")[0]
        out: list[str] = []
        for m in _IMPORT_NL.finditer(b"\n" + texts.get(p, b"")):
            if m.group(4) is not None:
                names = [m.group(4).decode("ascii", "replace")]
            else:
                base = absolute(pkg, len(m.group(1)), m.group(2).decode("ascii", "replace") or None)
                names = [base] + [f"{base}.{n.decode('ascii', 'replace')}" if base else n.decode("ascii", "replace")
                                  for n in _NAME.findall(m.group(3))]
            for n in names:
                q = by_mod.get(n)
                if q is not None and q != p:
                    out.append(q)
        edges[p] = out
    # reverse post-order of a depth-first walk (iterative): importers before what they import;
    # the walk starts from the files fewest others import (where an import cycle is cut then
    # decides less)
    indeg: dict[str, int] = {}
    for out in edges.values():
        for q in set(out):
            indeg[q] = indeg.get(q, 0) + 1
    rank = {p: i for i, p in enumerate(paths)}
    starts = sorted(paths, key=lambda p: (-indeg.get(p, 0), -rank[p]))
    seen: set[str] = set()
    post: list[str] = []
    for start in starts:
        if start in seen:
            continue
        seen.add(start)
        stack = [(start, iter(edges.get(start, ())))]
        while stack:
            node, it = stack[-1]
            nxt = next((q for q in it if q not in seen), None)
            if nxt is None:
                stack.pop()
                post.append(node)
            else:
                seen.add(nxt)
                stack.append((nxt, iter(edges.get(nxt, ()))))
    post.reverse()
    return post
