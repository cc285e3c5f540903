"""EXL5xx: hygiene of the calls that export (in scripts, anywhere in a file)."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import assignments_in_scope, call_exporters, forward_params, model_class_of, snippet
from exportlint.export_api import load as load_export_api
from exportlint.findings import Fix, FixSafety, Severity
from exportlint.semantics.imports import dotted
from exportlint.semantics.model import ExportCall, iter_nodes, literal_value

_WRAPPERS = ("torch.nn.DataParallel", "torch.nn.parallel.DataParallel", "torch.nn.parallel.DistributedDataParallel",
             "torch.nn.parallel.data_parallel.DataParallel", "torch.nn.parallel.distributed.DistributedDataParallel")
_ONNX_APIS = ("torch.onnx.export",)
#: nn.Module methods that return the module itself
_RETURNS_SELF = frozenset("eval train to cpu cuda float double half bfloat16 requires_grad_ share_memory apply".split())


def _scope_calls(scope) -> list[cst.Call]:
    body = scope.body if not isinstance(scope, cst.Module) else scope.body
    out = []
    for st in body if isinstance(body, (list, tuple)) else body.body:
        for n in iter_nodes(st):
            if isinstance(n, cst.Call):
                out.append(n)
            elif isinstance(n, (cst.FunctionDef, cst.ClassDef)) and n is not scope:
                pass
    return out


def _model_name(ec: ExportCall) -> Optional[str]:
    m = ec.model
    return m.value if isinstance(m, cst.Name) else None


@register
class ExportWithoutEval(Rule):
    code = "EXL501"
    name = "export-without-eval"
    severity = Severity.ERROR
    exporters = ("export-strict", "export-nonstrict", "onnx-dynamo")
    summary = "The exported model was never put in eval() mode."
    scope = "file"

    def check(self, ctx):
        for ec in ctx.model.export_calls:
            exps = tuple(e for e in call_exporters(ec) if e in self.exporters)
            if not exps:
                continue  # legacy torch.onnx.export switches to eval itself (training=EVAL)
            if ec.model is None:
                continue
            if _chain_has_eval(ec.model):
                continue
            name = _model_name(ec)
            if name is None:
                if isinstance(ec.model, cst.Call) and model_class_of(ctx, ec) is not None:
                    self._report(ctx, ec, exps)
                continue
            # where does the model come from? only judge models built in this scope
            if isinstance(ec.scope, cst.FunctionDef):
                params = {p.name.value for p in list(ec.scope.params.params) + list(ec.scope.params.kwonly_params)}
                if name in params:
                    continue
            assigns = [v for n, v, _ in assignments_in_scope(ec.scope) if n == name]
            if not assigns:
                continue
            if any(_chain_has_eval(v) for v in assigns):
                continue
            if _eval_called_on(ec.scope, name):
                continue
            if not any(isinstance(v, cst.Call) for v in assigns):
                continue
            if assigns and _through_eval_helper(ctx, assigns[-1]):
                continue
            cls = _reaching_class(ctx, ec, name)
            if cls is not None and _mode_free(ctx, cls, set()):
                # (S-MODEFREE) every layer the class builds computes the same in training and in
                # eval mode (deepfilternet's GroupedGRU: one-layer GRUs; probe s2)
                continue
            self._report(ctx, ec, exps)
        return ()

    def _report(self, ctx, ec: ExportCall, exps) -> None:
        m = snippet(ctx, ec.model)
        ctx.report(
            ec.model,
            f"`{m}` is exported without `{m}.eval()`: dropout and batch-norm are captured in training mode, so "
            "the exported model computes something else than inference. Call `model.eval()` before exporting.",
            exporters=exps,
        )


#: torch.nn layers whose output does not depend on the module's training flag
_MODE_FREE_NN = frozenset("torch.nn." + n for n in (
    "Module Identity Linear Bilinear LazyLinear Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d "
    "ConvTranspose3d LazyConv1d LazyConv2d LazyConv3d Embedding EmbeddingBag LayerNorm GroupNorm RMSNorm "
    "LocalResponseNorm Flatten Unflatten ReLU ReLU6 LeakyReLU PReLU ELU SELU CELU GELU SiLU Mish Sigmoid Tanh "
    "Hardtanh Hardsigmoid Hardswish Softplus Softsign Softmax Softmax2d LogSoftmax Softmin Tanhshrink "
    "Threshold GLU LogSigmoid Hardshrink Softshrink MaxPool1d MaxPool2d MaxPool3d AvgPool1d AvgPool2d "
    "AvgPool3d AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveMaxPool1d AdaptiveMaxPool2d "
    "AdaptiveMaxPool3d LPPool1d LPPool2d Upsample UpsamplingNearest2d UpsamplingBilinear2d PixelShuffle "
    "PixelUnshuffle ChannelShuffle ZeroPad1d ZeroPad2d ZeroPad3d ConstantPad1d ConstantPad2d ConstantPad3d "
    "ReflectionPad1d ReflectionPad2d ReflectionPad3d ReplicationPad1d ReplicationPad2d ReplicationPad3d "
    "CircularPad1d CircularPad2d CircularPad3d Fold Unfold CosineSimilarity PairwiseDistance Parameter "
    "ParameterList ParameterDict ModuleList ModuleDict Sequential").split())
#: recurrent layers: their `dropout` acts between stacked layers only, in training mode
_RNNS = frozenset({"torch.nn.GRU", "torch.nn.LSTM", "torch.nn.RNN"})
#: methods `__init__` calls on objects that never build a module
_INIT_SAFE_METHODS = frozenset({"append", "extend", "insert", "update", "items", "keys", "values", "get",
                                "flatten_parameters", "register_buffer", "register_parameter", "add_module",
                                "reset_parameters", "__init__", "format", "join", "split"})
_SAFE_BUILTINS = frozenset({"range", "len", "int", "float", "bool", "str", "list", "tuple", "dict", "set", "min",
                            "max", "sum", "abs", "round", "zip", "enumerate", "isinstance", "hasattr", "getattr",
                            "super", "print", "sorted", "reversed", "any", "all", "divmod", "map"})


def _reaching_class(ctx, ec: ExportCall, name: str):
    """The local nn.Module class of ``name`` at the export call: the last assignment before the
    call, through ``torch.jit.script(m)`` / ``torch.jit.trace(m, ...)`` and the module methods
    returning the module (``m = torch.jit.script(m)`` reads the ``m`` assigned before it)."""
    order: list[tuple[str, cst.BaseExpression]] = []
    for n in iter_nodes(ec.scope):
        if n is ec.node:
            break
        if isinstance(n, cst.Assign):
            for t in n.targets:
                if isinstance(t.target, cst.Name):
                    order.append((t.target.value, n.value))
        elif isinstance(n, cst.AnnAssign) and isinstance(n.target, cst.Name) and n.value is not None:
            order.append((n.target.value, n.value))
    else:
        return None
    idx = len(order)
    for _ in range(8):
        j = next((j for j in range(idx - 1, -1, -1) if order[j][0] == name), None)
        if j is None:
            return None
        idx, val = j, order[j][1]
        while isinstance(val, cst.Call) and isinstance(val.func, cst.Attribute) and val.func.attr.value in _RETURNS_SELF:
            val = val.func.value
        if (isinstance(val, cst.Call) and val.args and val.args[0].keyword is None and not val.args[0].star
                and (ctx.model.imports.resolve(val.func) or "") in ("torch.jit.script", "torch.jit.trace")):
            val = val.args[0].value
        if isinstance(val, cst.Name):
            name = val.value
            continue
        if isinstance(val, cst.Call):
            c = ctx.model.classes.get(dotted(val.func) or "")
            return c if c is not None and c.is_module else None
        return None
    return None


def _rnn_mode_free(fn: cst.FunctionDef, call: cst.Call) -> bool:
    """``nn.GRU(...)`` with one layer (or no dropout): training mode changes nothing. A
    ``**kwargs`` is read when the function binds it once to a dict display with string keys."""
    kws: dict[str, cst.BaseExpression] = {}
    for i, a in enumerate(call.args):
        if a.star == "**":
            if not isinstance(a.value, cst.Name):
                return False
            vals = [v for n, v, _ in assignments_in_scope(fn) if n == a.value.value]
            if len(vals) != 1 or not isinstance(vals[0], cst.Dict):
                return False
            for el in vals[0].elements:
                k = literal_value(el.key) if isinstance(el, cst.DictElement) else None
                if not isinstance(k, str):
                    return False
                kws[k] = el.value
        elif a.star:
            return False
        elif a.keyword is not None:
            kws[a.keyword.value] = a.value
        elif i >= 2:
            return False  # num_layers (and what follows) given by position
    layers = kws.get("num_layers")
    drop = kws.get("dropout")
    return layers is None or literal_value(layers) == 1 or drop is None or literal_value(drop) in (0, 0.0)


def _mode_free(ctx, cls, seen: set) -> bool:
    """Whether the local nn.Module class computes the same in training and in eval mode: it reads
    no ``.training``, calls no mode-dependent functional, and ``__init__`` (with the methods it
    calls on ``self``) builds only torch.nn layers of ``_MODE_FREE_NN``, one-layer RNNs and local
    classes of the same kind. Anything else it calls there (a constructor handed in as an
    argument, another package's layer, a factory) may build a dropout: not mode-free."""
    if cls.name in seen:
        return True
    seen.add(cls.name)
    local = {b.name for b in cls.local_bases}
    for b in cls.bases:
        if b not in ("torch.nn.Module", "torch.nn.modules.module.Module") and b.rsplit(".", 1)[-1] not in local:
            return False
    if not all(_mode_free(ctx, b, seen) for b in cls.local_bases):
        return False
    resolve = ctx.model.imports.resolve
    strict = {"__init__"}
    todo = ["__init__"]
    while todo:
        fn = cls.methods.get(todo.pop())
        if fn is None:
            continue
        for n in iter_nodes(fn):
            if (isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and isinstance(n.func.value, cst.Name)
                    and n.func.value.value == "self" and n.func.attr.value in cls.methods
                    and n.func.attr.value not in strict):
                strict.add(n.func.attr.value)
                todo.append(n.func.attr.value)
    for mname, fn in cls.methods.items():
        for n in iter_nodes(fn):
            if isinstance(n, cst.Attribute) and n.attr.value == "training":
                return False
            if not isinstance(n, cst.Call):
                continue
            q = resolve(n.func) or ""
            local_cls = ctx.model.classes.get(dotted(n.func) or "")
            if local_cls is not None and local_cls.is_module:
                if not _mode_free(ctx, local_cls, seen):
                    return False
                continue
            if q.startswith("torch.nn.functional."):
                if any(w in q for w in ("dropout", "batch_norm", "instance_norm", "rrelu")):
                    return False
                continue
            if q.startswith("torch.nn.") and q.rsplit(".", 1)[-1][:1].isupper():
                if q in _RNNS:
                    if not _rnn_mode_free(fn, n):
                        return False
                elif q not in _MODE_FREE_NN:
                    return False
                continue
            if mname not in strict:
                continue
            f = n.func
            if q.startswith(("torch.", "math.")) or (isinstance(f, cst.Name) and f.value in _SAFE_BUILTINS and not q):
                continue
            if isinstance(f, cst.Attribute) and (f.attr.value in _INIT_SAFE_METHODS or (
                    isinstance(f.value, cst.Name) and f.value.value == "self" and f.attr.value in cls.methods)):
                continue
            return False
    return True


def _through_eval_helper(ctx, value) -> bool:
    """``m = prepare(model)`` with ``prepare`` a function of this file that puts its first
    parameter in eval mode (``model.eval()`` / ``model.train(False)``) or refuses a model in
    training mode (``if model.training: raise ...``), and returns it: boxmot's
    ``prepare_coreml_export_model(as_inference_export_model(self.model))`` (T-EVALHELPER)."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.args):
        return False
    fn = ctx.model.module_functions.get(value.func.value)
    if fn is None:
        return False
    ps = list(fn.params.posonly_params) + list(fn.params.params)
    if not ps:
        return False
    p = ps[0].name.value
    evals = False
    for n in iter_nodes(fn.body):
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and dotted(n.func.value) == p:
            if n.func.attr.value == "eval" or (n.func.attr.value == "train" and n.args
                                               and literal_value(n.args[0].value) is False):
                evals = True
            elif n.func.attr.value == "train":
                return False  # switched back to training mode (`model.train()`)
        if (isinstance(n, cst.If) and isinstance(n.test, cst.Attribute) and n.test.attr.value == "training"
                and dotted(n.test.value) == p):
            body = list(n.body.body) if isinstance(n.body, cst.IndentedBlock) else [n.body]
            if body and all(isinstance(b, cst.SimpleStatementLine) and all(isinstance(x, cst.Raise) for x in b.body)
                            for b in body):
                evals = True
    return evals


def _chain_has_eval(expr) -> bool:
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        if expr.func.attr.value == "eval":
            return True
        if expr.func.attr.value == "train" and expr.args and literal_value(expr.args[0].value) is False:
            return True
        expr = expr.func.value
    return False


def _eval_called_on(scope, name: str) -> bool:
    for call in _scope_calls(scope):
        f = call.func
        if isinstance(f, cst.Attribute) and dotted(f.value) == name:
            if f.attr.value == "eval":
                return True
            if f.attr.value == "train" and call.args and literal_value(call.args[0].value) is False:
                return True
        # model.apply(lambda m: m.eval()) and friends: give up (unknown)
        if isinstance(f, cst.Attribute) and f.attr.value in ("apply", "load_state_dict_and_eval"):
            return True
    return False


@register
class ExportDataParallel(Rule):
    code = "EXL502"
    name = "export-dataparallel"
    severity = Severity.ERROR
    exporters = ("onnx-legacy",)
    summary = "A DataParallel / DistributedDataParallel wrapper is exported (export its .module)."
    scope = "file"

    def check(self, ctx):
        for ec in ctx.model.export_calls:
            if ec.model is None:
                continue
            val = ec.model
            if isinstance(val, cst.Name):
                vals = [v for n, v, _ in assignments_in_scope(ec.scope) if n == val.value]
                val = vals[-1] if vals else None
            # nn.DataParallel(net).eval().to(dev): module methods that return the module itself
            while (isinstance(val, cst.Call) and isinstance(val.func, cst.Attribute)
                   and val.func.attr.value in _RETURNS_SELF):
                val = val.func.value
            if not isinstance(val, cst.Call):
                continue
            q = ctx.model.imports.resolve(val.func) or ""
            if q not in _WRAPPERS:
                continue
            m = snippet(ctx, ec.model)
            if "onnx-legacy" not in call_exporters(ec):
                ctx.report(
                    ec.model,
                    f"`{m}` is a {q.rsplit('.', 1)[-1]} wrapper: it exports, but parameter names get a `module.` "
                    f"prefix and inputs are renamed. Export `{m}.module` instead.",
                    severity=Severity.WARNING,
                    exporters=(),
                    fix=Fix(replacement=f"{ctx.source_of(ec.model)}.module", safety=FixSafety.SAFE,
                            description="the wrapper's forward calls .module with the same inputs"),
                )
                continue
            ctx.report(
                ec.model,
                f"`{m}` is a {q.rsplit('.', 1)[-1]} wrapper: export the wrapped model, `{m}.module` (the wrapper "
                "scatters inputs across devices and its forward does not trace as one graph).",
                exporters=tuple(e for e in call_exporters(ec) if e in self.exporters) or self.exporters,
                fix=Fix(replacement=f"{ctx.source_of(ec.model)}.module", safety=FixSafety.SAFE,
                        description="the wrapper's forward calls .module with the same inputs"),
            )
        return ()


@register
class DynamicAxesMismatch(Rule):
    code = "EXL503"
    name = "dynamic-axes-mismatch"
    severity = Severity.ERROR
    summary = "dynamic_axes / dynamic_shapes name an input or output that does not exist."
    scope = "file"

    def check(self, ctx):
        for ec in ctx.model.export_calls:
            exps = call_exporters(ec) or self.exporters
            da = ec.kwarg("dynamic_axes")
            if isinstance(da, cst.Dict):
                inn = ec.kwarg("input_names")
                outn = ec.kwarg("output_names")
                names_in = literal_value(inn) if inn is not None else None
                names_out = literal_value(outn) if outn is not None else None
                known: Optional[set] = set()
                for v in (names_in, names_out):
                    if isinstance(v, (list, tuple)):
                        known |= {x for x in v if isinstance(x, str)}
                    elif v is not None:
                        known = None  # not literal: cannot tell
                        break
                if known is not None:
                    cls = model_class_of(ctx, ec)
                    params = set(forward_params(cls)) if cls is not None else set()
                    for el in da.elements:
                        if not isinstance(el, cst.DictElement):
                            continue
                        k = literal_value(el.key)
                        if not isinstance(k, str) or k in known:
                            continue
                        if names_in is None and k in params:
                            continue  # legacy exporter names unnamed inputs after forward's arguments
                        hint = f"input_names={sorted(names_in) if isinstance(names_in, (list, tuple)) else None}, output_names={sorted(names_out) if isinstance(names_out, (list, tuple)) else None}"
                        ctx.report(
                            el.key,
                            f"dynamic_axes key {k!r} matches no input or output name ({hint}): the exporter "
                            "ignores it, so that dimension is exported static. Use one of the names you passed.",
                            exporters=exps,
                        )
            ds = ec.kwarg("dynamic_shapes")
            if isinstance(ds, cst.Dict):
                cls = model_class_of(ctx, ec)
                if cls is None:
                    continue
                params = forward_params(cls)
                if not params:
                    continue
                for el in ds.elements:
                    if not isinstance(el, cst.DictElement):
                        continue
                    k = literal_value(el.key)
                    if isinstance(k, str) and k not in params:
                        ctx.report(
                            el.key,
                            f"dynamic_shapes key {k!r} is not an argument of {cls.name}.forward "
                            f"({', '.join(params)}): torch.export rejects the spec (UserError). Name the "
                            "forward argument.",
                            exporters=exps,
                        )
        return ()


@register
class OpsetOutOfRange(Rule):
    code = "EXL504"
    name = "opset-out-of-range"
    severity = Severity.ERROR
    exporters = ("onnx-dynamo", "onnx-legacy")
    summary = "opset_version is outside what the chosen ONNX exporter supports."
    scope = "file"

    def check(self, ctx):
        from exportlint.checks.ops_support import opset_range

        for ec in ctx.model.export_calls:
            if ec.api not in _ONNX_APIS:
                continue
            node = ec.kwarg("opset_version")
            if node is None:
                continue
            v = literal_value(node)
            if not isinstance(v, int) or isinstance(v, bool):
                continue
            for e in call_exporters(ec):
                lo, hi = opset_range(e)
                if e == "onnx-dynamo" and lo is not None and v < lo:
                    ctx.report(
                        node,
                        f"opset_version={v} is below the lowest opset the dynamo exporter produces ({lo}): it "
                        f"exports at {lo} and tries to convert down, which fails for many ops and then keeps "
                        f"opset {lo}. Use opset_version>={lo}, or dynamo=False for runtimes older than that.",
                        exporters=(e,),
                        severity=Severity.WARNING,
                    )
                elif e == "onnx-legacy" and hi is not None and v > hi:
                    top = opset_range("onnx-dynamo")[1] or hi
                    ctx.report(
                        node,
                        f"opset_version={v} is above the highest opset the legacy exporter supports ({hi})"
                        + (": torch warns and emits unverified nodes" if v <= top else ": the call raises")
                        + ". Use opset_version<=" + str(hi) + " or the dynamo exporter (dynamo=True).",
                        exporters=(e,),
                        severity=Severity.WARNING if v <= top else Severity.ERROR,
                    )
        return ()


@register
class RemovedExportKwarg(Rule):
    code = "EXL505"
    name = "removed-export-kwarg"
    severity = Severity.ERROR
    exporters = ("onnx-dynamo", "onnx-legacy")
    summary = "An export call passes a keyword the installed torch removed or deprecated."
    scope = "file"

    def check(self, ctx):
        api = load_export_api()
        if api is None:
            return ()
        for ec in ctx.model.export_calls:
            spec = api["apis"].get(ec.api)
            if spec is None:
                continue
            params = set(spec["params"])
            exps = tuple(e for e in call_exporters(ec) if e in self.exporters) or call_exporters(ec)
            dynamo = exps == ("onnx-dynamo",)
            for a in ec.node.args:
                if a.keyword is None:
                    continue
                k = a.keyword.value
                remove = Fix(replacement="", safety=FixSafety.UNSAFE, description=f"remove `{k}=...`")
                if k not in params:
                    why = spec["removed"].get(k, "not a parameter")
                    ctx.report(
                        a,
                        f"`{ec.api}` in torch {api['torch']} has no keyword `{k}` ({why}): the call raises "
                        "TypeError. Remove it" + (" (use `external_data=`)" if k == "use_external_data_format" else "") + ".",
                        exporters=exps,
                        fix=remove,
                    )
                elif dynamo and k in spec["deprecated"]:
                    if k == "training":
                        ctx.report(
                            a,
                            "`training=` is ignored by the dynamo exporter (the default in torch "
                            f"{api['torch']}): the model is exported in whatever mode it is in, dropout included. "
                            "Call `model.eval()` before exporting and drop `training=`.",
                            exporters=exps,
                            fix=remove,
                        )
                    else:
                        ctx.report(
                            a,
                            f"`{k}=` is deprecated in torch {api['torch']} and silently ignored by the dynamo exporter "
                            "(the default). Remove it, or pass `dynamo=False` if you rely on it.",
                            severity=Severity.WARNING,
                            exporters=exps,
                            fix=remove,
                        )
                elif dynamo and k in spec.get("dynamo_deprecated", ()):
                    ctx.report(
                        a,
                        f"`{k}=` is deprecated with the dynamo exporter (the default): torch converts it with a "
                        "warning and may fail with \"Constraints violated\". Pass `dynamic_shapes=` instead "
                        "(e.g. `{\"x\": {0: torch.export.Dim(\"batch\")}}`).",
                        severity=Severity.WARNING,
                        exporters=exps,
                    )
        return ()
