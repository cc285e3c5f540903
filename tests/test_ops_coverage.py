"""EXL401/402 on APIs the op table learned from held-out real issue cases (bench/cases/, batch 3).

Facts measured with torch 2.13 by `exportlint ops generate` (rules/op_support.json):
- `F.affine_grid` (no OpInfo sample): legacy exports it only from opset 20
  ("Exporting the operator 'aten::affine_grid_generator' to ONNX opset version 16 is not
  supported. Support for this operator was added in version 20"), pytorch/pytorch#96449.
- `torch.fft.rfftfreq` / `fftfreq`: no translation in either ONNX exporter
  ("No ONNX function found for aten.fft_rfftfreq.default"), pytorch/pytorch#112382.
- `nn.MaxUnpool2d` has no record of its own; its forward only calls `F.max_unpool2d`, which
  the legacy exporter fails (measured on the module at opsets 11/13/17/20: "cond must be a
  bool, but got a Tensor"), pytorch/pytorch#85388. Reported at the call in forward.
- a submodule built with `torch.jit.script(M())` fails all four exporters when called in
  forward (strict: "torch.jit.script/freeze modules unsupported"; legacy: "Modules that are
  called during a trace must be registered as submodules"), pytorch/pytorch#86261;
  `torch.jit.trace(M(), x)` fails strict and legacy only.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from exportlint.config import Config
from exportlint.engine import lint_source

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "rules" / "op_support.json"
CODES = ("EXL401", "EXL402")

needs_table = pytest.mark.skipif(not TABLE.is_file(), reason="rules/op_support.json not generated")


def lint(src: str, **cfg) -> list:
    return list(lint_source(textwrap.dedent(src), "m.py", config=Config(**cfg), codes=CODES))


def by_line(src: str, **cfg) -> dict[int, list]:
    out: dict[int, list] = {}
    for f in lint(src, **cfg):
        out.setdefault(f.line, []).append(f)
    return out


STN = """\
import torch
import torch.nn.functional as F


class STN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 6)

    def forward(self, x, z):
        theta = self.fc(z).view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        return F.grid_sample(x, grid, align_corners=False)
"""


@needs_table
def test_affine_grid_needs_opset_20_for_legacy():
    got = by_line(STN, opset=16)
    assert list(got) == [12]
    (f,) = got[12]
    assert f.code == "EXL402" and tuple(f.exporters) == ("onnx-legacy",)
    assert "opset >= 20" in f.message
    assert lint(STN) == []  # default opset 20


@needs_table
def test_fftfreq_fails_both_onnx_exporters():
    src = """\
    import torch


    class Spectrum(torch.nn.Module):
        def forward(self, signal):
            mag = torch.fft.rfft(signal).abs()
            freqs = torch.fft.rfftfreq(signal.shape[-1])
            return (mag * freqs).sum(-1)
    """
    got = by_line(src)
    assert sorted(got) == [6, 7]
    (f,) = got[7]
    assert f.code == "EXL401" and set(f.exporters) == {"onnx-dynamo", "onnx-legacy"}
    assert "fft_rfftfreq" in f.message


UNPOOL = """\
import torch


class SegNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = torch.nn.MaxPool2d(2, 2, return_indices=True)
        self.unpool = torch.nn.MaxUnpool2d(2, 2)
        self.shuffle = torch.nn.PixelShuffle(2)
        self.bag = torch.nn.EmbeddingBag(10, 4, mode="max")

    def forward(self, x, ids, offsets):
        y, idx = self.pool(x)
        y = self.unpool(y, idx, output_size=x.size())
        return self.shuffle(y), self.bag(ids, offsets)
"""


@needs_table
def test_module_without_record_uses_its_functional_at_the_call():
    got = by_line(UNPOOL)
    # MaxUnpool2d -> F.max_unpool2d, at the call in forward (line 14), not at the constructor;
    # PixelShuffle's functional exports everywhere; EmbeddingBag's record depends on keywords
    # (the module's arguments are not the functional's), so it is not borrowed
    assert list(got) == [14]
    (f,) = got[14]
    assert f.code == "EXL401" and tuple(f.exporters) == ("onnx-legacy",)
    assert "`torch.nn.MaxUnpool2d`" in f.message


@needs_table
def test_module_forward_map_points_at_records():
    data = json.loads(TABLE.read_text())
    fwd = data.get("module_forward", {})
    assert fwd.get("torch.nn.MaxUnpool2d") == "torch.nn.functional.max_unpool2d"
    for mod, fn in fwd.items():
        assert mod not in data["apis"] and fn in data["apis"], (mod, fn)


SCRIPTED = """\
import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.fc(x))


def helper(x):
    return x * 2


class Outer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scripted = torch.jit.script(Block())
        self.traced = torch.jit.trace(Block(), torch.randn(2, 8))
        self.fn = torch.jit.script(helper)
        self.head = torch.nn.Linear(8, 2)

    def forward(self, x):
        a = self.scripted(x)
        b = self.traced(x)
        return self.head(a + b + self.fn(x))
"""


@needs_table
def test_torchscript_submodule_called_in_forward():
    got = by_line(SCRIPTED)
    assert sorted(got) == [26, 27]
    (s,) = got[26]
    assert s.code == "EXL401"
    assert set(s.exporters) == {"export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"}
    assert "torch.jit.script/freeze modules unsupported" in s.message
    (t,) = got[27]
    assert set(t.exporters) == {"export-strict", "onnx-legacy"}
    # a scripted function (not a module instance) is not matched: line 28 has no finding


@needs_table
def test_pack_padded_sequence_fails_torch_export_not_legacy():
    # measured (torch 2.13, pack + pad_packed pair with lengths as an input): strict "Attempted to
    # call function marked as skipped", non-strict and onnx-dynamo "Could not guard on
    # data-dependent expression"; the legacy exporter exports the pair (pytorch/pytorch#49936)
    src = """\
    import torch
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = torch.nn.GRU(8, 16, batch_first=True)

        def forward(self, x, lengths):
            packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
            out, _ = self.rnn(packed)
            return pad_packed_sequence(out, batch_first=True)[0]
    """
    got = by_line(src)
    assert list(got) == [11]
    (f,) = got[11]
    assert set(f.exporters) == {"export-strict", "export-nonstrict", "onnx-dynamo"}


@needs_table
def test_silent_divergence_recorded_by_the_trial_export():
    # measured (torch 2.13, onnxscript 0.7.2, onnxruntime): onnx-dynamo exports
    # scatter_reduce(reduce="mean") without error and onnxruntime returns other numbers (token
    # merging, pytorch/pytorch#101535); legacy refuses it. avg_pool2d(divisor_override=) is ignored
    # by both ONNX exporters; sum/amax reductions match eager and are not reported.
    src = """\
    import torch
    import torch.nn.functional as F


    class Merge(torch.nn.Module):
        def forward(self, dst, idx, src):
            a = dst.scatter_reduce(-2, idx, src, reduce="mean")
            b = dst.scatter_reduce(-2, idx, src, reduce="amax")
            c = F.avg_pool2d(a, 2, divisor_override=2)
            return a + b, c
    """
    got = by_line(src)
    assert sorted(got) == [7, 9]
    (f,) = got[7]
    assert set(f.exporters) == {"onnx-dynamo", "onnx-legacy"}
    assert "onnx-dynamo at opset 20: Diverged:" in f.message and "fails to export" in f.message
    (g,) = got[9]
    assert set(g.exporters) == {"onnx-dynamo", "onnx-legacy"} and "exports wrong numbers" in g.message
