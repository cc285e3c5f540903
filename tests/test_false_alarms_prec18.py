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


# ---------------------------------------------------------------------------------------
# S-SIZEUNPACK (EXL101): a forward parameter compared with a dim unpacked from a tensor's shape
# (`B, L, C = x.shape; assert L == H * W`, groundingdino's Swin PatchMerging, whose H and W are the
# sizes `SwinTransformer.forward` reads with `x.size(2)` and hands through `BasicLayer`), and
# otherwise used only as a size (view dims, `H % 2 == 1`, pad amounts): a Python size, as the
# direct form `x.shape[1] == H * W` already was; `if pad_input:` is a shape test (a guard, probe
# s33: all four exporters pass at a fixed size), not tensor data
# ---------------------------------------------------------------------------------------

_SIZE_UNPACK = """import torch
import torch.nn as nn
import torch.nn.functional as F


class PatchMerging(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)

    def forward(self, x, H, W):
        B, L, C = x.shape
        assert L == H * W, "input feature has wrong size"  # ASSERT
        x = x.view(B, H, W, C)
        pad_input = (H % 2 == 1) or (W % 2 == 1)
        if pad_input:  # IF
            x = F.pad(x, (0, 0, 0, W % 2, 0, H % 2))
        x0 = x[:, 0::2, 0::2, :]
        x1 = x[:, 1::2, 0::2, :]
        x2 = x[:, 0::2, 1::2, :]
        x3 = x[:, 1::2, 1::2, :]
        x = torch.cat([x0, x1, x2, x3], -1)
        return self.reduction(x.view(B, -1, 4 * C))
"""


def test_sizeunpack_parameters_compared_with_an_unpacked_dim_are_sizes():
    found = codes(_SIZE_UNPACK)
    assert (line_of(_SIZE_UNPACK, "# ASSERT"), "EXL101") not in found
    assert (line_of(_SIZE_UNPACK, "# IF"), "EXL101") not in found


def test_sizeunpack_control_a_parameter_also_used_as_a_tensor_still_fires():
    src = _SIZE_UNPACK.replace("        return self.reduction(x.view(B, -1, 4 * C))",
                               "        return self.reduction(x.view(B, -1, 4 * C)) * H.float().mean()")
    assert (line_of(src, "# IF"), "EXL101") in codes(src)


def test_sizeunpack_control_a_dim_local_rebound_to_tensor_data_still_fires():
    # `L` re-bound to a count of the data: no shape local any more, `H` is not shown a size
    src = _SIZE_UNPACK.replace("        assert L == H * W,", "        L = (x > 0).sum()\n        assert L == H * W,")
    assert (line_of(src, "# IF"), "EXL101") in codes(src)


def test_sizeunpack_control_a_tensor_compared_with_the_unpacked_dim_still_fires():
    # `mask.sum() == L`: the other side is tensor data, not a parameter: still data-dependent
    src = _SIZE_UNPACK.replace('        assert L == H * W, "input feature has wrong size"  # ASSERT',
                               '        assert (x[..., 0] > 0).sum() == L  # ASSERT')
    assert (line_of(src, "# ASSERT"), "EXL101") in codes(src)


# ---------------------------------------------------------------------------------------
# S-OBJPRED (EXL101): a predicate attribute (`is_*`, `has_*`) of a forward parameter that reads
# attributes no tensor has (an object: dgllife's PotentialNet `assert graph.is_homogeneous` of a
# DGLGraph). The object's attributes are typed by the P-NOTTENSOR tensor guess; a Tensor's own
# `is_*` attributes are all Python bools, so a predicate gets no tensor guess
# ---------------------------------------------------------------------------------------

_OBJ_PRED = """import torch
import torch.nn as nn


class GatedGraphConv(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = nn.Linear(n, n)

    def forward(self, graph, feat):
        with graph.local_scope():
            assert graph.is_homogeneous, "not a homogeneous graph"  # PRED
            graph.ndata["h"] = self.lin(feat)
            return graph.ndata["h"]
"""


def test_objpred_predicate_attribute_of_an_object_parameter_is_not_tensor_data():
    assert (line_of(_OBJ_PRED, "# PRED"), "EXL101") not in codes(_OBJ_PRED)


def test_objpred_control_another_attribute_of_the_object_tested_as_data_still_fires():
    src = _OBJ_PRED.replace("assert graph.is_homogeneous,", "assert graph.edge_mask.any(),")
    assert (line_of(src, "# PRED"), "EXL101") in codes(src)


def test_objpred_control_an_assert_on_the_feature_tensor_still_fires():
    src = _OBJ_PRED.replace("assert graph.is_homogeneous,", "assert (feat > 0).all(),")
    assert (line_of(src, "# PRED"), "EXL101") in codes(src)


# ---------------------------------------------------------------------------------------
# S-OBJNUMPY (EXL201, EXL101): `np.array(data.dataset)` of an object parameter's attribute
# (fairchem's UMA MoE head: the batch's list of dataset names, compared with each name and tested
# with `.any()`): NumPy builds arrays from any Python sequence, and the attribute is a tensor only
# by the P-NOTTENSOR guess, which does not carry into a NumPy constructor
# ---------------------------------------------------------------------------------------

_OBJ_NUMPY = """import numpy as np
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, names):
        super().__init__()
        self.dataset_names = names
        self.lin = nn.Linear(4, 4)

    def forward(self, data, emb):
        out = self.lin(emb)
        np_dataset_names = np.array(data.dataset)  # ARRAY
        full = {}
        for name in self.dataset_names:
            dataset_mask = np_dataset_names == name
            res = out.new_zeros(out.shape)
            if dataset_mask.any():  # IF
                res[dataset_mask] = out[dataset_mask]
            full[name] = res
        return full
"""


def test_objnumpy_numpy_array_of_an_object_attribute_is_not_tensor_data():
    found = codes(_OBJ_NUMPY)
    assert (line_of(_OBJ_NUMPY, "# ARRAY"), "EXL201") not in found
    assert (line_of(_OBJ_NUMPY, "# IF"), "EXL101") not in found


def test_objnumpy_control_numpy_of_a_tensor_method_result_of_the_attribute_still_fires():
    src = _OBJ_NUMPY.replace("np.array(data.dataset)", "np.array(data.pos.cpu())")
    found = codes(src)
    assert (line_of(src, "# ARRAY"), "EXL201") in found
    assert (line_of(src, "# IF"), "EXL101") in found


def test_objnumpy_control_numpy_of_a_tensor_parameter_still_fires():
    src = _OBJ_NUMPY.replace("np.array(data.dataset)", "np.array(emb)")
    assert (line_of(src, "# ARRAY"), "EXL201") in codes(src)


# ---------------------------------------------------------------------------------------
# S-MODEFREE (EXL501): the exported module's class builds only layers whose output does not
# depend on the training flag (deepfilternet's GroupedGRULayer / GroupedGRU: one-layer GRUs, whose
# `dropout` acts between stacked layers only), reads no `.training` and calls no mode-dependent
# functional: exported in training mode it computes the inference output (probe s2: all four
# match eval; s2c, the same with a Dropout: strict, non-strict and onnx-dynamo do not). The class
# is the one that reaches the export call (the last assignment before it, through
# `torch.jit.script(m)` / `torch.jit.trace(m, ...)`)
# ---------------------------------------------------------------------------------------

_MODE_FREE = """import torch
import torch.nn as nn


class GroupedGRULayer(nn.Module):
    def __init__(self, input_size, hidden_size, groups, dropout=0.0):
        super().__init__()
        kwargs = {"bias": True, "batch_first": True, "dropout": dropout}
        self.input_size = input_size // groups
        self.layers = nn.ModuleList((nn.GRU(self.input_size, hidden_size // groups, **kwargs) for _ in range(groups)))

    def forward(self, x):
        outs = [layer(x[..., i * self.input_size:(i + 1) * self.input_size])[0] for i, layer in enumerate(self.layers)]
        return torch.cat(outs, dim=-1)


class GroupedGRU(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=2, groups=2):
        super().__init__()
        self.grus = nn.ModuleList()
        self.grus.append(GroupedGRULayer(input_size, hidden_size, groups))
        for _ in range(1, num_layers):
            self.grus.append(GroupedGRULayer(hidden_size, hidden_size, groups))
        self.out = nn.Linear(hidden_size, hidden_size)

    def forward(self, x):
        for gru in self.grus:
            x = gru(x)
        return self.out(x)


def test_grouped_gru():
    x = torch.randn(1, 5, 4)
    m = GroupedGRULayer(4, 8, 2)
    torch.onnx.export(m, (x,), "a.onnx", dynamo=True)  # EXPORT1
    m = GroupedGRU(4, 8)
    m = torch.jit.trace(m, (x,))
    torch.onnx.export(m, (x,), "b.onnx", dynamo=True)  # EXPORT2
"""


def _exl501_lines(src):
    return {f.line for f in _found(src, "EXL501")}


def test_modefree_exporting_a_module_with_no_mode_dependent_layer_is_not_reported():
    got = _exl501_lines(_MODE_FREE)
    assert line_of(_MODE_FREE, "# EXPORT1") not in got
    assert line_of(_MODE_FREE, "# EXPORT2") not in got


def test_modefree_control_a_dropout_in_a_nested_class_still_fires():
    src = _MODE_FREE.replace("        self.out = nn.Linear(hidden_size, hidden_size)\n",
                             "        self.out = nn.Sequential(nn.Linear(hidden_size, hidden_size), nn.Dropout(0.1))\n")
    got = _exl501_lines(src)
    assert line_of(src, "# EXPORT2") in got
    assert line_of(src, "# EXPORT1") not in got


def test_modefree_control_stacked_gru_with_dropout_still_fires():
    src = _MODE_FREE.replace('kwargs = {"bias": True, "batch_first": True, "dropout": dropout}',
                             'kwargs = {"bias": True, "batch_first": True, "dropout": dropout, "num_layers": 2}')
    assert line_of(src, "# EXPORT1") in _exl501_lines(src)


def test_modefree_control_a_training_branch_still_fires():
    src = _MODE_FREE.replace("        return torch.cat(outs, dim=-1)\n",
                             "        out = torch.cat(outs, dim=-1)\n        return out * 0.5 if self.training else out\n")
    assert line_of(src, "# EXPORT1") in _exl501_lines(src)


def test_modefree_control_a_layer_built_by_a_constructor_argument_still_fires():
    # `norm_layer(...)` may be a BatchNorm: unknown, reported
    src = _MODE_FREE.replace("    def __init__(self, input_size, hidden_size, num_layers=2, groups=2):\n        super().__init__()\n",
                             "    def __init__(self, input_size, hidden_size, num_layers=2, groups=2, norm_layer=nn.BatchNorm1d):\n"
                             "        super().__init__()\n        self.norm = norm_layer(hidden_size)\n")
    assert line_of(src, "# EXPORT2") in _exl501_lines(src)


def test_modefree_control_a_batchnorm_built_in_a_helper_method_still_fires():
    src = _MODE_FREE.replace("        self.out = nn.Linear(hidden_size, hidden_size)\n",
                             "        self.out = self._head(hidden_size)\n\n    def _head(self, n):\n        return nn.BatchNorm1d(n)\n")
    assert line_of(src, "# EXPORT2") in _exl501_lines(src)
