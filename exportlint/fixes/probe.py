"""Branch probes for rewrite verification: ``hit(id, cond)`` records the truth value a branch
condition took and returns the condition unchanged (the probe copy of the project wraps each
rewritten branch's test in it). Imported only inside verification workers."""

from __future__ import annotations

from typing import Any

#: probe id -> truth values seen since the last reset()
SEEN: dict[str, set[bool]] = {}


def hit(pid: str, cond: Any) -> Any:
    try:
        SEEN.setdefault(pid, set()).add(bool(cond))
    except Exception:  # noqa: BLE001 - a condition that has no truth value: the original raises too
        pass
    return cond


def reset() -> dict[str, set[bool]]:
    out = {k: set(v) for k, v in SEEN.items()}
    SEEN.clear()
    return out
