"""EXL131 ceil-mode-pool-dynamic-hw: max/avg pooling with ``ceil_mode=True`` and a stride above 1
on a dimension that may be dynamic.

Measured with torch 2.13 (bench/labels/probes_zoo13/probe_ceil_pool.py, H and W declared
``Dim(min=64, max=1024)``): ``nn.AvgPool2d(2, 2, ceil_mode=True)`` straight on the input, after a
strided conv, in a ResNet-D shortcut added to the main path (timm resnet10t), and
``nn.MaxPool2d(3, 2, ceil_mode=True)`` after a conv, all fail export-strict and export-nonstrict:
"Constraints violated (height, width)! ... Not all values of height ... satisfy the generated guard
2*(((-1) + L['x'].size()[2]) // 2) < L['x'].size()[2]" (the ceil-mode output size drops a last
window that would start in the padding; torch.export cannot prove the test for every size and
suggests ``height = 2*_height``). The same shortcut with ``ceil_mode=False`` fails too, for
another reason (two different floor arithmetics meeting in the add), which no rule claims.
onnx-dynamo (which retries with the suggested shapes) and the legacy exporter export the truth's
ceil-mode models.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import all_declared_dims, call_arg, declares_dynamic, snippet
from exportlint.findings import Severity
from exportlint.semantics.model import literal_value

_F_POOLS = {
    # qualified name -> positional index of ceil_mode, of stride, of kernel_size (input first)
    **{f"torch.nn.functional.max_pool{n}d": (5, 2, 1) for n in (1, 2, 3)},
    **{f"torch.nn.functional.avg_pool{n}d": (4, 2, 1) for n in (1, 2, 3)},
    **{f"torch.max_pool{n}d": (5, 2, 1) for n in (1, 2, 3)},
    **{f"torch.avg_pool{n}d": (4, 2, 1) for n in (1,)},
}
_M_POOLS = {
    # module constructor -> positional index of ceil_mode, of stride, of kernel_size
    **{f"torch.nn.MaxPool{n}d": (5, 1, 0) for n in (1, 2, 3)},
    **{f"torch.nn.AvgPool{n}d": (3, 1, 0) for n in (1, 2, 3)},
    **{f"torch.nn.modules.pooling.MaxPool{n}d": (5, 1, 0) for n in (1, 2, 3)},
    **{f"torch.nn.modules.pooling.AvgPool{n}d": (3, 1, 0) for n in (1, 2, 3)},
}
_SEQUENTIAL = frozenset({"torch.nn.Sequential", "torch.nn.modules.container.Sequential"})


def _ceil_strided(call: cst.Call, idx: tuple[int, int, int]) -> bool:
    """``ceil_mode=True`` (a literal) and a literal stride above 1 (the stride defaults to the
    kernel size)."""
    c_i, s_i, k_i = idx
    ceil = call_arg(call, "ceil_mode", c_i)
    if ceil is None or literal_value(ceil) is not True:
        return False
    stride = call_arg(call, "stride", s_i)
    if stride is None or literal_value(stride) is None:
        stride = call_arg(call, "kernel_size", k_i)
    v = literal_value(stride) if stride is not None else None
    # a literal stride only: a stride or kernel from the configuration may be 1, or larger than
    # any feature map (transformers' EfficientNet pooler, `AvgPool2d(config.hidden_dim,
    # ceil_mode=True)`: exports, measured with a kernel of 1280, probe_ceil_pool_more)
    if isinstance(v, (tuple, list)):
        return all(isinstance(x, int) for x in v) and any(x > 1 for x in v)
    return isinstance(v, int) and not isinstance(v, bool) and v > 1


@register
class CeilModePoolDynamicHW(Rule):
    code = "EXL131"
    name = "ceil-mode-pool-dynamic-hw"
    severity = Severity.ERROR
    exporters = ("export-strict", "export-nonstrict")
    summary = "Max/avg pooling with ceil_mode=True and stride > 1: torch.export fails on dynamic H/W."

    def check(self, ctx):
        if "ceil_mode" not in ctx.text:
            # ctx.text may be the reduced text: a factory that builds the pool, which only a
            # constructor argument reaches, is blanked there (`semantics.ctor_args` reads the
            # file). Then only that path can report: ask it first, before the declared dims
            # (a file without the word may still get such a pool from a builder of another file it
            # hands its block class to: ``semantics.ctor_args.may_hold_across``)
            own = self._full_text_has(ctx, "ceil_mode")
            if not any(self._ctor_arg_pool(ctx, fn.cls.name, attr, own)
                       for fn, attr in self._ctor_arg_calls(ctx)):
                return ()
        mode = declares_dynamic(ctx)
        if mode is False:
            return ()  # fixed shapes: the pooled size is a constant
        imports = ctx.model.imports
        cache: dict[Optional[str], dict] = {}
        seen: set[int] = set()
        for fn in ctx.model.functions:
            key = fn.cls.name if fn.cls is not None else None
            if key not in cache:
                cache[key] = all_declared_dims(ctx, key)
            decl = cache[key]
            dims = set().union(*decl.values()) if decl else set()
            if decl and not any(d >= 2 for d in dims if isinstance(d, int)):
                continue  # only batch / sequence declared for this class: its H/W are static
            sev = None if any(isinstance(d, int) and d >= 2 for d in dims) else Severity.WARNING
            for call in fn.calls:
                if id(call.node) in seen:
                    continue
                q = call.qualname or ""
                how = None
                if q in _F_POOLS and _ceil_strided(call.node, _F_POOLS[q]):
                    how = f"`{q.rsplit('.', 1)[-1]}(..., ceil_mode=True)`"
                else:
                    f = call.node.func
                    if (fn.cls is not None and call.receiver_kind == "self" and isinstance(f, cst.Attribute)):
                        fact = fn.cls.find_attr(f.attr.value)
                        if fact is not None and fact.what == "submodule" and isinstance(fact.value, cst.Call):
                            how = self._ctor_pool(imports, fact.value, f.attr.value)
                        elif (fact is not None and fact.what == "config" and fn.cls.attrs.get(f.attr.value) is fact
                              and ctx.project is not None):
                            # (`self.downsample = downsample`: a constructor argument)
                            how = self._ctor_arg_pool(ctx, fn.cls.name, f.attr.value)
                            if how is not None:
                                seen.add(id(call.node))
                                ctx.report(
                                    call.node,
                                    f"`{snippet(ctx, call.node)}` may pool with {how}: with the input's height/width "
                                    "declared dynamic and a stride above 1, torch.export (strict and non-strict) fails "
                                    "('Constraints violated (height, width) ... satisfy the generated guard 2*(((-1) + "
                                    "...) // 2) < ...': the ceil-mode output size drops a last window that would start "
                                    "in the padding). Declare H/W as multiples of the stride (`height = 2*_h` with "
                                    "`_h = Dim(...)`, as torch suggests), build that pool with `ceil_mode=False`, or "
                                    "export with `Dim.AUTO`.",
                                    severity=Severity.WARNING,
                                )
                            continue
                if how is None:
                    continue
                seen.add(id(call.node))
                ctx.report(
                    call.node,
                    f"`{snippet(ctx, call.node)}` pools with {how} and a stride above 1: with the input's "
                    "height/width declared dynamic, torch.export (strict and non-strict) fails ('Constraints "
                    "violated (height, width) ... satisfy the generated guard 2*(((-1) + ...) // 2) < ...': "
                    "the ceil-mode output size drops a last window that would start in the padding, and "
                    "torch.export cannot decide that test for every size). Declare H/W as multiples of the "
                    "stride (`height = 2*_h` with `_h = Dim(...)`, as torch suggests), use `ceil_mode=False` "
                    "with `padding=`, or export with `Dim.AUTO`.",
                    severity=sev,
                )
        return ()

    @staticmethod
    def _ctor_arg_calls(ctx):
        """(function, attribute) of the ``self.<attr>(...)`` calls whose attribute ``__init__``
        sets from a plain value (a constructor argument, ``self.downsample = downsample``)."""
        if ctx.project is None:
            return
        for fn in ctx.model.functions:
            if fn.cls is None:
                continue
            for call in fn.calls:
                f = call.node.func
                if call.receiver_kind == "self" and isinstance(f, cst.Attribute):
                    fact = fn.cls.attrs.get(f.attr.value)
                    if fact is not None and fact.what == "config":
                        yield fn, f.attr.value

    @staticmethod
    def _full_text_has(ctx, word: str) -> bool:
        if ctx.project is None or getattr(ctx.project, "run_files", None) is None:
            return False
        from exportlint.semantics.project import file_text

        text = file_text(ctx.project, ctx.path)
        return text is not None and word in text

    @staticmethod
    def _ctor_arg_pool(ctx, cls: str, attr: str, own: bool = True) -> Optional[str]:
        """``self.<attr> = <param>`` at the top of ``__init__``: a ceil-mode strided pool that a
        construction of the class in this file may pass (``semantics.ctor_args``: a factory's
        return, a Sequential's item, either arm of a conditional), or (``may_hold_across``) one
        that a builder of another file this file hands the class to may pass. ``own``: this
        file's text names ``ceil_mode`` (else only another file can build the pool)."""
        from exportlint.semantics.ctor_args import may_hold, may_hold_across

        got = may_hold(ctx.project, ctx.path, cls, attr, "ceil_mode", _ast_ceil_pool) if own else None
        if got is not None:
            desc, line, param = got
            return (f"{desc} (line {line}), which a construction of `{cls}` in this file may pass as `{param}` "
                    f"(held in `self.{attr}`)")
        got = may_hold_across(ctx.project, ctx.path, cls, attr, "ceil_mode", _ast_ceil_pool,
                              ctx.project_calls()["deps"])
        if got is None:
            return None
        desc, line, param, where = got
        import os

        return (f"{desc} ({os.path.basename(where)}:{line}), which `{os.path.basename(where)}` may pass as "
                f"`{param}` when it builds the class this file hands it (`{cls}`, held in `self.{attr}`)")

    @staticmethod
    def _ctor_pool(imports, ctor: cst.Call, attr: str) -> Optional[str]:
        q = imports.resolve(ctor.func) or ""
        if q in _M_POOLS:
            return f"`self.{attr} = {q.rsplit('.', 1)[-1]}(..., ceil_mode=True)`" \
                if _ceil_strided(ctor, _M_POOLS[q]) else None
        if q in _SEQUENTIAL:
            for a in ctor.args:
                v = a.value
                if a.keyword is None and not a.star and isinstance(v, cst.Call):
                    qq = imports.resolve(v.func) or ""
                    if qq in _M_POOLS and _ceil_strided(v, _M_POOLS[qq]):
                        return f"a `{qq.rsplit('.', 1)[-1]}(..., ceil_mode=True)` inside `self.{attr}` (a Sequential)"
        return None


def _ast_ceil_pool(call, fi, callees) -> Optional[str]:
    """``semantics.ctor_args`` predicate: a max/avg pooling constructor (the callee, or a local
    name either arm of whose conditional is one) with ``ceil_mode=True`` and a stride that may be
    above 1 (a literal above 1, or a value of the code: timm's ``downsample_avg`` passes its
    ``stride`` parameter; a literal 1, or no stride and no literal kernel above 1, is not)."""
    import ast

    from exportlint.semantics.index import ast_qualname

    for c in callees(call.func):
        q = ast_qualname(fi.imports, c) or ""
        if q not in _M_POOLS:
            continue
        c_i, s_i, k_i = _M_POOLS[q]

        def arg(pos, name):
            for k in call.keywords:
                if k.arg == name:
                    return k.value
            if any(isinstance(a, ast.Starred) for a in call.args[: pos + 1]):
                return None
            return call.args[pos] if pos < len(call.args) else None

        ceil = arg(c_i, "ceil_mode")
        if not (isinstance(ceil, ast.Constant) and ceil.value is True):
            continue
        stride = arg(s_i, "stride")
        if stride is None or (isinstance(stride, ast.Constant) and stride.value is None):
            stride = arg(k_i, "kernel_size")
            if not isinstance(stride, (ast.Constant, ast.Tuple)):
                continue  # a kernel from the configuration may be larger than every map
        try:
            v = ast.literal_eval(stride)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            v = None  # a value of the code: may be above 1
        if v is not None:
            vs = v if isinstance(v, (tuple, list)) else (v,)
            if not any(isinstance(x, int) and not isinstance(x, bool) and x > 1 for x in vs):
                continue
        return f"a `{q.rsplit('.', 1)[-1]}(..., ceil_mode=True)`"
    return None
