"""Issue 9/10 (branch zoo18): classes handed in as constructor arguments.

``self.x = block(...)`` in ``__init__``, ``block`` a constructor parameter, is recorded by the index
as "@Class.block" and resolved by ``semantics/ctor_classes.param_classes`` from the class's
constructions in the run (keyword, positional, default, pass-through, partial, factory returns);
unknown stays unknown. EXL127 reads the mask a handed class's method returns (timm maxxvit's
``self.rel_pos = rel_pos_cls(...)``; maxxvit.py:334). Exporter behaviour measured with torch 2.13.0:
bench/labels/probes_zoo18/probe_handed_bias.py (outputs next to it).
"""

from __future__ import annotations

import os
from pathlib import Path

from conftest import code_hits
from conftest import lint_package as _lint
from conftest import write_package

_BLOCKS = '''from torch import nn


class Basic(nn.Module):
    def __init__(self, n=1):
        super().__init__()

    def forward(self, x):
        return x


class Bottleneck(nn.Module):
    def __init__(self, n=1):
        super().__init__()

    def forward(self, x):
        return x * 2
'''


def _resolve(tmp_path, model: str, cls: str, param: str, prefix: str):
    from exportlint.semantics.ctor_classes import param_classes
    from exportlint.semantics.project import Project

    files = write_package(tmp_path, {"blocks.py": _BLOCKS, "model.py": model}, prefix)
    proj = Project(files)
    proj.run_files = frozenset(os.path.abspath(p) for p in files)
    fi = proj.index_path(next(p for p in files if p.endswith("model.py")))
    got = param_classes(proj, fi, cls, param)
    return (None if got is None else sorted(c for _, c in got)), fi, proj


_HEAD = '''from functools import partial

from torch import nn

from .blocks import Basic, Bottleneck


class Holder(nn.Module):
    def __init__(self, block, n=1):
        super().__init__()
        self.b = block(n)

    def forward(self, x):
        return self.b(x)

'''


def test_index_records_the_parameter_call(tmp_path):
    _, fi, _ = _resolve(tmp_path, _HEAD + "h = Holder(block=Basic)\n", "Holder", "block", "z18a")
    assert fi.classes["Holder"].attrs["b"] == ["@Holder.block"]


def test_keyword(tmp_path):
    got, _, _ = _resolve(tmp_path, _HEAD + "h = Holder(block=Basic)\n", "Holder", "block", "z18b")
    assert got == ["Basic"]


def test_positional(tmp_path):
    got, _, _ = _resolve(tmp_path, _HEAD + "h = Holder(Bottleneck, 2)\n", "Holder", "block", "z18c")
    assert got == ["Bottleneck"]


def test_default(tmp_path):
    model = _HEAD.replace("def __init__(self, block, n=1)", "def __init__(self, block=Bottleneck, n=1)") + \
        "h = Holder(n=3)\n"
    got, _, _ = _resolve(tmp_path, model, "Holder", "block", "z18d")
    assert got == ["Bottleneck"]


def test_pass_through_two_levels(tmp_path):
    model = _HEAD + '''
class Stage(nn.Module):
    def __init__(self, depth, block):
        super().__init__()
        self.h = Holder(block, depth)


class Net(nn.Module):
    def __init__(self, block=Basic):
        super().__init__()
        self.s1 = Stage(2, block=block)
        self.s2 = Stage(3, block)


net = Net(block=partial(Basic, n=4))
'''
    got, fi, proj = _resolve(tmp_path, model, "Holder", "block", "z18e")
    assert got == ["Basic"]
    from exportlint.semantics.project import built_classes

    assert [c for _, c in built_classes(proj, fi, "@Holder.block", None)] == ["Basic"]


def test_recursive_pass_through_adds_nothing(tmp_path):
    model = _HEAD + '''
class Tree(nn.Module):
    def __init__(self, levels, block):
        super().__init__()
        if levels == 1:
            self.t = block(1)
        else:
            self.t = Tree(levels - 1, block)


tree = Tree(3, Bottleneck)
'''
    got, _, _ = _resolve(tmp_path, model, "Tree", "block", "z18f")
    assert got == ["Bottleneck"]


def test_factory_returns_partials_of_several_classes(tmp_path):
    model = _HEAD + '''
def pick(kind):
    cls = None
    if kind == "a":
        cls = partial(Basic, n=2)
    elif kind == "b":
        cls = Bottleneck
    return cls


class Outer(nn.Module):
    def __init__(self, kind):
        super().__init__()
        block = pick(kind)
        self.h = Holder(block=block)
'''
    got, fi, proj = _resolve(tmp_path, model + "o = Outer('a')\n", "Holder", "block", "z18g")
    assert got == ["Basic", "Bottleneck"]
    # several classes: the call graph, which needs one, treats the attribute as unknown
    from exportlint.semantics.project import built_classes

    assert built_classes(proj, fi, "@Holder.block", None) is None


def test_conflicting_sites_give_every_class(tmp_path):
    got, _, _ = _resolve(tmp_path, _HEAD + "a = Holder(Basic)\nb = Holder(block=Bottleneck)\n", "Holder", "block",
                         "z18h")
    assert got == ["Basic", "Bottleneck"]


def test_unknown_stays_unknown(tmp_path):
    # a site whose **kwargs may carry the parameter
    got, _, _ = _resolve(tmp_path, _HEAD + "kw = {}\na = Holder(Basic)\nb = Holder(**kw)\n", "Holder", "block", "z18i")
    assert got is None
    # no construction in the run (a class handed around as a value: build(Holder, block=...))
    got, _, _ = _resolve(tmp_path, _HEAD + "def build(cls, **kw):\n    return cls(**kw)\n", "Holder", "block", "z18j")
    assert got is None
    # a parameter of a plain function, an installed class
    got, _, _ = _resolve(tmp_path, _HEAD + "def make(b):\n    return Holder(b)\n", "Holder", "block", "z18k")
    assert got is None
    got, _, _ = _resolve(tmp_path, _HEAD + "h = Holder(nn.ReLU)\n", "Holder", "block", "z18l")
    assert got is None
    # a subclass may hand its own class to super().__init__
    got, _, _ = _resolve(tmp_path, _HEAD + "class Sub(Holder):\n    pass\n\n\nh = Holder(Basic)\n", "Holder", "block",
                         "z18m")
    assert got is None


def test_rebound_parameter_is_unknown(tmp_path):
    model = _HEAD.replace("        self.b = block(n)", "        block = block or Basic\n        self.b = block(n)")
    got, _, _ = _resolve(tmp_path, model + "h = Holder(Bottleneck)\n", "Holder", "block", "z18n")
    assert got is None


# ---- EXL127 through a class handed to the constructor ---------------------------------------------
# probe_handed_bias.py (onnx-dynamo, torch 2.13): `self.rel_pos = rel_pos_cls(num_heads=2) if rel_pos_cls
# else None`, `attn_bias = self.rel_pos.get_bias()`, SDPA, `x.transpose(1, 2).reshape(B, N, C)`: FAILS
# ("Cannot view a tensor with shape torch.Size([s77, 4, 2, 8]) and strides (64, 8, 32, 1)") when the
# handed class returns its table gathered, permuted and unsqueezed to 4-D; passes with a 3-D mask.
_POS = '''import torch
from torch import nn


class Bias4(nn.Module):
    def __init__(self, window, num_heads):
        super().__init__()
        n = window * window
        self.table = nn.Parameter(torch.zeros((2 * window - 1) ** 2, num_heads))
        self.register_buffer("index", torch.zeros(n * n, dtype=torch.long))
        self.shape = (n, n, num_heads)

    def get_bias(self):
        b = self.table[self.index].view(self.shape).permute(2, 0, 1)
        return b.unsqueeze(0).contiguous()


class Bias3(Bias4):
    def get_bias(self):
        return self.table[self.index].view(self.shape).permute(2, 0, 1).contiguous()
'''

_ATTN = '''from functools import partial

import torch
import torch.nn.functional as F
from torch import nn

from .pos import {cls}


class Attn(nn.Module):
    def __init__(self, dim, rel_pos_cls=None):
        super().__init__()
        self.heads = 2
        self.qkv = nn.Linear(dim, dim * 3)
        self.rel_pos = rel_pos_cls(num_heads=self.heads) if rel_pos_cls else None

    def forward(self, x):
        B, N, C = x.shape
        q, k, v = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        attn_bias = None
        if self.rel_pos is not None:
            attn_bias = self.rel_pos.get_bias()
        x = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_bias)
        return x.transpose(1, 2).reshape(B, N, C)


def pos_cls(window):
    return partial({cls}, window=window)


class Block(nn.Module):
    def __init__(self, dim, window):
        super().__init__()
        rel_pos_cls = pos_cls(window)
        self.attn = Attn(dim, rel_pos_cls=rel_pos_cls)

    def forward(self, x):
        return self.attn(x)
'''


def test_exl127_mask_from_a_handed_class(tmp_path):
    files = write_package(tmp_path, {"pos.py": _POS, "attn.py": _ATTN.format(cls="Bias4")}, "z18p")
    hits = code_hits(_lint(files), "EXL127")
    assert hits == [("attn.py", 24, "warning", ("onnx-dynamo",))]
    f = next(f for f in _lint(files) if f.code == "EXL127")
    assert "`Bias4.get_bias()`" in f.message


def test_exl127_handed_class_with_a_3d_mask_control(tmp_path):
    files = write_package(tmp_path, {"pos.py": _POS, "attn.py": _ATTN.format(cls="Bias3")}, "z18q")
    assert code_hits(_lint(files), "EXL127") == []


def test_exl127_handed_class_unknown_control(tmp_path):
    # the only construction hands on a parameter of a plain function: the class is unknown
    attn = _ATTN.format(cls="Bias4").replace("        rel_pos_cls = pos_cls(window)\n", "") \
        .replace("    def __init__(self, dim, window):", "    def __init__(self, dim, window, rel_pos_cls=None):")
    attn = attn.replace("class Block", "def make(c):\n    return Attn(8, rel_pos_cls=c)\n\n\nclass Block") \
        .replace("        self.attn = Attn(dim, rel_pos_cls=rel_pos_cls)", "        self.attn = make(rel_pos_cls)")
    files = write_package(tmp_path, {"pos.py": _POS, "attn.py": attn}, "z18r")
    assert code_hits(_lint(files), "EXL127") == []
    assert Path(files[0]).exists()
