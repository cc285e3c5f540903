"""The finding: what every check produces and every reporter consumes.

Positions are 1-based lines and 1-based columns (columns count characters), like ruff and
pytest. The LSP reporter converts to 0-based.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Optional

#: The exporters exportlint knows, with the names used everywhere (config, output, docs).
EXPORTERS: tuple[str, ...] = ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")

EXPORTER_TITLES: dict[str, str] = {
    "export-strict": "torch.export (strict=True)",
    "export-nonstrict": "torch.export (non-strict, the default)",
    "onnx-dynamo": "torch.onnx.export (dynamo=True, the default)",
    "onnx-legacy": "torch.onnx.export (dynamo=False, TorchScript)",
}


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]


class FixSafety(str, enum.Enum):
    #: behaviour cannot change; may be applied automatically
    SAFE = "safe"
    #: behaviour may change (e.g. torch.where evaluates both branches); verify first
    UNSAFE = "unsafe"
    #: a suggestion to read, not to apply mechanically
    DISPLAY = "display"


@dataclass(frozen=True)
class Fix:
    """A suggested replacement of the source range of the finding (or of ``start..end``)."""

    replacement: str
    safety: FixSafety = FixSafety.UNSAFE
    description: str = ""
    # optional explicit range (1-based line/col); defaults to the finding's range
    line: Optional[int] = None
    column: Optional[int] = None
    end_line: Optional[int] = None
    end_column: Optional[int] = None
    #: short name of the edit for menus and --show-fixes (e.g. "torch.where (evaluates both sides)")
    title: str = ""
    #: rewrite family for data-dependent control flow: "where" | "cond" | "guard" | "item" | "" (other fixes)
    kind: str = ""
    #: set by --confirm: True when the rewritten model exported and matched eager (--fix applies it);
    #: False when it failed (never applied); None when not checked or not conclusive (stays unsafe)
    verified: Optional[bool] = None
    #: --confirm's report on the rewrite: exporters, max_abs, branches covered, message
    verification: Optional[dict] = None

    @property
    def applicable_safety(self) -> "FixSafety":
        """What --fix treats the fix as: a verified rewrite is applied like a safe fix."""
        if self.verified and self.safety == FixSafety.UNSAFE:
            return FixSafety.SAFE
        return self.safety

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "replacement": self.replacement,
            "safety": self.safety.value,
            "description": self.description,
        }
        if self.line is not None:
            d.update(line=self.line, column=self.column, end_line=self.end_line, end_column=self.end_column)
        if self.title:
            d["title"] = self.title
        if self.kind:
            d["kind"] = self.kind
        if self.verified is not None:
            d["verified"] = self.verified
        if self.verification is not None:
            d["verification"] = self.verification
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Fix":
        return cls(
            replacement=d["replacement"],
            safety=FixSafety(d.get("safety", "unsafe")),
            description=d.get("description", ""),
            line=d.get("line"),
            column=d.get("column"),
            end_line=d.get("end_line"),
            end_column=d.get("end_column"),
            title=d.get("title", ""),
            kind=d.get("kind", ""),
            verified=d.get("verified"),
            verification=d.get("verification"),
        )


@dataclass(frozen=True)
class Related:
    """A location related to a finding: one hop of the call chain from an export entry
    (``message`` says what happens there, e.g. "called from Model.forward")."""

    path: str
    line: int
    column: int
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "column": self.column, "message": self.message}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Related":
        return cls(d["path"], int(d["line"]), int(d["column"]), d.get("message", ""))


@dataclass
class Finding:
    code: str
    severity: Severity
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    exporters: tuple[str, ...] = ()
    fix: Optional[Fix] = None
    #: set by --confirm: "confirmed" | "refuted" | "untested" | "not-reached" | None (not checked)
    verdict: Optional[str] = None
    #: free-form details from confirm (exporter messages etc.)
    details: dict[str, Any] = field(default_factory=dict)
    #: the call chain from an export entry when the finding is in a helper reached from
    #: another file (outermost first)
    related: tuple[Related, ...] = ()

    def sort_key(self) -> tuple:
        return (self.path, self.line, self.column, self.code)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "code": self.code,
            "severity": self.severity.value,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "message": self.message,
            "exporters": list(self.exporters),
            "fix": self.fix.to_dict() if self.fix else None,
        }
        if self.verdict is not None:
            d["verdict"] = self.verdict
        if self.details:
            d["details"] = self.details
        if self.related:
            d["related"] = [r.to_dict() for r in self.related]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Finding":
        return cls(
            code=d["code"],
            severity=Severity(d["severity"]),
            path=d["path"],
            line=d["line"],
            column=d["column"],
            end_line=d["end_line"],
            end_column=d["end_column"],
            message=d["message"],
            exporters=tuple(d.get("exporters", ())),
            fix=Fix.from_dict(d["fix"]) if d.get("fix") else None,
            verdict=d.get("verdict"),
            details=d.get("details") or {},
            related=tuple(Related.from_dict(r) for r in d.get("related") or ()),
        )
