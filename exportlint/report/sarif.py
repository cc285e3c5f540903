"""SARIF 2.1.0 (validated against the OASIS schema in the tests)."""

from __future__ import annotations

from pathlib import Path

from exportlint import __version__
from exportlint.findings import Finding, Severity
from exportlint.ruledocs import doc_url, load_doc

LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _uri(path: str) -> str:
    p = Path(path)
    if p.is_absolute():
        return p.as_uri()
    return p.as_posix()


def to_sarif(findings: list[Finding]) -> dict:
    from exportlint.checks.base import all_rules

    rules = all_rules()
    rule_ids = sorted(rules)
    index = {c: i for i, c in enumerate(rule_ids)}
    sarif_rules = []
    for code in rule_ids:
        cls = rules[code]
        doc = load_doc(code)
        help_md = doc.text if doc else cls.summary
        sarif_rules.append(
            {
                "id": code,
                "name": cls.name,
                "shortDescription": {"text": cls.summary or cls.name},
                "fullDescription": {"text": (doc.summary() if doc else cls.summary) or cls.summary or cls.name},
                "helpUri": doc_url(code),
                "help": {"text": cls.summary or cls.name, "markdown": help_md},
                "defaultConfiguration": {"level": LEVEL[cls.severity]},
                "properties": {"exporters": list(cls.exporters), "tags": ["export", cls.name]},
            }
        )
    results = []
    for f in findings:
        r = {
            "ruleId": f.code,
            "level": LEVEL[f.severity],
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(f.path)},
                        "region": {
                            "startLine": max(f.line, 1),
                            "startColumn": max(f.column, 1),
                            "endLine": max(f.end_line, 1),
                            "endColumn": max(f.end_column, 1),
                        },
                    }
                }
            ],
            "properties": {"exporters": list(f.exporters)},
        }
        if f.code in index:
            r["ruleIndex"] = index[f.code]
        if f.related:
            r["relatedLocations"] = [
                {
                    "id": i,
                    "message": {"text": rel.message},
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(rel.path)},
                        "region": {"startLine": max(rel.line, 1), "startColumn": max(rel.column, 1)},
                    },
                }
                for i, rel in enumerate(f.related)
            ]
        if f.verdict:
            r["properties"]["verdict"] = f.verdict
        if f.fix is not None:
            fx = f.fix
            r["fixes"] = [
                {
                    "description": {"text": f"{fx.safety.value} fix: {fx.description}".strip()},
                    "artifactChanges": [
                        {
                            "artifactLocation": {"uri": _uri(f.path)},
                            "replacements": [
                                {
                                    "deletedRegion": {
                                        "startLine": fx.line or f.line,
                                        "startColumn": fx.column or f.column,
                                        "endLine": fx.end_line or f.end_line,
                                        "endColumn": fx.end_column or f.end_column,
                                    },
                                    "insertedContent": {"text": fx.replacement},
                                }
                            ],
                        }
                    ],
                }
            ]
        results.append(r)
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "exportlint",
                        "version": __version__,
                        "informationUri": "https://github.com/exportlint/exportlint",
                        "rules": sarif_rules,
                    }
                },
                "results": results,
            }
        ],
    }
