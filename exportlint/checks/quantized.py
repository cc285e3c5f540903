"""EXL404: eager-mode quantized models.

Measured with torch 2.13: a model converted with ``torch.ao.quantization.convert`` (or
``quantize_dynamic``, or prepared with observers) fails torch.export strict / non-strict and
therefore onnx-dynamo, with messages that name no line of the user's model; the legacy
exporter translates it op by op (a converted conv exports; ``quantized::linear_dynamic``
does not). One finding per conversion call, and one per model class that builds quantized
modules itself.
"""

from __future__ import annotations

import os

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import snippet
from exportlint.findings import Severity
from exportlint.semantics.apis import QUANT_CONVERSIONS, STATIC_QUANT_CONVERSIONS
from exportlint.semantics.model import iter_nodes

_NAMESPACES = ("torch.ao.quantization.", "torch.quantization.")
_CONVERSIONS = frozenset(QUANT_CONVERSIONS)
_QUANT_MODULE_PREFIXES = ("torch.ao.nn.quantized.", "torch.nn.quantized.", "torch.ao.nn.intrinsic.quantized.",
                          "torch.nn.intrinsic.quantized.")

#: float modules that quantizable models build and ``convert`` swaps for quantized ones: before
#: conversion they export with every exporter (measured, torch 2.13: a forward doing
#: ``self.ff.add(conv(x), x)`` passes strict, non-strict, onnx-dynamo and onnx-legacy), so they
#: are reported only through a conversion (the stub call of a converted model)
_FLOAT_STANDINS = frozenset({"FloatFunctional", "FXFloatFunctional"})


@register
class EagerQuantizedModel(Rule):
    code = "EXL404"
    name = "eager-quantized-model"
    severity = Severity.ERROR
    exporters = ("export-strict", "export-nonstrict", "onnx-dynamo")
    summary = "An eager-mode quantized model (torch.ao.quantization convert/prepare, quantized modules)."
    scope = "file"

    def check(self, ctx):
        if "quantiz" not in ctx.text:
            return ()  # cheap pre-check: no quantization API named in the file
        imports = ctx.model.imports
        converts = False
        for n in iter_nodes(ctx.module):
            if not isinstance(n, cst.Call):
                continue
            q = imports.resolve(n.func) or ""
            if q.rsplit(".", 1)[0] + "." in _NAMESPACES and q.rsplit(".", 1)[-1] in _CONVERSIONS:
                # static quantization turns QuantStubs into quantize ops (quantize_dynamic leaves
                # them identities)
                converts = converts or q.rsplit(".", 1)[-1] in STATIC_QUANT_CONVERSIONS
                what = q.rsplit(".", 1)[-1]
                ctx.report(
                    n,
                    f"`{snippet(ctx, n)}` makes an eager-mode {'prepared (observed)' if what.startswith('prepare') else 'quantized'} "
                    "model: torch.export (strict and non-strict) and onnx-dynamo reject it with errors that name "
                    "no line of the model (packed params have no `__obj_flatten__`, observer hooks are skipped); "
                    "the legacy exporter translates it op by op where it can. Export the float model, or "
                    "quantize the exported program (PT2E: torchao `prepare_pt2e`/`convert_pt2e`, or ONNX Runtime "
                    "quantization of the ONNX file).",
                )
        if converts:
            self._stub_calls(ctx, "this file converts")
        elif getattr(ctx, "project_quant_convert", None) is not None:
            # the conversion is elsewhere in the project (a `quantize_model()` helper)
            qp, ql = _cited_conversion(ctx, ctx.project_quant_convert)
            self._stub_calls(ctx, f"the project converts (`{os.path.basename(qp)}:{ql}`)")
        for cls in ctx.model.classes.values():
            if not cls.is_module:
                continue
            for attr in cls.attrs.values():
                v = attr.value
                if not isinstance(v, cst.Call):
                    continue
                q = imports.resolve(v.func) or ""
                if q.startswith(_QUANT_MODULE_PREFIXES) and q.rsplit(".", 1)[-1] not in _FLOAT_STANDINS:
                    ctx.report(
                        cls.node.name,
                        f"`{cls.name}` builds quantized modules (`{snippet(ctx, v)}`): an eager-mode quantized model "
                        "fails torch.export (strict and non-strict) and onnx-dynamo with errors that name no line "
                        "of the model. Export the float model and quantize the exported program (PT2E or ONNX "
                        "Runtime quantization).",
                    )
                    break
        return ()


    def _stub_calls(self, ctx, where: str) -> None:
        """The file converts a model: where the forward of a class with a ``QuantStub`` enters
        the quantized part is the line torch.export stops at (measured, torch 2.13: strict
        fails at ``x = self.quant(x)`` of the converted model; non-strict and onnx-dynamo fail
        with no line of the model)."""
        imports = ctx.model.imports
        for fn in ctx.model.functions:
            cls = fn.cls
            if cls is None or not cls.is_module or fn.node.name.value != "forward":
                continue
            stubs = set()
            for name, attr in cls.attrs.items():
                v = attr.value
                if isinstance(v, cst.Call):
                    q = imports.resolve(v.func) or ""
                    if q.rsplit(".", 1)[0] + "." in _NAMESPACES and q.rsplit(".", 1)[-1] == "QuantStub":
                        stubs.add(name)
            if not stubs:
                continue
            for call in fn.calls:
                f = call.node.func
                if (isinstance(f, cst.Attribute) and f.attr.value in stubs and isinstance(f.value, cst.Name)
                        and f.value.value == "self"):
                    ctx.report(
                        call.node,
                        f"`{snippet(ctx, call.node)}` quantizes the input of `{cls.name}`, which {where} "
                        "to an eager-mode quantized model: torch.export (strict) stops here, non-strict and "
                        "onnx-dynamo reject the converted model with errors that name no line of it; the legacy "
                        "exporter translates it op by op where it can. Export the float model and quantize the "
                        "exported program (PT2E, or ONNX Runtime quantization).",
                    )
                    break


def _cited_conversion(ctx, sites: tuple) -> tuple[str, int]:
    """The conversion site to cite: one in a project module this file imports a name from
    (``from .utils import quantize_model``), else the first in path order."""
    here = os.path.dirname(os.path.abspath(ctx.path))
    wanted: set[str] = set()  # absolute path stems (relative imports), dotted suffixes (absolute)
    for q in ctx.model.imports.names.values():
        mod = q.rpartition(".")[0]
        for m in {q, mod}:
            if m.startswith("."):
                dots = len(m) - len(m.lstrip("."))
                base = here
                for _ in range(dots - 1):
                    base = os.path.dirname(base)
                rest = m[dots:]
                if rest:
                    wanted.add(os.path.join(base, *rest.split(".")))
            elif m:
                wanted.add("." + m)
    for path, line in sites:
        stem = os.path.splitext(os.path.abspath(path))[0]
        if stem.endswith(os.sep + "__init__"):
            stem = stem[: -len(os.sep + "__init__")]
        dotted_stem = stem.replace(os.sep, ".")
        if stem in wanted or any(w.startswith(".") and dotted_stem.endswith(w) for w in wanted):
            return path, line
    return sites[0]
