"""EXL135 / EXL136: randomness drawn outside the graph in forward.

- EXL135 python-random-draw: a draw of Python's ``random`` module or of ``numpy.random`` that
  runs on the export path (BART's LayerDrop, ``p = random.uniform(0, 1)`` before
  ``if self.training and p < self.layerdrop``): strict torch.export fails there.
- EXL136 generator-argument: a ``torch.Generator`` object handed to a random op
  (``torch.rand(shape, generator=self.generator)``): strict torch.export, onnx-dynamo and (for
  the out-of-place factories) onnx-legacy fail there.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import snippet
from exportlint.findings import Severity
from exportlint.semantics.model import iter_nodes, literal_value

#: Python's module-level draws (``random.seed`` / ``random.Random`` are not draws)
_PY_DRAWS = frozenset({
    "random", "uniform", "randint", "randrange", "choice", "choices", "sample", "shuffle", "gauss",
    "normalvariate", "lognormvariate", "betavariate", "expovariate", "gammavariate", "triangular",
    "vonmisesvariate", "paretovariate", "weibullvariate", "getrandbits", "binomialvariate",
})
#: ``numpy.random`` names that do not draw
_NP_NOT_DRAWS = frozenset({"seed", "default_rng", "RandomState", "Generator", "get_state", "set_state",
                           "SeedSequence", "PCG64", "MT19937", "Philox", "SFC64", "BitGenerator"})

#: the one random op measured to export with onnx-legacy when handed a Generator (the legacy
#: tracer records the generator as a constant it cannot export for torch.rand / randn /
#: randint / randperm / rand_like / multinomial / bernoulli / normal and Tensor.uniform_;
#: Tensor.normal_ passes; see EXL136.md)
_LEGACY_PASSES = frozenset({"normal_"})


def _draw(q: str) -> bool:
    if q.startswith("random."):
        return q.count(".") == 1 and q.split(".", 1)[1] in _PY_DRAWS
    if q.startswith("numpy.random."):
        rest = q[len("numpy.random."):]
        return "." not in rest and rest not in _NP_NOT_DRAWS
    return False


@register
class PythonRandomDraw(Rule):
    code = "EXL135"
    name = "python-random-draw"
    severity = Severity.ERROR
    exporters = ("export-strict",)
    summary = "Python's random / numpy.random drawn in forward: strict torch.export fails."

    def check(self, ctx):
        if "random" not in ctx.text:
            return ()
        for fn in ctx.model.functions:
            for call in fn.calls:
                q = call.qualname or ""
                if not _draw(q):
                    continue
                # measured (torch 2.13, eval mode): `random.uniform(0, 1)`, `random.random()`,
                # `random.randint(0, 3)` and `numpy.random.rand()` in forward fail strict
                # torch.export ("Dynamo attempts to add additional input during export: ...
                # RandomValueSource", "Dynamo does not know how to trace the builtin
                # Random.random", "Could not guard on data-dependent expression zuf0"); non-strict,
                # onnx-dynamo and onnx-legacy run it once in Python and keep the number. A draw
                # that runs only in training (`if self.training and random.random() < p`, under
                # `if self.training:`) or in __init__ exports everywhere: not on the export path.
                # an error where the draw is LayerDrop's (its value is tested together with the
                # training flag: the function is meant to run in eval, and the draw still runs
                # there); a warning otherwise (augmentations, masking, scheduled sampling: forwards
                # that are mostly training-time, exported or not)
                gated = _tested_with_training(fn, call.node)
                ctx.report(
                    call.node,
                    f"`{snippet(ctx, call.node)}` draws a Python random number in forward: strict torch.export "
                    "fails there ('Dynamo attempts to add additional input during export: ... RandomValueSource'); "
                    "non-strict export and the ONNX exporters run it once and bake the number into the graph. "
                    "Draw it only in training (`if self.training and random.random() < p:`), or use "
                    "`torch.rand(())` if the graph must draw.",
                    severity=None if gated else Severity.WARNING,
                )
        return ()


def _reads_training(e: cst.CSTNode) -> bool:
    for n in iter_nodes(e):
        if isinstance(n, cst.Attribute) and n.attr.value == "training":
            return True
        if isinstance(n, cst.Name) and n.value == "training":
            return True
    return False


def _tested_with_training(fn, draw: cst.Call) -> bool:
    """The draw (or a name bound to an expression holding it) sits in a boolean expression
    or a comparison chain that also reads ``training`` (``self.training and p < layerdrop``,
    ``not self.training or p > layerdrop``)."""
    names: set[str] = set()
    for n in iter_nodes(fn.node):
        if isinstance(n, cst.Assign) and len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name) \
                and any(m is draw for m in iter_nodes(n.value)):
            names.add(n.targets[0].target.value)
    for n in iter_nodes(fn.node):
        if not isinstance(n, cst.BooleanOperation) or not _reads_training(n):
            continue
        for m in iter_nodes(n):
            if m is draw or (isinstance(m, cst.Name) and m.value in names):
                return True
    return False


def _generator_ctor(ctx, e: cst.BaseExpression) -> bool:
    """``torch.Generator(...)``, possibly followed by ``.manual_seed(...)``."""
    while isinstance(e, cst.Call):
        q = ctx.model.imports.resolve(e.func)
        if q == "torch.Generator":
            return True
        if isinstance(e.func, cst.Attribute) and e.func.attr.value == "manual_seed":
            e = e.func.value
            continue
        return False
    return False


def _generator_value(ctx, fn, e: cst.BaseExpression) -> Optional[str]:
    """What makes ``e`` a ``torch.Generator``: ``self.<attr>`` set to one in the class, or a local
    name bound to one in the function; None when unknown (a parameter, a global)."""
    if _generator_ctor(ctx, e):
        return "a torch.Generator made in forward"
    if (isinstance(e, cst.Attribute) and isinstance(e.value, cst.Name) and e.value.value == "self"
            and fn.cls is not None):
        fact = fn.cls.find_attr(e.attr.value)
        if fact is not None and fact.value is not None and _generator_ctor(ctx, fact.value):
            return f"`self.{e.attr.value}`, a torch.Generator built in __init__"
        return None
    if isinstance(e, cst.Name):
        # every binding of the name in the function makes a Generator (`generator = None` then
        # `if seed is not None: generator = torch.Generator(...)`: unknown, not reported)
        bound = [n.value for n in iter_nodes(fn.node)
                 if isinstance(n, (cst.Assign, cst.AnnAssign, cst.AugAssign)) and n.value is not None
                 and any(isinstance(t, cst.Name) and t.value == e.value
                         for t in ([x.target for x in n.targets] if isinstance(n, cst.Assign) else [n.target]))]
        params = {p.name.value for p in iter_nodes(fn.node.params) if isinstance(p, cst.Param)}
        if bound and e.value not in params and all(_generator_ctor(ctx, v) for v in bound):
            return f"`{e.value}`, a torch.Generator made in forward"
    return None


@register
class GeneratorArgument(Rule):
    code = "EXL136"
    name = "generator-argument"
    severity = Severity.ERROR
    exporters = ("export-strict", "onnx-dynamo", "onnx-legacy")
    summary = "A torch.Generator handed to a random op in forward (generator=...)."

    def check(self, ctx):
        if "generator" not in ctx.text:
            return ()
        for fn in ctx.model.functions:
            for call in fn.calls:
                arg = call.kwarg("generator")
                if arg is None or literal_value(arg.value) is None:
                    continue  # `generator=None` exports (measured)
                q = call.qualname or ""
                if not (q.startswith("torch.") or call.method is not None):
                    continue
                what = _generator_value(ctx, fn, arg.value)
                if what is None:
                    continue  # unknown: a parameter may be None
                exps = ["export-strict", "onnx-dynamo"]
                if call.method not in _LEGACY_PASSES:
                    exps.append("onnx-legacy")
                # after `if self.prob == 0 or (self.disable_on_eval and self.training is False):
                # return ...` (torchtune's LayerDropout): whether eval reaches the call depends on
                # configuration: a warning
                sev = Severity.WARNING if _after_training_exit(fn, call.node) else None
                # measured (torch 2.13): torch.rand / randn / randint / randperm / rand_like /
                # multinomial / bernoulli / normal, Tensor.uniform_ / normal_ with a Generator built
                # in __init__ (or in forward) fail strict torch.export ("Failed to
                # convert args/kwargs to proxy <- UserDefinedObjectVariable(Generator)"; "An opaque
                # object was created in the middle of the program") and onnx-dynamo ("aten::rand()
                # Expected a value of type 'Optional[Generator]' for argument 'generator' but
                # instead found type 'CustomObjArgument'"); the legacy tracer fails on all but
                # Tensor.normal_ ("Unsupported prim::Constant kind: 'ival'"); non-strict
                # torch.export passes. `generator=None` passes strict and legacy.
                ctx.report(
                    call.node,
                    f"`{snippet(ctx, call.node)}` hands {what} to a random op: strict torch.export fails "
                    "('Failed to convert args/kwargs to proxy <- UserDefinedObjectVariable(Generator)'), "
                    "onnx-dynamo fails ('Expected a value of type Optional[Generator] ... CustomObjArgument')"
                    + (" and the legacy exporter fails ('Unsupported prim::Constant kind: ival')"
                       if "onnx-legacy" in exps else "")
                    + "; only non-strict torch.export keeps it. Drop the generator on the export path "
                    "(`generator=None`, or seed with torch.manual_seed outside the model).",
                    exporters=exps,
                    severity=sev,
                )
        return ()


def _after_training_exit(fn, node: cst.CSTNode) -> bool:
    """A top-level ``if`` reading ``training`` whose body returns or raises comes before the
    statement holding ``node``."""
    body = fn.node.body.body if isinstance(fn.node.body, cst.IndentedBlock) else []
    for st in body:
        if any(n is node for n in iter_nodes(st)):
            return False
        if isinstance(st, cst.If) and _reads_training(st.test):
            inner = st.body.body if isinstance(st.body, cst.IndentedBlock) else []
            last = inner[-1] if inner else None
            if (isinstance(last, cst.SimpleStatementLine) and last.body
                    and isinstance(last.body[-1], (cst.Return, cst.Raise))):
                return True
    return False
