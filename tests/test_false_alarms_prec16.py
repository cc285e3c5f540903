"""Issue 10 (branch prec16): false-alarm classes of the seventh fresh zoo population (tabpfn,
spikingjelly, easyocr, doctr, ...), one reproducer each, with the controls that must keep
firing. The exporters' behaviour behind each is measured in bench/labels/probes_prec16/."""

from __future__ import annotations

from pathlib import Path

from conftest import codes_at as codes
from conftest import line_of, write_package
from conftest import lint_package as _lint


def _errors(findings):
    return sorted((Path(f.path).name, f.line, f.code) for f in findings if f.severity.value == "error")


# ---------------------------------------------------------------------------------------
# Q-EXCEPTWRITE: a Python attribute written in an `except` handler of forward (tabpfn's OOM
# retry: `except RuntimeError: ... self.inference_chunk_cells = ...`) runs only when the traced
# body raised; an export that succeeds never runs it, and the attribute is read only by the
# next call's chunking (probe q37: all four exporters pass and match)
# ---------------------------------------------------------------------------------------

_OOM_RETRY = """import torch
import torch.nn as nn


class Chunked(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.chunk = 8

    def forward(self, x):
        size = self.chunk
        while True:
            try:
                parts = [self.lin(p) for p in x.split(size)]
                break
            except RuntimeError as e:
                if "out of memory" not in str(e) or size <= 1:
                    raise
                size //= 2
                self.chunk = size  # HANDLER
        return torch.cat(parts)
"""


def test_exceptwrite_state_written_in_an_except_handler_is_not_reported(tmp_path):
    line = line_of(_OOM_RETRY, "# HANDLER")
    assert (line, "EXL203") not in codes(_OOM_RETRY)
    found = _lint(write_package(tmp_path, {"chunked.py": _OOM_RETRY}, "exceptwrite"))
    assert ("chunked.py", line, "EXL203") not in _errors(found)


def test_exceptwrite_control_the_same_write_on_the_traced_path_still_fires(tmp_path):
    # the write moved out of the handler (after the loop): every call runs it
    src = _OOM_RETRY.replace("                self.chunk = size  # HANDLER\n", "").replace(
        "        return torch.cat(parts)\n", "        self.chunk = size  # TRACED\n        return torch.cat(parts)\n")
    line = line_of(src, "# TRACED")
    assert (line, "EXL203") in codes(src)
    found = _lint(write_package(tmp_path, {"chunked.py": src}, "exceptwritec"))
    assert ("chunked.py", line, "EXL203") in _errors(found)


def test_exceptwrite_control_a_write_in_the_try_body_still_fires():
    # the try body is traced: a write there is state like any other
    src = _OOM_RETRY.replace("                parts = [self.lin(p) for p in x.split(size)]\n",
                             "                parts = [self.lin(p) for p in x.split(size)]\n"
                             "                self.chunk = size + 1  # BODY\n")
    assert (line_of(src, "# BODY"), "EXL203") in codes(src)


# ---------------------------------------------------------------------------------------
# Q-KEYSIBLING: a cache and its key refilled together under `if self._grid is None or
# self._res != dims:` (neuraloperator's GridEmbedding2D): each disjunct tests an attribute of
# self that is unset or stale, so the fill runs on a fresh model's first call and is computed
# in the graph (probe q67: all four exporters pass and match)
# ---------------------------------------------------------------------------------------

_GRID = """import torch
import torch.nn as nn


class GridEmbedding(nn.Module):
    def __init__(self):
        super().__init__()
        self._grid = None
        self._res = None

    def grid(self, dims, device, dtype):
        if self._grid is None or self._res != dims:
            gx = torch.linspace(0, 1, dims[0]).to(device).to(dtype)
            gy = torch.linspace(0, 1, dims[1]).to(device).to(dtype)
            self._grid = gx[:, None].expand(dims[0], dims[1]), gy[None].expand(dims[0], dims[1])  # GRID
            self._res = dims  # RES
        return self._grid

    def forward(self, data):
        gx, gy = self.grid(data.shape[-2:], data.device, data.dtype)
        b = data.shape[0]
        return torch.cat((data, gx.expand(b, 1, -1, -1), gy.expand(b, 1, -1, -1)), dim=1)
"""


def test_keysibling_cache_and_key_refilled_together_are_not_reported(tmp_path):
    got = codes(_GRID)
    assert (line_of(_GRID, "# GRID"), "EXL203") not in got
    assert (line_of(_GRID, "# RES"), "EXL203") not in got
    found = _lint(write_package(tmp_path, {"emb.py": _GRID}, "keysibling"))
    assert [e for e in _errors(found) if e[2] == "EXL203"] == []


def test_keysibling_control_an_or_with_a_test_of_no_attribute_still_fires():
    # `n_calls == 0 or self._grid is None`: the other disjunct is not a test of the cache's
    # state, so a value from an earlier call is kept on the other path (carried state)
    src = _GRID.replace("    def grid(self, dims, device, dtype):\n        if self._grid is None or self._res != dims:",
                        "    def grid(self, dims, device, dtype, n_calls=1):\n"
                        "        if n_calls == 0 or self._grid is None:")
    assert (line_of(src, "# GRID"), "EXL203") in codes(src)


# ---------------------------------------------------------------------------------------
# Q-SCALAR0D: an unregistered 0-d tensor of a number literal (`self.scale = torch.tensor(0.0)`,
# spikingjelly's ScaleLayer) read only as an operand of arithmetic: a 0-d CPU tensor is a valid
# operand beside a tensor on any device, so the moved model and its exported program still run
# (probe q30, `meta` standing in for another device: 0-d passes, 1-d fails)
# ---------------------------------------------------------------------------------------

_SCALE = """import torch
import torch.nn as nn


class ScaleLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.tensor(0.0)  # SCALE

    def forward(self, x):
        return x * self.scale + 1
"""


def test_scalar0d_in_arithmetic_only_is_not_reported():
    assert (line_of(_SCALE, "# SCALE"), "EXL303") not in codes(_SCALE)


def test_scalar0d_control_a_1d_tensor_still_fires():
    src = _SCALE.replace("torch.tensor(0.0)", "torch.tensor([0.0, 1.0])")
    assert (line_of(src, "# SCALE"), "EXL303") in codes(src)


def test_scalar0d_control_a_0d_tensor_read_outside_arithmetic_still_fires():
    # handed to an op as a tensor argument (`torch.cat`): the device rule for 0-d operands of
    # arithmetic does not cover it
    src = _SCALE.replace("        return x * self.scale + 1\n",
                         "        return torch.cat([x, self.scale.reshape(1)])\n")
    assert (line_of(src, "# SCALE"), "EXL303") in codes(src)


# ---------------------------------------------------------------------------------------
# Q-SELFNORM: a number option widened once into a list of itself under a test that it is still
# a number (`if isinstance(self.domain_padding, (float, int)): self.domain_padding =
# [float(self.domain_padding)] * len(res)`, neuraloperator's DomainPadding; mmagic's NAFNet
# pooling size): the new value fails the test, so only the first call writes, and every call
# sees the same value (probe q58: all four exporters pass and match, fresh and warmed)
# ---------------------------------------------------------------------------------------

_PADDING = """import torch
import torch.nn as nn
import torch.nn.functional as F


class DomainPadding(nn.Module):
    def __init__(self, domain_padding=0.25):
        super().__init__()
        self.domain_padding = domain_padding

    def forward(self, x):
        resolution = x.shape[2:]
        if isinstance(self.domain_padding, (float, int)):
            self.domain_padding = [float(self.domain_padding)] * len(resolution)  # NORM
        pad = [int(p * r) for p, r in zip(self.domain_padding, resolution)]
        return F.pad(x, [q for p in pad[::-1] for q in (0, p)])
"""


def test_selfnorm_number_option_widened_once_is_not_reported(tmp_path):
    line = line_of(_PADDING, "# NORM")
    assert (line, "EXL203") not in codes(_PADDING)
    found = _lint(write_package(tmp_path, {"padding.py": _PADDING}, "selfnorm"))
    assert ("padding.py", line, "EXL203") not in _errors(found)


def test_selfnorm_control_a_value_from_the_input_still_fires():
    # the list is built from the input's values: a different value on every call
    src = _PADDING.replace("[float(self.domain_padding)] * len(resolution)", "[float(x.mean())] * len(resolution)")
    assert (line_of(src, "# NORM"), "EXL203") in codes(src)


def test_selfnorm_control_a_test_the_new_value_still_passes_still_fires():
    # `isinstance(..., (float, int, list))`: the list passes the test too, so every call rewrites it
    src = _PADDING.replace("(float, int)):", "(float, int, list)):")
    assert (line_of(src, "# NORM"), "EXL203") in codes(src)
