"""EXL118: a module's fixed-length tensor sliced to a dimension declared dynamic.

Measured with torch 2.13 (rules/EXL118.md): `self.pe[:, :x.size(1)]` on a (1, 16, 8) parameter
with `Dim("T")` fails torch.export strict and non-strict ("... satisfy the generated guard
2 <= L['x'].size()[1] and L['x'].size()[1] <= 16"); `Dim("T", max=15)` and `Dim.AUTO` export.
The held-out case bench/cases/causal_head_tril_buffer.py (`self.tril[:T, :T]`,
`Dim("T", min=2, max=32)` on a 32x32 buffer) fails both with the guard `... != 32`.
"""

from __future__ import annotations

import textwrap

from exportlint.config import Config
from exportlint.engine import lint_source


def lint(src: str) -> list:
    return list(lint_source(textwrap.dedent(src), "m.py", config=Config(), codes=("EXL118",)))


HEAD = """\
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, block_size=32):
        super().__init__()
        self.key = nn.Linear(64, 16)
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))

    def forward(self, x):
        B, T, C = x.shape
        k = self.key(x)
        wei = k @ k.transpose(-2, -1)
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
        return wei


example_args = (torch.randn(2, 8, 64),)
dynamic_shapes = {{"x": {{1: {dim}}}}}
"""


def test_buffer_sliced_to_unpacked_dynamic_size():
    (f,) = lint(HEAD.format(dim='torch.export.Dim("T")'))
    assert f.line == 15 and f.severity.value == "error"
    assert set(f.exporters) == {"export-strict", "export-nonstrict"}


def test_dim_with_max_is_a_warning():
    (f,) = lint(HEAD.format(dim='torch.export.Dim("T", min=2, max=32)'))
    assert f.line == 15 and f.severity.value == "warning"


def test_auto_dims_and_undeclared_dims_are_quiet():
    assert lint(HEAD.format(dim="torch.export.Dim.AUTO")) == []
    assert lint(HEAD.format(dim="torch.export.Dim.DYNAMIC")) == []
    # the slice is of dim 1; only the batch is declared dynamic
    assert lint(HEAD.replace('{{1: {dim}}}', '{{0: {dim}}}').format(dim='torch.export.Dim("b")')) == []
    # no export declaration at all
    assert lint(HEAD.split("example_args")[0]) == []


POS = """\
import torch
from torch.export import Dim


class Embed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pe = torch.nn.Parameter(torch.randn(1, 16, 8))

    def forward(self, x):
        {body}


def export(m):
    return torch.export.export(m, (torch.randn(2, 5, 8),), dynamic_shapes={{"x": {{1: Dim("T")}}}})
"""


def test_parameter_sliced_to_input_size_in_place_of_rebinding():
    (f,) = lint(POS.format(body="x = x + self.pe[:, :x.size(1)]\n        return x"))
    assert f.line == 11
    assert len(lint(POS.format(body="return x + self.pe[:, :x.shape[1]]"))) == 1
    # x is something else once rebound: not followed
    assert lint(POS.format(body="x = x.flatten(1)\n        return self.pe[:, :x.size(1)]")) == []
    # a start or a step: another slice
    assert lint(POS.format(body="return x + self.pe[:, 1:x.size(1)]")) == []


def test_size_plus_a_constant_after_a_class_token():
    # lucidrains' ViT: `b, n, _ = x.shape; x = torch.cat((cls, x), 1); x += self.pos_embedding[:, :(n + 1)]`
    # measured: Dim("n") fails both torch.export modes (guard ... <= 16 on a (1, 17, 8) table)
    body = ("b, n, _ = x.shape\n        x = torch.cat((self.pe[:, :1].expand(b, -1, -1), x), dim=1)\n"
            "        x += self.pe[:, :(n + 1)]\n        return x")
    got = lint(POS.format(body=body))
    assert [f.line for f in got] == [13]
    # the size read after the input is rebound is not the input's
    rebound = body.replace("b, n, _ = x.shape\n        x = torch.cat((self.pe[:, :1].expand(b, -1, -1), x), dim=1)",
                           "x = torch.cat((self.pe[:, :1], x), dim=1)\n        b, n, _ = x.shape")
    assert lint(POS.format(body=rebound)) == []
