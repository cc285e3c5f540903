"""Read the generated op-support table (``rules/op_support.json``) without importing torch.

The table is produced by ``exportlint ops generate`` (``exportlint.ops.generate``). Loading
is lazy and cached: the first lookup parses the file once per process (a few ms).

Shape of an API record (``apis[qualname]``)::

    {"aten": [...aten overloads it dispatches to...],
     "fail": {exporter: "ErrorType: short message"},   # failed for every sample tried ("Diverged:
                                                        # ..." for a curated probe whose ONNX export
                                                        # succeeded and onnxruntime disagreed)
     "mixed": [exporter, ...],                          # failed for some samples only
     "error": {exporter: "..."},                        # failed every sample, but not for a
                                                        # missing translation: maybe the
                                                        # sample's arguments; never reported
     "opset": {exporter: N},                            # lowest opset that works (> 9)
     "params": {kw: [position or null, default]},       # keywords the variants depend on
     "variants": [{"when": {kw: value}, "fail": ..., "opset": ...}, ...],
     "module": true,                                    # nn.Module: matched at construction
     "src": "opinfo" | "curated" | "module_db" | ...}

Exporters with no ``fail``/``mixed`` entry exported every sample. ``aliases`` map other
names (Tensor methods, torch aliases) to a record; ``"method": true`` means the call form
drops the input argument (positions shift by one).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

FILE_NAME = "op_support.json"


class _Unknown:
    """A keyword value that is present but not a literal (``mode=self.mode``)."""

    __slots__ = ()

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()
#: a variant condition meaning "given and not None" (``torch.median(x, dim)``)
GIVEN = "$given"
#: a variant condition / default meaning "not passed at all" (``torch.sort(x)`` vs ``stable=False``)
ABSENT = "$absent"


def default_path() -> Optional[Path]:
    here = Path(__file__).resolve().parent.parent
    for cand in (here / "_rules" / FILE_NAME, here.parent / "rules" / FILE_NAME):
        if cand.is_file():
            return cand
    return None


class OpTable:
    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.meta: dict[str, Any] = data.get("meta", {})
        self.apis: dict[str, dict[str, Any]] = data.get("apis", {})
        self.aliases: dict[str, dict[str, Any]] = data.get("aliases", {})
        self.registries: dict[str, Any] = data.get("registries", {})
        #: nn module classes with no record whose forward wraps one functional that has one
        self.module_forward: dict[str, str] = data.get("module_forward", {})

    # ----- lookups -----
    def lookup(self, qualname: str) -> Optional[tuple[str, dict[str, Any], bool]]:
        """(record name, record, is_method_form) for a public API name, else None."""
        rec = self.apis.get(qualname)
        if rec is not None:
            return qualname, rec, qualname.startswith("torch.Tensor.")
        al = self.aliases.get(qualname)
        if al is not None:
            target = self.apis.get(al["to"])
            if target is not None:
                return al["to"], target, bool(al.get("method"))
        return None

    def module_functional(self, qualname: str) -> Optional[tuple[str, dict[str, Any]]]:
        """(functional name, record) for ``self.m(...)`` where ``self.m = qualname(...)``: the
        module has no record of its own and its forward only calls that functional. Only records
        that do not depend on keyword arguments (a module passes its own arguments)."""
        target = self.module_forward.get(qualname)
        rec = self.apis.get(target) if target else None
        if rec is None or rec.get("params") or rec.get("module"):
            return None
        if any(v.get("when") for v in rec.get("variants", ())):
            return None  # (a curated probe with no keywords has one variant that holds for every call)
        return target, rec

    def default_opset(self, exporter: str) -> Optional[int]:
        reg = self.registries.get(exporter)
        return reg.get("default_opset") if reg else None

    def dynamo_baseline_opset(self) -> int:
        """Lowest opset the dynamo exporter reaches for the most basic ops (torch.add ...).

        Asking for less keeps every model at the torchlib opset, whatever it calls; that is an
        opset-configuration problem, not one of a particular API.
        """
        return int(self.registries.get("onnx-dynamo", {}).get("baseline_opset", 0))

    @property
    def versions(self) -> dict[str, str]:
        return self.meta.get("versions", {})


@lru_cache(maxsize=4)
def load(path: Optional[str] = None) -> Optional[OpTable]:
    p = Path(path) if path else default_path()
    if p is None or not p.is_file():
        return None
    with open(p, "rb") as f:
        return OpTable(json.loads(f.read()))


# ---------------------------------------------------------------------------------------
# evaluation of a call against a record (pure: the rule module passes literal values)
# ---------------------------------------------------------------------------------------


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if type(a) in (int, float) and type(b) in (int, float):
        return a == b
    return type(a) is type(b) and a == b


def _matches(cond: Any, value: Any) -> bool:
    if value is UNKNOWN:
        # a non-literal value: consistent with anything except "absent"
        return True
    if cond == GIVEN:
        return value is not None
    return _same(cond, value)


def candidates(rec: dict[str, Any], values: dict[str, Any]) -> Optional[list[dict[str, Any]]]:
    """Variants consistent with the call's keyword values, or None for "use the plain record".

    ``values`` maps each keyword of ``rec["params"]`` to its literal value, ``UNKNOWN`` when
    present but not a literal, or the default when absent (the caller fills defaults).
    """
    variants = rec.get("variants")
    if not variants:
        return None
    out = []
    for v in variants:
        when = v.get("when", {})
        if all(_matches(c, values.get(k, UNKNOWN)) for k, c in when.items()):
            out.append(v)
    return out or None


def failures(rec: dict[str, Any], values: dict[str, Any]) -> tuple[dict[str, str], Optional[dict[str, Any]]]:
    """Exporters that fail this call for sure, with the error text; and the variant used.

    With keyword variants, an exporter fails the call only when it failed every variant the
    call may be (an unknown keyword value leaves several). A combination never probed falls
    back to the plain record, which fails only where every sample failed.
    """
    cands = candidates(rec, values)
    if cands is None:
        return dict(rec.get("fail", {})), None
    out: dict[str, str] = {}
    for ex in sorted({e for v in cands for e in v.get("fail", {})}):
        if all(ex in v.get("fail", {}) for v in cands):
            out[ex] = cands[0]["fail"][ex]
    return out, (cands[0] if len(cands) == 1 else None)


def min_opsets(rec: dict[str, Any], values: dict[str, Any]) -> dict[str, int]:
    """Exporter -> lowest opset that works for this call, where every candidate agrees it is > 9."""
    cands = candidates(rec, values)
    if cands is None:
        cands = [rec]
    out: dict[str, int] = {}
    for ex in ("onnx-dynamo", "onnx-legacy"):
        ns = []
        for v in cands:
            if ex in v.get("fail", {}) or ex in v.get("mixed", ()) or ex in v.get("error", {}):
                ns = []
                break
            n = v.get("opset", {}).get(ex)
            if n is None:
                ns = []
                break
            ns.append(n)
        if ns:
            out[ex] = min(ns)
    return out


def passing_exporters(rec: dict[str, Any], values: dict[str, Any], exporters: tuple[str, ...]) -> list[str]:
    """Exporters that exported every candidate of this call (for "exports with ..." hints)."""
    cands = candidates(rec, values) or [rec]
    out = []
    for ex in exporters:
        if all(ex not in v.get("fail", {}) and ex not in v.get("mixed", ()) and ex not in v.get("error", {})
               for v in cands):
            out.append(ex)
    return out
