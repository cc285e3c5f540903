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
