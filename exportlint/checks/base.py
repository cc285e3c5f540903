"""Rule base class and registry.

A rule is a class with its metadata (code, name, default severity, the exporters it breaks)
and a ``check(ctx)`` generator. Rules never parse and never print: they read the semantic
model (``ctx.model``) and call ``ctx.report(node, ...)``. Documentation lives in
``rules/<CODE>.md`` (see ``exportlint.ruledocs``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterator, Optional

from exportlint.findings import EXPORTERS, Severity

if TYPE_CHECKING:  # pragma: no cover
    from exportlint.context import FileContext

_CODE_RE = re.compile(r"^EXL\d{3}$")

#: code -> rule class, filled by @register
REGISTRY: dict[str, type["Rule"]] = {}


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]  # kebab-case
    severity: ClassVar[Severity] = Severity.ERROR
    exporters: ClassVar[tuple[str, ...]] = EXPORTERS
    summary: ClassVar[str] = ""
    #: rules that need the whole file (not only export-path functions) set this
    scope: ClassVar[str] = "export-path"  # or "file" or "engine"

    def check(self, ctx: "FileContext") -> Iterator[None]:  # pragma: no cover - abstract
        raise NotImplementedError
        yield


def register(cls: type[Rule]) -> type[Rule]:
    code = cls.code
    if not _CODE_RE.match(code):
        raise ValueError(f"bad rule code {code!r} on {cls.__name__}")
    if code in REGISTRY and REGISTRY[code] is not cls:
        raise ValueError(f"rule code {code} registered twice: {REGISTRY[code].__name__} and {cls.__name__}")
    for e in cls.exporters:
        if e not in EXPORTERS:
            raise ValueError(f"{code}: unknown exporter {e!r}")
    if not re.match(r"^[a-z0-9]+(-[a-z0-9]+)*$", cls.name):
        raise ValueError(f"{code}: rule name must be kebab-case: {cls.name!r}")
    REGISTRY[code] = cls
    return cls


#: (kinds suffix, summary): what a rule needs to know about a function of another file that a
#: call reaches, computed when that file is analysed and handed to the caller's file with the
#: callee's result kind (``SemanticModel.call_returns[<callee key> + suffix]``). ``summary(model,
#: facts)`` returns a non-empty string, or "" / None for nothing; a caller whose call may reach
#: several callees gets one that any of them gives. The engine asks them without naming a rule.
CALLEE_SUMMARIES: list[tuple[str, Callable[[Any, Any], Optional[str]]]] = []


def callee_summary(suffix: str) -> Callable:
    """Registers ``fn(model, facts)`` as the callee summary stored under ``suffix``."""
    if not suffix.startswith("#") or "." in suffix:
        # the engine finds the summaries among a callee's stored kinds by this shape (a warm run
        # never imports the rules that register them)
        raise ValueError(f"callee summary suffix {suffix!r}: '#' first, no '.'")

    def deco(fn: Callable[[Any, Any], Optional[str]]) -> Callable[[Any, Any], Optional[str]]:
        if any(s == suffix for s, _ in CALLEE_SUMMARIES):
            raise ValueError(f"callee summary {suffix!r} registered twice")
        CALLEE_SUMMARIES.append((suffix, fn))
        return fn
    return deco


def all_rules() -> dict[str, type[Rule]]:
    # importing the package registers every family
    import exportlint.checks  # noqa: F401

    return dict(sorted(REGISTRY.items()))
