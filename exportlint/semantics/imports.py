"""Import alias resolution: our own, cheaper than libcst's QualifiedNameProvider.

``import torch.nn.functional as F`` maps ``F`` -> ``torch.nn.functional``;
``from torch import fft`` maps ``fft`` -> ``torch.fft``; ``import torch`` maps ``torch``;
relative imports keep their dots (``from .layers import Mlp`` -> ``.layers.Mlp``).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst


def dotted(expr: cst.BaseExpression) -> Optional[str]:
    """'a.b.c' for a Name/Attribute chain, else None."""
    parts: list[str] = []
    # (exact types: libcst's concrete nodes have no subclasses; isinstance against them goes
    # through the ABC machinery, and this runs for most calls and attributes of a file)
    while type(expr) is cst.Attribute:
        parts.append(expr.attr.value)
        expr = expr.value
    if type(expr) is cst.Name:
        parts.append(expr.value)
        return ".".join(reversed(parts))
    return None


def _module_name(node: cst.BaseExpression) -> str:
    return dotted(node) or ""


class ImportMap:
    __slots__ = ("names",)

    def __init__(self) -> None:
        #: local name -> qualified name
        self.names: dict[str, str] = {}

    def copy(self) -> "ImportMap":
        m = ImportMap()
        m.names = dict(self.names)
        return m

    def add(self, stmt: cst.CSTNode) -> None:
        if isinstance(stmt, cst.Import):
            for alias in stmt.names:
                full = _module_name(alias.name)
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    self.names[alias.asname.name.value] = full
                else:
                    top = full.split(".", 1)[0]
                    self.names[top] = top
        elif isinstance(stmt, cst.ImportFrom):
            mod = _module_name(stmt.module) if stmt.module is not None else ""
            dots = "." * len(stmt.relative)
            base = dots + mod
            if isinstance(stmt.names, cst.ImportStar):
                return
            for alias in stmt.names:
                name = _module_name(alias.name)
                local = name
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    local = alias.asname.name.value
                if base.endswith("."):
                    self.names[local] = base + name
                else:
                    self.names[local] = f"{base}.{name}" if base else name

    def resolve_dotted(self, name: str) -> str:
        head, _, rest = name.partition(".")
        q = self.names.get(head)
        if q is None:
            return name
        return f"{q}.{rest}" if rest else q

    def resolve(self, expr: cst.BaseExpression) -> Optional[str]:
        """Qualified name of a Name/Attribute chain whose head is imported, else None."""
        d = dotted(expr)
        if d is None:
            return None
        head, _, rest = d.partition(".")
        q = self.names.get(head)
        if q is None:
            return None
        return f"{q}.{rest}" if rest else q
