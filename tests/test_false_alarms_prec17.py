"""Issue 10 (branch prec17): false-alarm classes of the eighth fresh zoo population
(super-gradients, torch-geometric-temporal, imagen-pytorch, se3-transformer-pytorch, torchscale,
...), one reproducer each, with the controls that must keep firing. The exporters' behaviour
behind each is measured in bench/labels/probes_prec17/."""

from __future__ import annotations

from conftest import codes_at as codes
from conftest import lint, line_of


def _found(src, code):
    return [f for f in lint(src) if f.code == code]


# ---------------------------------------------------------------------------------------
# R-INDEXONLY (EXL303): an unregistered tensor read only as an index of a subscript
# (super-gradients' DEKR flip wrapper: `heat[:, self.flip_indexes_heatmap, :, :]`): advanced
# indexing takes an index tensor on the CPU for a tensor on any device, so eager and both
# torch.export programs moved to another device run (probe r27, `meta` standing in for it; the
# same attribute in arithmetic fails all three: r27c)
# ---------------------------------------------------------------------------------------

_INDEX_ONLY = """import torch
import torch.nn as nn


class FlipWrapper(nn.Module):
    def __init__(self, model, flip_indexes):
        super().__init__()
        self.model = model
        self.flip_idx = torch.tensor(list(flip_indexes) + [len(flip_indexes)]).long()  # ATTR

    def forward(self, x):
        heat = self.model(x)
        heat_flip = self.model(x.flip(3))
        return heat + heat_flip[:, self.flip_idx, :, :].flip(3)
"""


def test_indexonly_attribute_read_only_as_a_subscript_index_is_not_reported():
    assert (line_of(_INDEX_ONLY, "# ATTR"), "EXL303") not in codes(_INDEX_ONLY)


def test_indexonly_control_the_attribute_in_arithmetic_still_fires():
    src = _INDEX_ONLY.replace("heat_flip[:, self.flip_idx, :, :].flip(3)", "heat_flip * self.flip_idx[None, :, None, None]")
    assert (line_of(src, "# ATTR"), "EXL303") in codes(src)


def test_indexonly_control_an_index_select_with_the_attribute_still_fires():
    # index_select wants the index on the tensor's device
    src = _INDEX_ONLY.replace("heat_flip[:, self.flip_idx, :, :]", "heat_flip.index_select(1, self.flip_idx)")
    assert (line_of(src, "# ATTR"), "EXL303") in codes(src)


def test_indexonly_control_one_read_elsewhere_is_enough_to_fire():
    src = _INDEX_ONLY.replace("        return heat +", "        heat = heat + self.flip_idx.sum()\n        return heat +")
    assert (line_of(src, "# ATTR"), "EXL303") in codes(src)


# ---------------------------------------------------------------------------------------
# R-TOINPUT (EXL303 exporters): every read moves the attribute to an input's device
# (`self._idx.to(X_in.device)`, torch-geometric-temporal's MTGNN): eager on another device passes,
# the ONNX graphs hold no device, and only the torch.export programs moved to another device fail
# (probe r30): the finding names export-strict and export-nonstrict only
# ---------------------------------------------------------------------------------------

_TO_INPUT = """import torch
import torch.nn as nn


class Graph(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = nn.Linear(n, n)
        self._idx = torch.arange(n)  # ATTR

    def forward(self, x):
        idx = self._idx.to(x.device)
        return self.lin(x) + idx.float()
"""


def test_toinput_attribute_moved_at_each_read_names_only_torch_export():
    line = line_of(_TO_INPUT, "# ATTR")
    hits = [f for f in _found(_TO_INPUT, "EXL303") if f.line == line]
    assert len(hits) == 1
    assert tuple(hits[0].exporters) == ("export-strict", "export-nonstrict")
    assert hits[0].severity.value == "error"


def test_toinput_control_a_read_not_moved_names_all_four():
    src = _TO_INPUT.replace("        return self.lin(x) + idx.float()", "        return self.lin(x) + idx.float() + self._idx")
    line = line_of(src, "# ATTR")
    hits = [f for f in _found(src, "EXL303") if f.line == line]
    assert len(hits) == 1 and len(hits[0].exporters) == 4


def test_toinput_control_a_dtype_cast_is_not_a_move():
    src = _TO_INPUT.replace("self._idx.to(x.device)", "self._idx.to(torch.float32)")
    line = line_of(src, "# ATTR")
    hits = [f for f in _found(src, "EXL303") if f.line == line]
    assert len(hits) == 1 and len(hits[0].exporters) == 4


# ---------------------------------------------------------------------------------------
# R-ELSEFILL (EXL401): a random fill in the `else` arm of an `if` testing a parameter of its
# function (imagen-pytorch's `prob_mask_like`: `if prob == 1: ... elif prob == 0: ... else:
# ....uniform_(0, 1) < prob`): whether the draw is reached depends on how the function is called
# (the Unet's forward passes `1 - cond_drop_prob` with `cond_drop_prob = 0.` by default), which
# cases16's rule already leaves out for the `if` arm (measured there: bench/labels/probes_cases16)
# ---------------------------------------------------------------------------------------

_ELSE_FILL = """import torch
import torch.nn as nn


def prob_mask_like(shape, prob, device):
    if prob == 1:
        return torch.ones(shape, device=device, dtype=torch.bool)
    elif prob == 0:
        return torch.zeros(shape, device=device, dtype=torch.bool)
    else:
        return torch.zeros(shape, device=device).float().uniform_(0, 1) < prob  # FILL


class Unet(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x, cond_drop_prob=0.):
        keep = prob_mask_like((x.shape[0],), 1 - cond_drop_prob, device=x.device)
        return self.lin(x) * keep[:, None]
"""


def test_elsefill_fill_in_the_else_arm_of_a_parameter_test_is_not_reported():
    assert (line_of(_ELSE_FILL, "# FILL"), "EXL401") not in codes(_ELSE_FILL)


def test_elsefill_control_the_fill_unconditional_still_fires():
    src = _ELSE_FILL.replace("    if prob == 1:\n        return torch.ones(shape, device=device, dtype=torch.bool)\n"
                             "    elif prob == 0:\n        return torch.zeros(shape, device=device, dtype=torch.bool)\n"
                             "    else:\n        return", "    if True:\n        return")
    assert (line_of(src, "# FILL"), "EXL401") in codes(src)


def test_elsefill_control_else_of_a_test_on_a_computed_value_still_fires():
    # the test reads no parameter of the function: a value it computes
    src = _ELSE_FILL.replace("    if prob == 1:", "    n = len(shape)\n    if n == 1:").replace("    elif prob == 0:", "    elif n == 0:")
    assert (line_of(src, "# FILL"), "EXL401") in codes(src)


# ---------------------------------------------------------------------------------------
# R-EQUALKEY (EXL203): a cache and its keys refilled under `self.K == None or self.B != b or
# not torch.equal(self.K, key)` (torch-geometric-temporal's DCRNN): Q-KEYSIBLING's or-ed unset
# test with `torch.equal` as the staleness test. Fresh, the branch runs and the graph computes
# the value from the input: all four pass and match (probe r2 e1); warmed, `torch.equal` is a
# data-dependent test (r2 e1w: strict, non-strict and dynamo fail, legacy bakes it), which
# EXL101 reports at the `if` (kept)
# ---------------------------------------------------------------------------------------

_EQUAL_KEY = """import torch
import torch.nn as nn


class DCRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self._cached_edge_index = None
        self._cached_batch_size = None
        self._cached_edge_weight = None
        self._cached_expanded = None

    def forward(self, x, edge_index, edge_weight):
        b = x.size(0)
        if self._cached_edge_index == None or self._cached_batch_size != b \\
                or not torch.equal(self._cached_edge_index, edge_index) or not torch.equal(self._cached_edge_weight, edge_weight):  # TEST
            self._cached_batch_size = b  # KEY1
            self._cached_edge_index = edge_index  # KEY2
            self._cached_edge_weight = edge_weight  # KEY3
            self._cached_expanded = (edge_index * edge_weight).sum(0)  # VALUE
        return self.lin(x) + self._cached_expanded[None, :3].float()
"""


def test_equalkey_cache_keys_refilled_under_torch_equal_staleness_are_not_reported():
    found = codes(_EQUAL_KEY)
    for m in ("# KEY1", "# KEY2", "# KEY3", "# VALUE"):
        assert (line_of(_EQUAL_KEY, m), "EXL203") not in found, m
    # the data-dependent test itself stays reported (a warmed model fails)
    assert (line_of(_EQUAL_KEY, "if self._cached_edge_index == None"), "EXL101") in found


def test_equalkey_control_an_or_ed_test_of_the_input_alone_still_fires():
    # `not torch.equal(edge_index, edge_weight)`: no attribute of self is tested there
    src = _EQUAL_KEY.replace("not torch.equal(self._cached_edge_weight, edge_weight)", "not torch.equal(edge_index, edge_weight)")
    assert (line_of(src, "# KEY1"), "EXL203") in codes(src)


# ---------------------------------------------------------------------------------------
# R-ONCEGUARD (EXL203): a one-shot setup behind a set-once guard (imagen-pytorch's
# ImagenTrainer.wrap_unet: `if hasattr(self, 'one_unet_wrapped'): return` ...
# `self.one_unet_wrapped = True`): the writes after the guard run while the flag is unset only
# (probe r2 o1: all four pass and match, fresh and warmed)
# ---------------------------------------------------------------------------------------

_ONCE = """import torch
import torch.nn as nn


class Trainer(nn.Module):
    def __init__(self, scales):
        super().__init__()
        self.unet = nn.Linear(3, 3)
        self.scales = scales

    def wrap(self):
        if hasattr(self, "one_unet_wrapped"):
            return
        if self.scales:
            self.scales = [float(s) for s in self.scales]  # SETUP1
        self.scale = sum(self.scales) + self.scale_base()  # SETUP2
        self.one_unet_wrapped = True

    def scale_base(self):
        return getattr(self, "scale", 0.0)

    def forward(self, x):
        self.wrap()
        return self.unet(x) * self.scale
"""


def test_onceguard_setup_after_a_set_once_guard_is_not_reported():
    found = codes(_ONCE)
    assert (line_of(_ONCE, "# SETUP1"), "EXL203") not in found
    assert (line_of(_ONCE, "# SETUP2"), "EXL203") not in found


def test_onceguard_control_the_flag_never_set_still_fires():
    src = _ONCE.replace("        self.one_unet_wrapped = True\n", "")
    assert (line_of(src, "# SETUP1"), "EXL203") in codes(src)


def test_onceguard_control_the_flag_set_only_in_a_branch_still_fires():
    src = _ONCE.replace("        self.one_unet_wrapped = True\n", "        if x_is_ready():\n            self.one_unet_wrapped = True\n")
    assert (line_of(src, "# SETUP1"), "EXL203") in codes(src)


def test_onceguard_control_a_guard_that_returns_a_value_still_fires():
    # `if self.ready: return self.cached_other`: not a bare return of a set-once guard
    src = _ONCE.replace('        if hasattr(self, "one_unet_wrapped"):\n            return\n',
                        '        if hasattr(self, "one_unet_wrapped"):\n            return self.unet\n')
    assert (line_of(src, "# SETUP1"), "EXL203") in codes(src)


# ---------------------------------------------------------------------------------------
# R-STRKEY (EXL101): `if degree in res:` with `degree = str(degree)` (se3-transformer's
# ResidualSE3, `res` a dict of tensors keyed by degree): Tensor.__contains__ raises on a str, so
# the container is a mapping, a list or a string and the test is a Python bool (as the string
# literal case `"key" in outputs` already was)
# ---------------------------------------------------------------------------------------

_STR_KEY = """import torch
import torch.nn as nn


class ResidualSE3(nn.Module):
    def forward(self, x, res):
        out = {}
        for degree, tensor in x.items():
            degree = str(degree)
            out[degree] = tensor
            if degree in res:  # TEST
                out[degree] = out[degree] + res[degree]
        return out
"""


def test_strkey_membership_of_a_str_bound_local_is_not_reported():
    assert (line_of(_STR_KEY, "# TEST"), "EXL101") not in codes(_STR_KEY)


def test_strkey_control_a_tensor_element_in_a_tensor_still_fires():
    # the left side is an element of the input, not a str: `x in t` is `(t == x).any()`
    src = _STR_KEY.replace("            degree = str(degree)\n", "").replace(
        "            if degree in res:  # TEST", "            if tensor.sum() in res:  # TEST")
    assert (line_of(src, "# TEST"), "EXL101") in codes(src)


def test_strkey_control_a_str_local_rebound_to_a_tensor_still_fires():
    src = _STR_KEY.replace("            degree = str(degree)\n", "            degree = str(degree)\n            degree = tensor.sum()\n")
    assert (line_of(src, "# TEST"), "EXL101") in codes(src)


# ---------------------------------------------------------------------------------------
# R-LITERALDIST (EXL210 exporters): a distribution of two literal 0-d tensors bound in the function
# (torchscale's gumbel_rsample: `one = torch.tensor(1.0, device=device)`, `Gumbel(zero, one)`):
# the validation runs on constants; export-strict fails, non-strict and onnx-dynamo pass and match
# (probe r39; with `validate_args=False` all four pass: r2 v1), as with Python numbers
# ---------------------------------------------------------------------------------------

_LITERAL_DIST = """import torch
import torch.nn as nn


def gumbel_rsample(shape, device):
    one = torch.tensor(1.0, device=device)
    zero = torch.tensor(0.0, device=device)
    gumbel = torch.distributions.gumbel.Gumbel(zero, one).rsample  # DIST
    return gumbel(shape)


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.wg = nn.Linear(4, 2)

    def forward(self, x):
        logits = self.wg(x)
        return logits + gumbel_rsample(logits.shape, device=logits.device)
"""


def test_literaldist_literal_tensor_parameters_name_export_strict_only():
    line = line_of(_LITERAL_DIST, "# DIST")
    hits = [f for f in _found(_LITERAL_DIST, "EXL210") if f.line == line]
    assert len(hits) == 1 and tuple(hits[0].exporters) == ("export-strict",)


def test_literaldist_control_a_scale_from_the_input_names_three():
    src = _LITERAL_DIST.replace("Gumbel(zero, one)", "Gumbel(zero, shape_scale(one))").replace(
        "def gumbel_rsample(shape, device):", "def shape_scale(t):\n    return t\n\n\ndef gumbel_rsample(shape, device):")
    src2 = _LITERAL_DIST.replace("    one = torch.tensor(1.0, device=device)\n", "    one = torch.rand(1, device=device) + 1\n")
    for s in (src, src2):
        line = line_of(s, "# DIST")
        hits = [f for f in _found(s, "EXL210") if f.line == line]
        assert len(hits) == 1 and set(hits[0].exporters) == {"export-strict", "export-nonstrict", "onnx-dynamo"}


def test_literaldist_control_a_local_bound_twice_names_three():
    src = _LITERAL_DIST.replace("    zero = torch.tensor(0.0, device=device)\n",
                                "    zero = torch.tensor(0.0, device=device)\n    if device is None:\n        zero = torch.rand(())\n")
    line = line_of(src, "# DIST")
    hits = [f for f in _found(src, "EXL210") if f.line == line]
    assert len(hits) == 1 and len(hits[0].exporters) == 3


# ---------------------------------------------------------------------------------------
# R-SELFFED (EXL203): state read only to feed itself or a write-only record (torchscale's MOE
# layer: `self.a2a_cpu_time_ms += cpu_end - cpu_start`, `self.metadata[...] = self.a2a_cpu_time_ms`,
# `self.a2a_cpu_time_ms = 0.0`): no value of the graph depends on it; all four pass and match,
# fresh and warmed (probe r2 c1). Read into the output it is carried state (c1c: legacy does not
# match), still reported
# ---------------------------------------------------------------------------------------

_SELF_FED = """import torch
import torch.nn as nn


class MOELayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.calls = 0
        self.a2a_ms = 0.0
        self.metadata = {}

    def forward(self, x):
        self.calls += 1  # COUNT
        y, self.metadata = self.lin(x), {}
        self.a2a_ms = self.a2a_ms + 2.5  # TOTAL
        self.record()
        return y

    def record(self):
        self.metadata["a2a_ms"] = self.a2a_ms
        self.a2a_ms = 0.0  # RESET
"""


def test_selffed_counters_and_a_write_only_record_are_not_reported():
    found = codes(_SELF_FED)
    for m in ("# COUNT", "# TOTAL", "# RESET"):
        assert (line_of(_SELF_FED, m), "EXL203") not in found, m


def test_selffed_control_the_counter_read_into_the_output_still_fires():
    src = _SELF_FED.replace("        return y\n", "        return y * self.calls\n")
    assert (line_of(src, "# COUNT"), "EXL203") in codes(src)


def test_selffed_control_the_counter_in_a_test_still_fires():
    src = _SELF_FED.replace("        self.record()\n", "        if self.a2a_ms > 10:\n            y = y * 2\n        self.record()\n")
    assert (line_of(src, "# TOTAL"), "EXL203") in codes(src)


def test_selffed_control_a_record_that_is_read_back_still_fires():
    # the record is read in forward: what it holds reaches the output
    src = _SELF_FED.replace("        return y\n", "        return y + self.metadata.get('a2a_ms', 0.0)\n")
    assert (line_of(src, "# TOTAL"), "EXL203") in codes(src)


# ---------------------------------------------------------------------------------------
# Q-WEAK re-check, R-WEIGHTCONSTFLOAT (EXL102 exporters): `float(self.neg_min)` of a buffer the
# module never writes after `__init__` (spikingjelly's SpikeZIP quantizer, sample Q 22, 23, a
# "TP (weak)"): non-strict rejects the conversion, but strict, onnx-dynamo and onnx-legacy pass
# and match (bench/labels/probes_prec16/q1 q22): legacy records the constant the buffer holds
# anyway. The finding names export-nonstrict only, as P-WEIGHTCONST already left `.item()` of
# such a weight out (its finding named onnx-legacy only)
# ---------------------------------------------------------------------------------------

_BUF_FLOAT = """import torch
import torch.nn as nn


class Quantizer(nn.Module):
    def __init__(self):
        super().__init__()
        self.s = nn.Parameter(torch.tensor(0.25))
        self.register_buffer("pos_max", torch.tensor(3.0))
        self.register_buffer("neg_min", torch.tensor(-4.0))

    def forward(self, x):
        q = torch.floor(x / self.s + 0.5)
        q = torch.clamp(q, min=float(self.neg_min), max=3.0)  # FLOAT
        return q * self.s
"""


def _exl102(src):
    line = line_of(src, "# FLOAT")
    return [tuple(f.exporters) for f in _found(src, "EXL102") if f.line == line]


def test_weightconstfloat_float_of_a_constant_buffer_names_nonstrict_only():
    assert _exl102(_BUF_FLOAT) == [("export-nonstrict",)]


def test_weightconstfloat_control_a_buffer_forward_advances_names_legacy_too():
    src = _BUF_FLOAT.replace("        return q * self.s\n", "        self.neg_min.add_(1)\n        return q * self.s\n")
    assert _exl102(src) == [("export-nonstrict", "onnx-legacy")]


def test_weightconstfloat_control_float_of_the_input_names_legacy_too():
    src = _BUF_FLOAT.replace("float(self.neg_min)", "float(x.min())")
    assert _exl102(src) == [("export-nonstrict", "onnx-legacy")]


def test_onceguard_control_a_submodule_built_behind_the_guard_still_fires():
    # darts' TimesFM 3 lazy layer: a fresh export builds the layer in forward and fails with all
    # four exporters (probe r2 o2; warmed, all four pass): a tensor or module written there stays
    src = """import torch
import torch.nn as nn


class Lazy(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden_layer = nn.Linear(1, 3)
        self._input_dim_set = False

    def set_input_dims(self, d):
        if self._input_dim_set:
            return
        w = self.hidden_layer.weight
        self.hidden_layer = nn.Linear(d, 3).to(device=w.device, dtype=w.dtype)  # BUILD
        self._input_dim_set = True

    def forward(self, x):
        self.set_input_dims(x.shape[-1])
        return self.hidden_layer(x)
"""
    assert (line_of(src, "# BUILD"), "EXL203") in codes(src)


def test_selffed_control_a_tensor_total_still_fires():
    # spikingjelly's LIF example: `self.v_acc += spike`; warmed, the in-place update of the tensor
    # constant fails onnx-dynamo (probe r2 c2w)
    src = _SELF_FED.replace("        self.calls += 1  # COUNT\n", "        self.calls += x.sum()  # COUNT\n")
    assert (line_of(src, "# COUNT"), "EXL203") in codes(src)
