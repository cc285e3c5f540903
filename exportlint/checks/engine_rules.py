"""EXL0xx: findings the engine itself produces (parse errors, bad suppressions)."""

from exportlint.checks.base import Rule, register
from exportlint.findings import Severity


@register
class ParseError(Rule):
    code = "EXL001"
    name = "parse-error"
    severity = Severity.ERROR
    exporters = ()
    summary = "The file cannot be decoded or parsed, so nothing in it was checked."
    scope = "engine"


@register
class UnknownSuppression(Rule):
    code = "EXL002"
    name = "unknown-suppression-code"
    severity = Severity.WARNING
    exporters = ()
    summary = "A suppression comment names a rule code that does not exist."
    scope = "engine"


@register
class TooDeep(Rule):
    code = "EXL003"
    name = "too-deep-to-analyse"
    severity = Severity.ERROR
    exporters = ()
    summary = "The file nests deeper than Python's (or exportlint's) parser accepts, so nothing in it was checked."
    scope = "engine"
