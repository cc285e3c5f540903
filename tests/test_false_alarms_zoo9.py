"""Issue 10 (branch zoo9): false-alarm classes exposed on torchvision's detection code once lists of
tensors are followed through loops (tests/test_objects.py), one reproducer each with its control.
Exporter behaviour measured with torch 2.13.0 (bench/labels/probes_zoo9/)."""

from __future__ import annotations

from conftest import line_of, lint

SCRIPTED = """
import torch
import torchvision


@torch.jit._script_if_tracing
def take(x, k):
    n = int(k.sum())  # SCRIPTED
    return x[:n]


def plain(x, k):
    n = int(k.sum())  # PLAIN
    return x[:n]


class M(torch.nn.Module):
    def forward(self, x, k):
        return take(x, k) + plain(x, k)


class G(torch.nn.Module):
    def forward(self, x, k):
        if torchvision._is_tracing():
            n = int(k.sum())  # TRACING-ONLY
        else:
            n = int(k.max())  # NOT-TRACING
        return x[:n]
"""


def _exporters(src, marker):
    line = line_of(src, marker)
    return {e for f in lint(src) if f.line == line and f.code == "EXL102" for e in f.exporters}


def test_script_if_tracing_is_scripted_by_the_legacy_tracer():
    """bench/labels/probes_zoo9/script_if_tracing.out: the legacy exporter scripts the function (no
    TracerWarning, right at another input); torch.export non-strict fails on its int(tensor)."""
    scripted = _exporters(SCRIPTED, "# SCRIPTED")
    assert scripted and "onnx-legacy" not in scripted and "export-nonstrict" in scripted
    assert "onnx-legacy" in _exporters(SCRIPTED, "# PLAIN")  # control: an undecorated helper


def test_torchvision_is_tracing_is_the_legacy_tracer_only():
    """torchvision._is_tracing() is torch._C._get_tracing_state(): its branch runs under the legacy
    exporter only, the other branch under the others."""
    assert _exporters(SCRIPTED, "# TRACING-ONLY") <= {"onnx-legacy"}
    assert "onnx-legacy" not in _exporters(SCRIPTED, "# NOT-TRACING")
    assert "export-nonstrict" in _exporters(SCRIPTED, "# NOT-TRACING")


CHUNK_KW = """
import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Conv2d(3, 4, 1)

    def forward(self, image1, image2):
        fmaps = self.enc(torch.cat([image1, image2], dim=0))
        fmap1, fmap2 = torch.chunk(fmaps, chunks=2, dim=0)  # KW
        c, d = torch.chunk(fmaps, chunks=2, dim=1)  # STATIC-DIM
        return fmap1 + fmap2 + c + d
"""


def test_chunk_count_given_by_keyword_is_read():
    """EXL114 (recall): `torch.chunk(x, chunks=2, dim=0)` splits the batch like `torch.chunk(x, 2, dim=0)`
    (torchvision RAFT's two frames, concatenated then chunked, is this form); dim 1 stays unreported."""
    found = {(f.line, f.code) for f in lint(CHUNK_KW)}
    assert (line_of(CHUNK_KW, "# KW"), "EXL114") in found
    assert (line_of(CHUNK_KW, "# STATIC-DIM"), "EXL114") not in found
