"""EXL9xx: produced only by ``--confirm`` (trial export); registered for docs and selection."""

from exportlint.checks.base import Rule, register
from exportlint.findings import EXPORTERS, Severity


@register
class ExportFailedUnpredicted(Rule):
    code = "EXL901"
    name = "export-failed"
    severity = Severity.ERROR
    exporters = EXPORTERS
    summary = "An exporter failed at a location no static rule predicted (from --confirm)."
    scope = "engine"


@register
class SilentDivergence(Rule):
    code = "EXL902"
    name = "silent-divergence"
    severity = Severity.ERROR
    exporters = EXPORTERS
    summary = "The exported program disagrees with eager on another input (from --confirm)."
    scope = "engine"
