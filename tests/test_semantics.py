"""Unit tests of the semantic model on small snippets: export path and value kinds."""

import textwrap

import libcst as cst

from exportlint.semantics.kinds import CONST, DATA, MASK, MODULE, SHAPE, TENSOR, UNKNOWN
from exportlint.semantics.model import SemanticModel


def model(src: str) -> SemanticModel:
    return SemanticModel(cst.parse_module(textwrap.dedent(src)))


def fn_named(m: SemanticModel, qualname: str):
    for f in m.functions:
        if f.qualname == qualname:
            return f
    raise AssertionError(f"{qualname} not on the export path: {[f.qualname for f in m.functions]}")


def kind_of_assigned(f, name: str) -> str:
    return f.env[name]


BASE = """
import torch
import torch.nn as nn
import torch.nn.functional as F

class Net(nn.Module):
    def __init__(self, dim: int, cfg):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.w = nn.Parameter(torch.zeros(dim))
        self.register_buffer("buf", torch.ones(dim))
        self.plain = torch.ones(dim)
        self.dim = dim
        self.use_bias = cfg.use_bias

    def forward(self, x, mask=None, scale: float = 1.0, n: int = 3):
        a = x.sum()
        b = x.shape[0]
        c = x.item()
        d = self.dim * 2
        e = x > 0
        f = self.fc(x)
        g = F.relu(x)
        h = len(x)
        i = x.ndim
        j = x.size(1) + 1
        k = int(x.sum())
        l = self.helper(x, 3)
        m = self.training
        o = x.dtype
        p = torch.isnan(x)
        q = self.fc
        r = self.buf + self.w
        s = self.plain
        t = scale * n
        u = mask
        return f

    def helper(self, y, k):
        return y * k

    def unused(self, z):
        return z.item()
"""


def test_export_path_includes_forward_and_helpers_not_unused():
    m = model(BASE)
    names = {f.qualname for f in m.functions}
    assert "Net.forward" in names and "Net.helper" in names
    assert "Net.unused" not in names and "Net.__init__" not in names


def test_value_kinds_in_forward():
    f = fn_named(model(BASE), "Net.forward")
    expect = {
        "a": TENSOR, "b": SHAPE, "c": DATA, "d": CONST, "e": MASK, "f": TENSOR, "g": TENSOR,
        "h": SHAPE, "i": CONST, "j": SHAPE, "k": DATA, "m": CONST, "o": CONST, "p": MASK,
        "q": MODULE, "r": TENSOR, "s": TENSOR, "t": CONST, "u": UNKNOWN,
    }
    got = {k: kind_of_assigned(f, k) for k in expect}
    assert got == expect


def test_arguments_flow_into_helpers():
    f = fn_named(model(BASE), "Net.helper")
    assert f.env["y"] == TENSOR
    assert f.env["k"] == CONST


def test_attribute_facts_from_init():
    m = model(BASE)
    attrs = {k: v.what for k, v in m.classes["Net"].attrs.items()}
    assert attrs["fc"] == "submodule"
    assert attrs["w"] == "parameter"
    assert attrs["buf"] == "buffer"
    assert attrs["plain"] == "tensor"
    assert attrs["dim"] == "config"
    assert attrs["use_bias"] == "config"


def test_import_aliases_are_resolved():
    m = model("""
        import torch.nn.functional as F
        from torch import fft
        from torch.linalg import inv as matinv
        import numpy as np
        """)
    assert m.imports.resolve_dotted("F.interpolate") == "torch.nn.functional.interpolate"
    assert m.imports.resolve_dotted("fft.rfft") == "torch.fft.rfft"
    assert m.imports.resolve_dotted("matinv") == "torch.linalg.inv"
    assert m.imports.resolve_dotted("np.exp") == "numpy.exp"


def test_module_detection_through_local_and_imported_bases():
    m = model("""
        import torch.nn as nn
        from .modeling_utils import PreTrainedModel
        class Base(nn.Module):
            pass
        class A(Base):
            def forward(self, x):
                return x
        class B(PreTrainedModel):
            def forward(self, x):
                return x
        class NotAModule:
            def forward(self, x):
                return x
        """)
    assert m.classes["A"].is_module and m.classes["B"].is_module
    assert not m.classes["NotAModule"].is_module
    assert {f.qualname for f in m.functions} == {"A.forward", "B.forward"}


def test_branch_kinds_and_guards():
    m = model("""
        import torch
        class M(torch.nn.Module):
            def forward(self, x, flag: bool = False):
                if x.sum() > 0:
                    pass
                if x.shape[0] > 2:
                    pass
                if x is None or flag or isinstance(x, tuple):
                    pass
                if self.training:
                    if x.mean() > 0:   # training only: not analysed
                        pass
                if not torch.jit.is_tracing():
                    if x.max() > 1:    # runs under torch.export and onnx-dynamo, not the tracer
                        pass
                if torch.jit.is_scripting():
                    y = x.item()       # scripting only
                return x
        """)
    f = fn_named(m, "M.forward")
    kinds = [b.kind for b in f.branches]
    assert kinds == [DATA, SHAPE, CONST, DATA]
    assert f.node_only[id(f.branches[-1].node)] == {"export-strict", "export-nonstrict", "onnx-dynamo"}
    assert not any(id(b.node) in f.node_only for b in f.branches[:-1])
    assert not any(c.method == "item" for c in f.calls)


def test_callable_passed_to_export_is_on_the_path():
    m = model("""
        import torch
        def f(x):
            if x.sum() > 0:
                return x
            return -x
        torch.export.export(f, (torch.randn(2),))
        """)
    f = fn_named(m, "f")
    assert f.branches[0].kind == DATA
    assert len(m.export_calls) == 1 and m.export_calls[0].api == "torch.export.export"


def test_optional_tensor_annotation_and_default_none():
    m = model("""
        from typing import Optional
        import torch
        class M(torch.nn.Module):
            def forward(self, x, mask: Optional[torch.Tensor] = None, output_attentions: Optional[bool] = None, other=None):
                return x
        """)
    f = fn_named(m, "M.forward")
    assert f.env["mask"] == TENSOR
    assert f.env["output_attentions"] == CONST
    assert f.env["other"] == UNKNOWN
