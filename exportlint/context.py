"""What a rule sees (``FileContext``) and what it reports (``Reported``).

Shared by the engine (which builds the context) and the rules (which read it), so that
neither imports the other. Project facts (``project_*``) come from the whole-project index
(``exportlint.semantics.project``); they are None when the file is linted without one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Optional

from exportlint.findings import Fix, Severity

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

    from exportlint.config import Config
    from exportlint.semantics.model import SemanticModel


@dataclass
class Reported:
    node: "cst.CSTNode"
    code: str
    message: str
    severity: Severity
    exporters: tuple[str, ...]
    fix: Optional[Fix]
    anchor: Optional[tuple] = None
    fix_node: Any = None


class FileContext:
    """What a rule sees: the file, its parse tree, the semantic model, the config, and the
    project facts (CONTRACTS.md item 1)."""

    def __init__(self, path: str, text: str, module: "cst.Module", model: "SemanticModel", config: "Config") -> None:
        self.path = path
        self.text = text
        self.module = module
        self.model = model
        self.config = config
        self.reported: list[Reported] = []
        self._rule: Any = None  # the rule running (checks.base.Rule)
        #: every ``opset_version=`` literal of export calls in the linted project (None: no project info)
        self.project_opsets: Optional[frozenset[int]] = None
        #: exported model class name -> forward parameter -> dims declared dynamic ("*": unknown dims)
        self.project_dynamic: Optional[dict[str, dict[str, set]]] = None
        #: True: an export call of the project declares a dynamic dim; False: none does; None: unknown
        self.project_declares_dynamic: Optional[bool] = None
        #: (path, line) of a static eager-mode quantization (``torch.ao.quantization.convert``,
        #: ``quantize``, ``quantize_qat``) in a linted file of the project; None: none seen
        #: (path, line) of each project file's eager-quantization conversion (engine._quant_conversion)
        self.project_quant_convert: Optional[tuple[tuple[str, int], ...]] = None
        #: absolute path -> function qual -> name -> the declared dynamic dims (and
        #: ``dim_flow.SIZE``) carried there from a declared model (``semantics.dim_flow``)
        self.project_fn_dims: Optional[dict[str, dict[str, dict[str, set]]]] = None
        #: the project (``semantics.project.Project``) the file is linted in, or None
        self.project: Any = None
        #: computes (once) the calls of this file's export path into other project files
        self._project_calls: Any = None

    def project_calls(self) -> dict:
        """The calls of this file's export path into functions of other project files:
        ``{"calls": [(facts, call node, Target, Root, key)], "forwards": [(facts, call node,
        Target)], "deps": set of paths read}`` (see ``semantics.project.cross_file_calls``);
        empty lists without a project. Rules that read other files through ``self.project``
        add the files they read to ``deps`` (the cache re-lints this file when one changes)."""
        if self._project_calls is None:
            return {"calls": [], "forwards": [], "deps": set()}
        return self._project_calls()

    def report(
        self,
        node: "cst.CSTNode",
        message: str,
        *,
        code: Optional[str] = None,
        severity: Optional[Severity] = None,
        exporters: Optional[Iterable[str]] = None,
        fix: Optional[Fix] = None,
        anchor: Optional[tuple] = None,
        fix_node: Any = None,
    ) -> None:
        """Report a finding at node. ``anchor`` = (FunctionDef, indent) containing it, when the
        rule knows it (it makes positions cheap); otherwise the engine finds it."""
        rule = self._rule
        assert rule is not None, "report() outside a rule"
        exps = tuple(exporters) if exporters is not None else rule.exporters
        self.reported.append(
            Reported(
                node=node,
                code=code or rule.code,
                message=message,
                severity=severity or rule.severity,
                exporters=exps,
                fix=fix,
                anchor=anchor,
                fix_node=fix_node,
            )
        )

    def source_of(self, node: "cst.CSTNode") -> str:
        """The source text of a node (cheap for small expression nodes)."""
        return self.module.code_for_node(node)


__all__ = ["FileContext", "Reported"]
