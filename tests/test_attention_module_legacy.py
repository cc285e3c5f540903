"""EXL119: nn.MultiheadAttention / nn.Transformer* layers under the legacy exporter with a
dynamic sequence.

Measured with torch 2.13 (rules/EXL119.md): exported with `dynamo=False` and dynamic batch and
sequence axes at (2, 20, 32), the ONNX model fails in onnxruntime at (2, 7, 32) ("Non-zero
status code returned while running Reshape node") for MultiheadAttention, TransformerEncoder
(Layer) and TransformerDecoderLayer; torch.export and onnx-dynamo pass. Held-out case
bench/cases/transformer_encoder_dynamic_seq.py (pytorch/pytorch#110347).
"""

from __future__ import annotations

import textwrap

from exportlint.config import Config
from exportlint.engine import lint_source


def lint(src: str, **cfg) -> list:
    return list(lint_source(textwrap.dedent(src), "m.py", config=Config(**cfg), codes=("EXL119",)))


SRC = """\
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(15, 32)
        layer = nn.TransformerEncoderLayer(32, nhead=4, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)
        self.attn = nn.MultiheadAttention(32, 4, batch_first=True)

    def forward(self, x):
        h = self.encoder(self.emb(x))
        return self.attn(h, h, h)[0]
"""

DECLARES = """

def export(m):
    return torch.onnx.export(m, (torch.randint(0, 15, (2, 20)),), "m.onnx", dynamo=False,
                             input_names=["x"], dynamic_axes={"x": {0: "b", 1: "t"}})
"""


def test_attention_modules_called_in_forward_are_warned():
    got = lint(SRC + DECLARES)
    assert [f.line for f in got] == [14, 15]
    assert all(f.severity.value == "warning" and tuple(f.exporters) == ("onnx-legacy",) for f in got)


def test_quiet_without_dynamic_shapes():
    assert lint(SRC) == []  # no export call seen: whether anything is dynamic is unknown
    static = DECLARES.replace(',\n                             input_names=["x"], dynamic_axes={"x": {0: "b", 1: "t"}}', "")
    assert lint(SRC + static) == []
    assert lint(SRC + DECLARES, dynamic_shapes=False) == []


def test_batch_first_modules_with_only_the_batch_dynamic_are_quiet():
    batch_only = DECLARES.replace('{0: "b", 1: "t"}', '{0: "b"}')
    assert lint(SRC + batch_only) == []  # both modules batch-first: measured, another batch runs
    # a sequence-first MultiheadAttention: dim 0 is its sequence
    seq_first = SRC.replace("nn.MultiheadAttention(32, 4, batch_first=True)", "nn.MultiheadAttention(32, 4)")
    assert [f.line for f in lint(seq_first + batch_only)] == [15]
