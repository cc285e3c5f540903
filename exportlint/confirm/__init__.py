"""Trial trace-and-export (``--confirm``): really export the user's targets, each in its own
process, and turn static predictions into verdicts. Nothing here imports torch at import
time; only the worker process does.
"""

from __future__ import annotations

from typing import Any

__all__ = ["run_confirm", "ConfirmResult", "TargetResult", "ExporterOutcome"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from exportlint.confirm import api

        return getattr(api, name)
    raise AttributeError(name)
