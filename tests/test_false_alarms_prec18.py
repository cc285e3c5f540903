"""Issue 10 (branch prec18): false-alarm classes of the ninth fresh zoo population (deepfilternet,
dgllife, fairchem-core, groundingdino-py, ...; bench/labels/zoo_sample.md, sample S), one
reproducer each, with the controls that must keep firing. The exporters' behaviour behind each is
measured in bench/labels/probes_prec18/."""

from __future__ import annotations

from conftest import codes_at as codes
from conftest import lint, line_of


def _found(src, code):
    return [f for f in lint(src) if f.code == code]


# ---------------------------------------------------------------------------------------
# S-INDEXROWS (EXL303): rows of an unregistered index tensor, taken with literal ints, used as
# subscript indices, read or written (deepfilternet's MfWf: `r[:, :, self.tril_idcs[0],
# self.tril_idcs[1]]`): a row of a CPU index tensor is a CPU index tensor, which advanced indexing
# takes for a tensor on any device: eager and both torch.export programs moved to another device
# run (probe s7, `meta` standing in for it; a row in arithmetic fails all three: s7c)
# ---------------------------------------------------------------------------------------

_INDEX_ROWS = """import torch
import torch.nn as nn


class MfWf(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.triu_idcs = torch.triu_indices(n, n, 1)  # TRIU
        self.tril_idcs = torch.empty_like(self.triu_idcs)  # TRIL
        self.tril_idcs[0] = self.triu_idcs[1]
        self.tril_idcs[1] = self.triu_idcs[0]

    def forward(self, r):
        t = r[:, self.tril_idcs[0], self.tril_idcs[1]].conj()
        r[:, self.triu_idcs[0], self.triu_idcs[1]] = t
        return r
"""


def test_indexrows_rows_of_an_index_tensor_as_subscript_indices_are_not_reported():
    found = codes(_INDEX_ROWS)
    assert (line_of(_INDEX_ROWS, "# TRIL"), "EXL303") not in found
    assert (line_of(_INDEX_ROWS, "# TRIU"), "EXL303") not in found


def test_indexrows_control_a_row_in_arithmetic_still_fires():
    src = _INDEX_ROWS.replace("        return r\n", "        return r + self.tril_idcs[0]\n")
    assert (line_of(src, "# TRIL"), "EXL303") in codes(src)
    assert (line_of(src, "# TRIU"), "EXL303") not in codes(src)


def test_indexrows_control_a_computed_row_index_still_fires():
    # `self.tril_idcs[k]` with k from the input: not a literal row (the subscript is a read of the
    # tensor by a computed index, left to the general rule)
    src = _INDEX_ROWS.replace("self.tril_idcs[0], self.tril_idcs[1]]", "self.tril_idcs[r.shape[0] - 2], self.tril_idcs[1]]")
    assert (line_of(src, "# TRIL"), "EXL303") in codes(src)


def test_indexrows_control_a_row_handed_to_index_select_still_fires():
    # index_select wants the index on the tensor's device
    src = _INDEX_ROWS.replace("r[:, self.tril_idcs[0], self.tril_idcs[1]].conj()", "r.index_select(1, self.tril_idcs[0])")
    assert (line_of(src, "# TRIL"), "EXL303") in codes(src)
