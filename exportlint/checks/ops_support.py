"""Opset facts of the installed exporters, read from rules/export_api.json (generated)."""

from __future__ import annotations

from typing import Optional

from exportlint.export_api import load


def opset_range(exporter: str) -> tuple[Optional[int], Optional[int]]:
    data = load()
    if data is None or exporter not in data.get("opsets", {}):
        return None, None
    lo, hi, _ = data["opsets"][exporter]
    return lo, hi


def default_opset(exporter: str) -> Optional[int]:
    data = load()
    if data is None or exporter not in data.get("opsets", {}):
        return None
    return data["opsets"][exporter][2]
