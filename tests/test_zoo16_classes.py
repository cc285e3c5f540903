"""Issue 10 (branch zoo16): three classes from the zoo scoreboard's misses, each with a reproducer and
silent controls, self-contained (no zoo needed). Exporter behaviour measured with torch 2.13.0 in
bench/labels/probes_zoo16/ (scripts and their JSON-lines output):

- EXL134: ``x.view(b, torch.div(s, 4, rounding_mode="trunc"), 4, d)`` of a non-contiguous tensor, seq
  dynamic, fails strict, non-strict and onnx-dynamo ("Could not guard on data-dependent expression
  4*u0 < 8"); ``s // 4`` passes (probe_torch_div_size). Longformer ``_chunk`` (modeling_longformer.py:707).
- EXL147: ``Function.apply(x, self.layers, 2)`` fails the legacy exporter ("unordered_map::at");
  tensors and numbers only pass (probe_function_module_arg). Reformer (modeling_reformer.py:1791).
- EXL111 at the ``and`` that takes a shape comparison's truth for a flag branched on later: torch adds
  the guard at the assignment's operand, not at the ``if`` (probe_bool_flag: guard_lines).
  Reformer (modeling_reformer.py:2023, the ``if`` at :2028).
"""

from __future__ import annotations

from conftest import line_of, lint

CHUNK = """
import torch
from torch import nn


class Attn(nn.Module):
    @staticmethod
    def _chunk(hidden_states, window_overlap):
        hidden_states = hidden_states.view(  # VIEW
            hidden_states.size(0),
            torch.div(hidden_states.size(1), (window_overlap * 2), rounding_mode="trunc"),
            window_overlap * 2,
            hidden_states.size(2),
        )
        return hidden_states

    def forward(self, q):
        b, s, d = q.size()
        n = torch.div(s, 4, rounding_mode="floor")
        y = q.view(b, n, 4, d)  # NAMED
        return self._chunk(q.transpose(0, 1).contiguous().transpose(0, 1), 2).sum() + y.sum()
"""

CHUNK_CONTROLS = """
import torch
from torch import nn


class Attn(nn.Module):
    def forward(self, q, lengths):
        b, s, d = q.size()
        a = q.view(b, s // 4, 4, d)                             # Python division: a symbolic size
        out = torch.div(lengths - 3, 2, rounding_mode="floor")  # a tensor op on tensors
        w = q * torch.div(s, 4, rounding_mode="trunc")         # only in tensor arithmetic
        t = q.view(b, torch.div(s, 4), 4, d)                    # true division (a float): not claimed
        n = torch.div(s, 4, rounding_mode="trunc")
        n = n + 1                                               # bound twice: not followed
        u = q.view(b, n, 4, d)
        return a, out, w, t, u
"""


def _codes(src, code):
    return [f for f in lint(src, codes=[code])]


def test_torch_div_of_sizes_as_a_view_size_is_a_warning_at_the_view():
    got = _codes(CHUNK, "EXL134")
    assert sorted(f.line for f in got) == sorted([line_of(CHUNK, "# VIEW"), line_of(CHUNK, "# NAMED")])
    for f in got:
        assert f.severity.value == "warning"
        assert set(f.exporters) == {"export-strict", "export-nonstrict", "onnx-dynamo"}
        assert "`s // k`" in f.message


def test_torch_div_controls_are_silent():
    assert _codes(CHUNK_CONTROLS, "EXL134") == []


REVERSIBLE = """
import torch
from torch import nn
from torch.autograd import Function


class Rev(Function):
    @staticmethod
    def forward(ctx, hidden_states, layers, mask, n):
        for layer in layers:
            hidden_states = layer(hidden_states)
        return hidden_states

    @staticmethod
    def backward(ctx, g):
        return g, None, None, None


class WithSymbolic(Function):
    @staticmethod
    def forward(ctx, x, layers):
        return x

    @staticmethod
    def symbolic(g, x, layers):
        return x


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 4)])
        self.proj = nn.Linear(4, 4)
        self.scale = nn.Parameter(torch.ones(4))

    def forward(self, x, mask=None):
        a = Rev.apply(x, self.layers, mask, 2)  # LAYERS
        b = Rev.apply(x, [self.proj], mask, 2)  # LISTED
        c = Rev.apply(x, self.scale, mask, 2)   # a parameter: passes
        d = WithSymbolic.apply(x, self.layers)  # has symbolic
        return a + b + c + d
"""


def test_function_applied_to_submodules_is_a_legacy_error():
    got = _codes(REVERSIBLE, "EXL147")
    assert sorted(f.line for f in got) == sorted([line_of(REVERSIBLE, "# LAYERS"), line_of(REVERSIBLE, "# LISTED")])
    for f in got:
        assert f.severity.value == "error"
        assert set(f.exporters) == {"onnx-legacy"}
        assert "unordered_map::at" in f.message


FLAG = """
import torch
import torch.nn.functional as F
from torch import nn


class M(nn.Module):
    def forward(self, x, past=None):
        s = x.shape[-1]
        must_pad = (
            s % 4 != 0  # OPERAND
            and s > 2
            and past is None
        )
        if must_pad:  # FLAG_IF
            x = F.pad(x, (0, 4 - s % 4))
        last = past is None and s % 2 != 0
        if last:  # LAST_IF
            x = x + 1
        plain = s % 8 != 0
        if plain:  # PLAIN_IF
            x = x + 2
        twice = s % 3 != 0 and past is None
        twice = twice or s > 5
        if twice:  # TWICE_IF
            x = x + 3
        both = s % 5 > 0 or s % 7 > 0
        if both:  # BOTH_IF
            x = x + 4
        return x
"""


def test_shape_flag_of_an_and_is_reported_at_the_operand():
    got = {f.line: f for f in _codes(FLAG, "EXL111")}
    assert line_of(FLAG, "# OPERAND") in got
    assert line_of(FLAG, "# FLAG_IF") not in got
    assert "takes its truth here" in got[line_of(FLAG, "# OPERAND")].message


def test_shape_flag_controls_stay_at_the_if():
    # the last operand's truth, a plain comparison's and a flag bound twice are taken at the branch; so is
    # the last of two shape comparisons (timm tiny_vit `padding = pad_b > 0 or pad_r > 0`)
    got = {f.line for f in _codes(FLAG, "EXL111")}
    for mark in ("# LAST_IF", "# PLAIN_IF", "# TWICE_IF", "# BOTH_IF"):
        assert line_of(FLAG, mark) in got, mark


PLAN = """
import numpy as np
import torch
from torch import nn


class Attn(nn.Module):
    def __init__(self, block_size, n_rand):
        super().__init__()
        self.block_size = block_size
        self.num_random_blocks = n_rand

    @staticmethod
    def _plan(from_seq_length, from_block_size, num_rand_blocks):
        plan_from_length = []
        plan_num_rand_blocks = []
        if (2 * num_rand_blocks + 5) < (from_seq_length // from_block_size):
            plan_from_length.append(int((2 * num_rand_blocks + 5) * from_block_size))
            plan_num_rand_blocks.append(num_rand_blocks)
        plan_from_length.append(from_seq_length)
        plan_num_rand_blocks.append(0)
        return plan_from_length, plan_num_rand_blocks

    def _mask(self, from_block_size, plan_from_length, plan_num_rand_blocks):
        blocks = np.array(plan_from_length) // from_block_size  # SIZES
        counts = np.array(plan_num_rand_blocks)                   # NUMBERS
        return torch.from_numpy(blocks * counts)

    def _attn(self, x, from_seq_len, plan_from_length=None, plan_num_rand_blocks=None):
        if plan_from_length is None:
            plan_from_length, plan_num_rand_blocks = self._plan(from_seq_len, self.block_size, self.num_random_blocks)
        return x + self._mask(from_block_size=self.block_size, plan_from_length=plan_from_length,
                              plan_num_rand_blocks=plan_num_rand_blocks)

    def forward(self, x):
        batch_size, seqlen = x.size()
        return self._attn(x, seqlen)
"""


def test_list_of_sizes_returned_by_a_helper_reaches_numpy():
    # bigbird modeling_big_bird.py:901: the plan list holds the sequence length (a size)
    got = {f.line for f in _codes(PLAN, "EXL201")}
    assert got == {line_of(PLAN, "# SIZES")}  # the list of numbers only is not a list of sizes

