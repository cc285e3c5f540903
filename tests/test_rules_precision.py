"""Precision and recall on real code nobody here wrote (issue 3, items 1 and 2).

Every snippet is a minimal reproducer of a pattern found by

- ``bench/zoo.py --sample``: findings on ``timm/models`` (timm 1.0.31) and
  ``transformers/models`` (transformers 5.23.0), labelled by hand in
  ``bench/labels/zoo_sample.md``;
- ``bench/exportdb_scoreboard.py``: ExportDB (``torch/_export/db/examples``) scored against
  the real outcome of the four exporters (torch 2.13.0).

Negative tests (a false-positive pattern: the rule must stay silent) are marked
``xfail(strict=True)`` while the model still reports them; they start passing (XPASS ->
fail) when the semantic model / check is fixed, and the mark is then removed. Positive
tests are true-positive patterns from the same code that must keep firing through those
fixes. Each names the real file (and line, for the pinned versions) it came from.
"""

from __future__ import annotations

import textwrap

import pytest

from conftest import lint

ALL = ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")


def _line(src: str, marker: str = "# <-") -> int:
    for i, ln in enumerate(textwrap.dedent(src).splitlines(), 1):
        if marker in ln:
            return i
    raise AssertionError(f"no {marker!r} in snippet")


def findings(src: str, code: str, at: bool = False):
    """Findings of one rule (at the `# <-` line only when at=True)."""
    fs = lint(src, codes=[code])
    if at:
        ln = _line(src)
        fs = [f for f in fs if f.line == ln]
    return fs


def errors_naming(src: str, exporter: str, at: bool = True):
    """Error findings of any rule that name the exporter (at the `# <-` line)."""
    ln = _line(src) if at else None
    return [f for f in lint(src) if f.severity.value == "error" and exporter in f.exporters
            and (ln is None or f.line == ln)]


def fp(reason: str):
    return pytest.mark.xfail(strict=True, reason=f"FP pattern: {reason}")


def miss(reason: str):
    return pytest.mark.xfail(strict=True, reason=f"missed failure: {reason}")


# =======================================================================================
# EXL111 shape-branch: containers of tensors are typed as tensors, so iterating a Python
# tuple/list/split result reads as "a loop over a tensor's first dimension".
# Labelled: 2 of 10 random EXL111 findings on transformers FP, 1 of 10 on timm; in a
# stratified sample of 14 loop findings, 8 FP (bench/labels/zoo_sample.md).
# Proposed fix: exportlint/semantics/model.py FunctionFacts._eval (Tuple/List displays of
# tensors) and _comprehension (list comprehension of tensors) should yield a "sequence of
# tensors" kind (or UNKNOWN), not TENSOR; _qual_call_kind / _tensor_method_kind should do
# the same for split/chunk/unbind/tensor_split; _iter_kind then gives CONST for a literal
# display and for split/chunk with a CONST count, and zip(...) with a self.<ModuleList>.
# =======================================================================================


def test_exl111_tuple_display_of_tensors_is_not_a_tensor_loop():
    # from transformers/models/qwen3_5_moe/modeling_qwen3_5_moe.py:451 (also qwen3_next/modular_qwen3_next.py:257)
    src = """
    import torch

    class Model(torch.nn.Module):
        def forward(self, query, key, value):
            query, key, value = [
                x.transpose(1, 2).to(torch.float32)
                for x in (query, key, value)  # <-
            ]
            return query + key + value
    """
    assert findings(src, "EXL111") == []


def test_exl111_list_comprehension_result_is_not_a_tensor():
    # from timm/models/crossvit.py:591: xs = [self.head_drop(x) for x in xs]; torch.cat([x for x in xs])
    src = """
    import torch

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.drop = torch.nn.Dropout(0.1)

        def forward(self, a, b):
            xs = [a[:, 0], b[:, 0]]
            xs = [self.drop(x) for x in xs]
            return torch.cat([x for x in xs], dim=1)  # <-
    """
    assert findings(src, "EXL111") == []


def test_exl111_split_with_constant_sections_is_static():
    # from transformers/models/glm4v_moe/modeling_glm4v_moe.py:116 (also glm_ocr/modeling_glm_ocr.py:693)
    # and transformers/models/qwen2_5_omni/modular_qwen2_5_omni.py:2379 (torch.chunk(h, self.scale, dim=1))
    src = """
    import torch

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.mrope_section = [16, 24, 24]
            self.scale = 4

        def forward(self, freq, hidden_states):
            freq = torch.cat([m[i % 3] for i, m in enumerate(freq.split(self.mrope_section, dim=-1))], dim=-1)
            parts = [p * 2 for i, p in enumerate(torch.chunk(hidden_states, self.scale, dim=1))]
            return freq, torch.cat(parts, dim=1)
    """
    assert findings(src, "EXL111") == []


def test_exl111_zip_with_modulelist_is_static():
    # from transformers/models/pp_ocrv5_mobile_det/modeling_pp_ocrv5_mobile_det.py:139
    # (also prompt_depth_anything/modular_prompt_depth_anything.py:122)
    src = """
    import torch

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.insert_conv = torch.nn.ModuleList([torch.nn.Conv2d(4, 4, 1) for _ in range(4)])

        def forward(self, feature_maps):
            fused = []
            for conv, feature in zip(self.insert_conv, feature_maps):  # <-
                fused.append(conv(feature))
            return fused
    """
    assert findings(src, "EXL111") == []


def test_exl111_shape_branch_keeps_firing():
    # TP, from timm/models/crossvit.py:306 (H, W = x.shape[-2:]; if H != ss[0] or W != ss[1])
    src = """
    import torch
    import torch.nn.functional as F

    def scale_image(x, ss):
        H, W = x.shape[-2:]
        if H != ss[0] or W != ss[1]:  # <-
            x = F.interpolate(x, size=ss, mode="bicubic")
        return x

    class Model(torch.nn.Module):
        def forward(self, x):
            return scale_image(x, (224, 224))
    """
    assert findings(src, "EXL111", at=True)


def test_exl111_loop_over_tensor_rows_keeps_firing():
    # TP, from transformers/models/deepseek_v4/modeling_deepseek_v4.py:1059 (for expert_idx in hit: hit = ....nonzero())
    src = """
    import torch

    class Model(torch.nn.Module):
        def forward(self, x, mask):
            hit = torch.greater(mask.sum(dim=-1), 0).nonzero()
            out = x
            for idx in hit:  # <-
                out = out + idx
            return out
    """
    assert lint(src, codes=["EXL111", "EXL103"])


# =======================================================================================
# EXL101 / EXL104: parameters of a submodule's forward are assumed tensors even when the
# only caller in the file passes a bool flag or a Python int from a shape.
# Labelled: 1 of 10 EXL101 (pvt_v2), 1 of 10 EXL104 (swin2sr); among all 143 EXL101 findings
# on transformers, 11 are a bare flag/int parameter (output_attentions x8, seq_len x2,
# interpolate_pos_encoding).
# Proposed fix: exportlint/semantics/model.py: when a forward calls a submodule whose class
# is in the file (`self.block = Block(...)` in __init__, `self.block(x, flag)` in forward),
# add that class's forward as a callee with the call-site argument kinds
# (FunctionFacts._self_method_call, the `fact.what == "submodule"` branch) and join them
# with the entry-point assumption in SemanticModel._build_export_path, so a parameter that
# every caller passes as CONST/SHAPE is not TENSOR. A cheaper stop-gap: conventional flag
# names (output_*, return_*, use_*, is_*, do_*, interpolate_pos_encoding) default to CONST
# in FunctionFacts.analyze.
# =======================================================================================


def test_exl101_flag_parameter_of_submodule_forward():
    # from transformers/models/pvt_v2/modeling_pvt_v2.py:297: all_self_attentions = () if output_attentions else None
    src = """
    import torch

    class Stage(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(4, 4)

        def forward(self, hidden_states, output_attentions):
            all_self_attentions = () if output_attentions else None  # <-
            return self.proj(hidden_states), all_self_attentions

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.stage = Stage()

        def forward(self, pixel_values, output_attentions: bool = False):
            return self.stage(pixel_values, output_attentions)
    """
    assert findings(src, "EXL101") == []


def test_exl104_int_parameter_from_callers_shape():
    # from transformers/models/swin2sr/modeling_swin2sr.py:931: bicubic[:, :, : height * self.upscale, ...]
    src = """
    import torch

    class Upsampler(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.upscale = 2

        def forward(self, sequence_output, bicubic, height, width):
            return bicubic[:, :, : height * self.upscale, : width * self.upscale] + sequence_output  # <-

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.upsample = Upsampler()

        def forward(self, pixel_values, bicubic):
            height, width = pixel_values.shape[2:]
            return self.upsample(pixel_values, bicubic, height, width)
    """
    assert findings(src, "EXL104") == []


def test_exl101_moe_expert_index_branch_keeps_firing():
    # TP, from transformers/models/qwen2_moe/modeling_qwen2_moe.py:297 (the same in 90+ MoE files)
    src = """
    import torch

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.num_experts = 4

        def forward(self, hidden_states, expert_mask):
            expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()
            out = hidden_states
            for expert_idx in expert_hit:
                expert_idx = expert_idx[0]
                if expert_idx == self.num_experts:  # <-
                    continue
                out = out + 1
            return out
    """
    assert findings(src, "EXL101", at=True)


def test_exl101_mask_any_branch_keeps_firing():
    # TP, from timm/models/gemma4_vit.py:856: if padding_positions is not None and padding_positions.any():
    src = """
    from typing import Optional
    import torch

    class Model(torch.nn.Module):
        def forward(self, x, padding_positions: Optional[torch.Tensor] = None):
            if padding_positions is not None and padding_positions.any():  # <-
                x = x.masked_fill(padding_positions.unsqueeze(-1), 0.0)
            return x
    """
    assert findings(src, "EXL101", at=True)


# =======================================================================================
# EXL104 data-dependent-slice: a bound that stays a 0-d tensor (unpacked from an int
# tensor) is documented as exporting with all four exporters (rules/EXL104.md "Not
# reported"), yet it is reported. Labelled: 5 of 10 EXL104 findings on transformers.
# Proposed fix: exportlint/semantics/model.py FunctionFacts._eval_slice turns a TENSOR
# bound into DATA; keep TENSOR there and let checks/control_flow.py DataDependentSlice
# report only DATA that comes from a conversion (.item()/int()/.tolist()).
# =======================================================================================


def test_exl104_tensor_bound_from_int_tensor():
    # from transformers/models/minicpm_ocr/modeling_minicpm_ocr.py:542 (also minicpmv4_6/4_7,
    # phi4_multimodal/modeling_phi4_multimodal.py:545)
    src = """
    import torch

    class Model(torch.nn.Module):
        def forward(self, hidden_states, target_sizes):
            height, width = target_sizes[0]
            num_patches = height * width
            return hidden_states[0, 0 : num_patches, :]  # <-
    """
    assert findings(src, "EXL104") == []


def test_exl104_page_good_example_lengths_max():
    # rules/EXL104.md, good example (measured to export with all four exporters)
    src = """
    import torch

    class Model(torch.nn.Module):
        def forward(self, x, lengths):
            return x[:, : lengths.max()]
    """
    assert findings(src, "EXL104") == []


def test_exl104_index_from_item_keeps_firing():
    # TP, from transformers/models/longcat_flash/modeling_longcat_flash.py:190
    # (expert_idx = int(expert_idx_tensor.item()); torch.where(expert_mask[expert_idx]...))
    src = """
    import torch

    class Model(torch.nn.Module):
        def forward(self, expert_mask, t):
            expert_idx = int(t.item())
            return expert_mask[expert_idx]  # <-
    """
    assert findings(src, "EXL104", at=True)


# =======================================================================================
# EXL102 tensor-to-python: the exporters named. rules/EXL102.md measured that `.item()` /
# `.tolist()` export with torch.export (strict, non-strict) and onnx-dynamo when the value
# is only used in arithmetic or as a size (unbacked symbols, torch._check bounds), and that
# `int(t)` / `float(t)` fail export-nonstrict only; onnx-legacy bakes all of them. The
# check names all four, which makes constrain_as_size_example a false alarm for three
# exporters on ExportDB.
# Proposed fix: exportlint/checks/control_flow.py TensorToPython.check: pass
# exporters=("onnx-legacy",) for .item()/.tolist() and ("export-nonstrict", "onnx-legacy")
# for int()/float()/bool()/complex() (the page's Exporters line).
# =======================================================================================


def test_exl102_item_names_only_exporters_that_fail():
    # from torch/_export/db/examples/constrain_as_size_example.py:12 (passes strict, non-strict, dynamo)
    src = """
    import torch

    class Model(torch.nn.Module):
        def forward(self, x):
            a = x.item()  # <-
            torch._check(a >= 0)
            torch._check(a <= 5)
            return torch.zeros((a, 5), device=x.device)
    """
    fs = findings(src, "EXL102", at=True)
    assert not [f for f in fs if set(f.exporters) & {"export-strict", "export-nonstrict", "onnx-dynamo"}]


def test_tolist_split_sizes_keeps_firing_for_legacy():
    # TP, from transformers/models/qwen3_asr/modeling_qwen3_asr.py:177 (torch.split(t, lengths.tolist(), dim=2))
    src = """
    import torch

    class Model(torch.nn.Module):
        def forward(self, q, cu_seqlens):
            lengths = cu_seqlens[1:] - cu_seqlens[:-1]
            return torch.split(q, lengths.tolist(), dim=2)  # <-
    """
    # the `.tolist()` feeds a size argument, so it is reported once, as EXL104 (a data-dependent
    # size), not also as EXL102; either way the legacy exporter is named at the line
    fs = findings(src, "EXL104", at=True)
    assert fs and "onnx-legacy" in fs[0].exporters
    assert not findings(src, "EXL102")


# =======================================================================================
# EXL101 after torch._check: ExportDB constrain_as_value_example passes all four
# exporters (the checks make `a < 6` always true; the legacy trace bakes the right branch).
# Proposed fix: exportlint/semantics/model.py: a name passed to torch._check(name <= K) /
# torch._check(name < K) gets an upper bound; a later comparison of that name that the
# bounds decide is CONST (a small interval map per function is enough for this idiom).
# =======================================================================================


def test_exl101_branch_decided_by_torch_check_bounds():
    # from torch/_export/db/examples/constrain_as_value_example.py:16 (all four exporters pass)
    src = """
    import torch

    class Model(torch.nn.Module):
        def forward(self, x, y):
            a = x.item()
            torch._check(a >= 0)
            torch._check(a <= 5)
            if a < 6:  # <-
                return y.sin()
            return y.cos()
    """
    assert findings(src, "EXL101") == []


# =======================================================================================
# EXL202 autograd-function-without-symbolic: rules/EXL202.md narrowed the rule to Functions
# whose forward leaves torch (a pure-torch forward is inlined by the legacy exporter and
# captured by torch.export); the check still reports every Function without `symbolic`.
# Labelled: 10 of 10 EXL202 findings on transformers FP (ibert floor_ste/round_ste, bloom
# GeLUFunction, phimoe PhimoeMultiplier, yoso, reformer); ExportDB autograd_function
# passes onnx-legacy (false alarm).
# Proposed fix: exportlint/checks/python_ops.py AutogradFunctionWithoutSymbolic.check:
# look at the Function's forward (ctx.model.facts_for(c.find_method("forward")[1])) and
# report only if it leaves torch: a .numpy()/.item()/.tolist() call, a numpy/scipy/...
# call, or a call to a non-torch import (a C/CUDA extension).
# =======================================================================================


def test_exl202_pure_torch_forward():
    # from transformers/models/bloom/modeling_bloom.py:163 (GeLUFunction.apply(x)),
    # transformers/models/ibert/quant_modules.py:497 (floor_ste), torch/_export/db/examples/autograd_function.py:22
    src = """
    import torch

    class GeLUFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 0.5 * (1.0 + torch.tanh(0.79788456 * x * (1 + 0.044715 * x * x)))

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad

    class Model(torch.nn.Module):
        def forward(self, x):
            return GeLUFunction.apply(x)  # <-
    """
    assert findings(src, "EXL202") == []


def test_exl202_forward_leaving_torch_keeps_firing():
    # TP pattern (rules/EXL202.md bad example form): forward goes through numpy
    src = """
    import numpy as np
    import torch

    class NpClip(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return torch.from_numpy(np.clip(x.detach().numpy(), 0, 1))

        @staticmethod
        def backward(ctx, grad):
            return grad

    class Model(torch.nn.Module):
        def forward(self, x):
            return NpClip.apply(x)  # <-
    """
    assert findings(src, "EXL202", at=True)


# =======================================================================================
# EXL203 forward-mutates-python-state. Harmful: state carried to the next call (read
# before it is written, or written and read in another call: caches of generation state,
# recurrent states). Harmless: an attribute assigned in forward before any read in that
# call (the graph computes it every call), and bookkeeping never read on the export path
# (rules/EXL203.md: "no longer reported").
# Labelled: 4 of 10 EXL203 findings on transformers FP; ExportDB model_attr_mutation
# passes all four exporters (false alarm for four).
# Proposed fix: exportlint/checks/python_ops.py ForwardMutatesPythonState.check with facts
# from exportlint/semantics/model.py: record per self-attribute the first read and first
# write of each export-path function (order of statements), report a write only when the
# attribute is read on the export path and the first access in the writing function is
# not an unconditional write.
# =======================================================================================


def test_exl203_write_before_read_in_same_call():
    # from torch/_export/db/examples/model_attr_mutation.py:18 (all four pass) and
    # transformers/models/switch_transformers/modular_switch_transformers.py:159 (self.input_dtype = x.dtype)
    src = """
    import torch

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.input_dtype = torch.float32

        def forward(self, hidden_states):
            self.input_dtype = hidden_states.dtype  # <-
            h = hidden_states.to(torch.float32).softmax(-1)
            return h.to(self.input_dtype)
    """
    assert findings(src, "EXL203") == []


def test_exl203_bookkeeping_never_read():
    # from transformers/models/seamless_m4t/modeling_seamless_m4t.py:3400 (set_modality called from forward)
    src = """
    import torch

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.current_modality = "text"

        def set_modality(self, modality="text"):
            if modality == "text":
                self.current_modality = "text"
            else:
                self.current_modality = "speech"  # <-

        def forward(self, input_ids=None, input_features=None):
            if input_features is not None:
                self.set_modality("speech")
                return input_features * 2
            self.set_modality("text")
            return input_ids * 2
    """
    assert findings(src, "EXL203") == []


def test_exl203_cross_call_state_keeps_firing():
    # TP, from transformers/models/minicpmv4_7/modular_minicpmv4_7.py:483 (self.rope_deltas read on the next call)
    src = """
    import torch

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.rope_deltas = None

        def forward(self, input_ids, position_ids):
            if self.rope_deltas is not None:
                return position_ids + self.rope_deltas
            self.rope_deltas = position_ids.max() - input_ids.shape[1]  # <-
            return position_ids
    """
    assert findings(src, "EXL203", at=True)


def test_exl203_recurrent_state_keeps_firing():
    # TP, from transformers/models/recurrent_gemma/modeling_recurrent_gemma.py:450
    src = """
    import torch

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1d_state = None

        def forward(self, x):
            state = x if self.conv1d_state is None else torch.cat((self.conv1d_state, x), -1)
            self.conv1d_state = state[:, :, 1:]  # <-
            return state.sum(-1)
    """
    assert findings(src, "EXL203", at=True)


# =======================================================================================
# EXL204 (and EXL302) in loss / matcher modules: the Hungarian matcher of DETR-style models
# calls scipy in its forward, but it only runs in the training loss (`if labels is not
# None`), never in an inference export. Labelled: 7 of 7 EXL204 findings on transformers
# are this matcher (mask2former, maskformer, oneformer, eomt, eomt_dinov3, videomt).
# Proposed fix: exportlint/semantics/model.py SemanticModel._build_export_path: do not
# make the forward of a class whose name ends in Loss / Criterion / Matcher an export
# entry point unless an export call of the file exports it.
# =======================================================================================


def test_exl204_hungarian_matcher_in_loss_module():
    # from transformers/models/mask2former/modeling_mask2former.py:480
    src = """
    import torch
    from scipy.optimize import linear_sum_assignment

    class Mask2FormerHungarianMatcher(torch.nn.Module):
        @torch.no_grad()
        def forward(self, masks_queries_logits, class_labels):
            indices = []
            for cost_matrix in masks_queries_logits:
                assigned_indices = linear_sum_assignment(cost_matrix.cpu())  # <-
                indices.append(assigned_indices)
            return indices
    """
    assert findings(src, "EXL204") == []


def test_exl204_scipy_in_model_forward_keeps_firing():
    # TP pattern: scipy on tensors in an ordinary model forward
    src = """
    import torch
    from scipy.ndimage import gaussian_filter

    class Model(torch.nn.Module):
        def forward(self, x):
            return torch.as_tensor(gaussian_filter(x.numpy(), 1.0))  # <-
    """
    assert findings(src, "EXL204", at=True)


# =======================================================================================
# EXL302 factory-without-device: the factory's result is put on the right device before it
# meets another tensor, or it cannot mix devices. Labelled: 10 of 10 EXL302 on transformers
# and 6 of 8 on timm FP. Measured here (torch 2.13, module + inputs on `meta`): a CPU
# index tensor (`x[torch.arange(n)]`) and a 0-d CPU tensor (`x * torch.tensor(2.0)`)
# both run and export (torch.export) without a device error.
# Proposed fix: exportlint/checks/device.py FactoryWithoutDevice.check: skip a factory
# whose result is (a) the receiver of .to(<non-literal device or tensor>) / .type_as(t) /
# .to(t), directly or through the variable it is assigned to in the same function;
# (b) a 0-d tensor (torch.tensor(<scalar literal>)); (c) used only as an index.
# =======================================================================================


def test_exl302_factory_then_to_device():
    # from transformers/models/owlv2/modeling_owlv2.py:975 (torch.zeros(...).to(device)),
    # transformers/models/evolla/modular_evolla.py:328, timm/models/edgenext.py:62,
    # transformers/models/wav2vec2_conformer/modeling_wav2vec2_conformer.py:155 (.type_as(self.inv_freq))
    src = """
    import torch

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("inv_freq", torch.ones(4))

        def forward(self, x):
            device = x.device
            a = torch.zeros((x.shape[0], 4)).to(device)
            b = torch.ones(x.shape[0]).to(x.device)
            t = torch.arange(x.shape[1]).type_as(self.inv_freq)
            return a + b[:, None] + t[None, :4]
    """
    assert findings(src, "EXL302") == []


def test_exl302_factory_moved_later_through_variable():
    # from timm/models/convit.py:127-130 (get_rel_indices: ... return rel_indices.to(device=device, dtype=dtype))
    # and transformers/models/xglm/modeling_xglm.py:82 (emb_weights.to(device=self.weights.device))
    src = """
    import torch

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.qk = torch.nn.Linear(4, 4)

        def rel(self, n: int):
            rel_indices = torch.zeros(1, n, n, 3)
            rel_indices[:, :, :, 0] = 1.0
            return rel_indices.to(device=self.qk.weight.device)

        def forward(self, x):
            return self.qk(x) + self.rel(x.shape[1]).sum()
    """
    assert findings(src, "EXL302") == []


def test_exl302_zero_dim_scalar_tensor():
    # from transformers/models/gemma3/modular_gemma3.py:507 (lambda *args: torch.tensor(True, dtype=torch.bool))
    src = """
    import torch

    class Model(torch.nn.Module):
        def forward(self, x):
            return x * torch.tensor(2.0)  # <-
    """
    assert findings(src, "EXL302") == []


def test_exl302_factory_used_only_as_index():
    # from transformers/models/informer/modular_informer.py:221 (dim_for_slice = torch.arange(q.size(0)).unsqueeze(-1))
    # and timm/models/vision_transformer_sam.py:79 (rel_pos_resized[relative_coords.long()])
    src = """
    import torch

    class Model(torch.nn.Module):
        def forward(self, query_states, top_idx):
            dim_for_slice = torch.arange(query_states.size(0)).unsqueeze(-1)
            return query_states[dim_for_slice, top_idx]
    """
    assert findings(src, "EXL302") == []


def test_exl302_factory_meeting_input_keeps_firing():
    # TP, from timm/models/csatv2.py:328 (mean_list = torch.zeros([3, 64]) filled from x, then used with x)
    src = """
    import torch

    class Model(torch.nn.Module):
        def forward(self, x):
            mean_list = torch.zeros([3, 64])  # <-
            for i in range(3):
                mean_list[i] = torch.mean(x[:, i], dim=0)
            return x - mean_list[None, :, :, None]
    """
    assert findings(src, "EXL302", at=True)


# =======================================================================================
# EXL304: `.half()` in the branch that already runs in float16 mixes nothing.
# Labelled: 3 of 5 EXL304 findings on transformers (reformer).
# Proposed fix: exportlint/checks/device.py AutocastInForward.check: skip .half() /
# .bfloat16() inside an `if <t>.dtype == torch.float16` (resp. bfloat16) branch; needs the
# enclosing Branch of a call (a parent map, or record the active dtype guard on CallSite).
# =======================================================================================


def test_exl304_half_under_float16_guard():
    # from transformers/models/reformer/modeling_reformer.py:854
    src = """
    import torch

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("mask_value_float16", torch.tensor(-1e4))
            self.register_buffer("mask_value_float32", torch.tensor(-1e9))

        def forward(self, query_key_dots, mask):
            if query_key_dots.dtype == torch.float16:
                mask_value = self.mask_value_float16.half()  # <-
            else:
                mask_value = self.mask_value_float32
            return torch.where(mask, query_key_dots, mask_value)
    """
    assert findings(src, "EXL304") == []


def test_exl304_autocast_in_forward_keeps_firing():
    # TP, from transformers/models/esmfold2/modeling_esmfold2.py:2027
    src = """
    import torch

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 4)

        def forward(self, x):
            with torch.autocast(device_type="cpu", dtype=torch.bfloat16):  # <-
                return self.lin(x)
    """
    assert findings(src, "EXL304", at=True)


# =======================================================================================
# EXL401: every sampled finding was right (trial-export table); keep them.
# =======================================================================================


def test_exl401_antialias_interpolate_keeps_firing_for_legacy():
    # TP, from transformers/models/siglip2/modeling_siglip2.py:173
    src = """
    import torch
    import torch.nn.functional as F

    class Model(torch.nn.Module):
        def forward(self, x):
            return F.interpolate(x, size=(8, 8), mode="bilinear", align_corners=False, antialias=True)  # <-
    """
    fs = findings(src, "EXL401", at=True)
    assert fs and "onnx-legacy" in fs[0].exporters


# =======================================================================================
# ExportDB misses whose cause is in the rule families (bench/exportdb_scoreboard.py).
# =======================================================================================


def test_exportdb_dynamic_shape_round():
    # from torch/_export/db/examples/dynamic_shape_round.py:13: strict/non-strict 'Constraints violated
    # (dim0_x)', onnx-dynamo fails, onnx-legacy 'type Tensor doesn't define __round__ method'.
    # Found by EXL116 (size-through-float; the file imports torch.export.Dim: dynamic shapes).
    src = """
    import torch
    from torch.export import Dim

    class DynamicShapeRound(torch.nn.Module):
        def forward(self, x):
            return x[: round(x.shape[0] / 2)]  # <-

    x = torch.randn(3, 2)
    dim0_x = Dim("dim0_x")
    example_args = (x,)
    dynamic_shapes = {"x": {0: dim0_x}}
    model = DynamicShapeRound()
    """
    assert errors_naming(src, "export-nonstrict")


def test_exportdb_torch_cond_fails_onnx_legacy():
    # from torch/_export/db/examples/cond_operands.py (and the 5 other cond_* examples,
    # dynamic_shape_map.py): 'Detected that you are using FX to torch.jit.trace a dynamo-optimized
    # function. This is not supported at the moment.' Measured in rules/README.md too.
    # Proposed fix: rules/op_support.json via exportlint/ops/generate.py: probe the higher-order
    # ops torch.cond / functorch.experimental.control_flow.cond / .map (onnx-legacy fails; map
    # also fails onnx-dynamo, step 3/3), so EXL401 reports them.
    src = """
    import torch

    class CondOperands(torch.nn.Module):
        def forward(self, x, y):
            def true_fn(x, y):
                return x + y

            def false_fn(x, y):
                return x - y

            return torch.cond(x.shape[0] > 2, true_fn, false_fn, [x, y])  # <-
    """
    assert errors_naming(src, "onnx-legacy")


def test_exl103_not_for_rows_of_tolist():
    # FP found in the post-fix zoo sample, from transformers/models/kimi_k25/modeling_kimi_k25.py:109
    # (`for t, h, w in grid_thw.tolist()`): the trip count is grid_thw.shape[0], not data.
    # Measured with torch 2.13: export-strict, export-nonstrict and onnx-dynamo pass; onnx-legacy
    # passes with a TracerWarning (the values are baked in) -> EXL102 for onnx-legacy only.
    src = """
    import torch

    class Model(torch.nn.Module):
        def forward(self, grid_thw):
            parts = []
            for t, h, w in grid_thw.tolist():  # <-
                parts.append(torch.arange(t * h * w, device=grid_thw.device))
            return torch.cat(parts)
    """
    assert not findings(src, "EXL103")
    fs = findings(src, "EXL102", at=True)
    assert fs and fs[0].exporters == ("onnx-legacy",)
    assert not errors_naming(src, "export-strict") and not errors_naming(src, "onnx-dynamo")


def test_exl302_built_on_cpu_in_a_list_then_moved_once():
    # FP found in the post-fix zoo sample, from transformers/models/qwen2_5_omni/modeling_qwen2_5_omni.py:347
    # (get_rope_index): pieces are built on the CPU, appended to a list, concatenated and moved
    # with `.to(position_ids.device)` before they meet a device tensor
    src = """
    import torch

    class Model(torch.nn.Module):
        def forward(self, input_ids, position_ids):
            llm_pos_ids_list = []
            for i in range(3):
                t_index = torch.arange(4).view(1, -1) * 2
                llm_pos_ids_list.append(t_index + i)
            llm_positions = torch.cat(llm_pos_ids_list, dim=1).reshape(3, -1)
            return position_ids + llm_positions.to(position_ids.device)
    """
    assert not findings(src, "EXL302")


def test_exl302_zero_dim_tensor_of_a_size():
    # FP found in the post-fix zoo sample, from transformers/models/sew_d/modeling_sew_d.py:812:
    # torch.tensor(x.size(-1)) is a 0-d scalar, which mixes with tensors on any device
    src = """
    import torch

    class Model(torch.nn.Module):
        def forward(self, q):
            scale = torch.sqrt(torch.tensor(q.size(-1), dtype=torch.float))
            return q / scale
    """
    assert not findings(src, "EXL302")


def test_exl302_still_fires_on_a_cpu_tensor_meeting_the_input():
    src = """
    import torch

    class Model(torch.nn.Module):
        def forward(self, x):
            shape = torch.tensor(x.shape)  # <-
            return x + torch.zeros(3) + shape
    """
    assert findings(src, "EXL302", at=True)
    assert len(findings(src, "EXL302")) == 2


def test_exl304_autocast_enabled_by_a_setting():
    # FP found in the post-fix zoo sample, from transformers/models/esmfold2/modeling_esmfold2.py:2027:
    # autocast enabled only when the weights are bf16 (use_amp); for a float32 export it is off
    src = """
    import torch

    class Model(torch.nn.Module):
        def forward(self, x):
            use_amp = next(self.parameters()).dtype == torch.bfloat16
            with torch.autocast(device_type=x.device.type, dtype=torch.bfloat16, enabled=use_amp):
                return x * 2
    """
    assert not findings(src, "EXL304")
    assert findings(src.replace("enabled=use_amp", "enabled=True"), "EXL304")


def test_exl302_helper_returns_cpu_value_its_caller_moves():
    # FP found in the post-fix zoo sample, from transformers/models/fsmt/modeling_fsmt.py:1084 and
    # qwen3_omni_moe get_llm_pos_ids_for_vision: a helper builds positions on the CPU and returns
    # them; the caller places them (here with .to(x.device))
    src = """
    import torch

    def sinusoid(n, dim):
        emb = torch.arange(n, dtype=torch.int64).float().unsqueeze(1)
        return torch.cat([emb.sin(), emb.cos()], dim=1)

    class Model(torch.nn.Module):
        def forward(self, x):
            pos = torch.stack(torch.meshgrid(torch.arange(4), torch.arange(4), indexing="ij"), dim=-1).to(device=x.device)
            return x + sinusoid(x.shape[1], 8).to(x.device) + pos.sum()
    """
    assert not findings(src, "EXL302")


# ---- re-labelled at c0be714 (bench/labels/zoo_sample.md, "Re-labelled at c0be714") ----


def test_loss_code_reached_from_forward_is_not_on_the_export_path():
    # FP class P-LOSS2: eomt / mask2former `forward -> get_loss_dict -> self.criterion(...) ->
    # matcher -> scipy` (EXL204), laguna / mellum / olmoe `if output_router_logits:
    # load_balancing_loss_func(...)` with torch.histc (EXL401, onnx-legacy): forward runs them
    # only to return a training loss; an inference export never does
    src = """
    import torch
    from scipy.optimize import linear_sum_assignment

    class HungarianMatcher(torch.nn.Module):
        def forward(self, logits, labels):
            idx = linear_sum_assignment(logits.cpu())
            return torch.as_tensor(idx[0])

    class SegLoss(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.matcher = HungarianMatcher()

        def forward(self, logits, labels):
            return self.matcher(logits, labels).float().sum()

    def load_balancing_loss_func(gate_logits, num_experts):
        return torch.histc(gate_logits.float(), bins=num_experts, min=0, max=num_experts).sum()

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.criterion = SegLoss()
            self.proj = torch.nn.Linear(4, 4)

        def get_loss_dict(self, logits, labels):
            return {"loss": self.criterion(logits, labels)}

        def forward(self, x, labels=None, output_router_logits=False):
            logits = self.proj(x)
            loss = None
            if labels is not None:
                loss = self.get_loss_dict(logits, labels)["loss"]
            if output_router_logits:
                loss = load_balancing_loss_func(logits, 4)
            return logits, loss
    """
    assert not findings(src, "EXL204")
    assert not findings(src, "EXL401")
    # the same op in the model's own computation keeps firing
    kept = src.replace("logits = self.proj(x)", "logits = self.proj(x) + torch.histc(x, bins=4).sum()")
    assert findings(kept, "EXL401")


def test_exl102_item_read_only_by_a_check():
    # FP class P-CHECK: transformers/models/qwen2_audio/modeling_qwen2_audio.py:728
    # `n_audio_tokens = (ids == tok).sum().item()` read only by `torch_compilable_check(n == m,
    # f"... {n} ...")`. Measured (torch 2.13): onnx-legacy exports it and matches eager on an input
    # with another count (the baked number reaches no output)
    src = """
    import torch

    def compilable_check(cond, msg):
        torch._check(cond)

    class Model(torch.nn.Module):
        def forward(self, ids, feats):
            n_tokens = (ids == 3).sum().item()  # <-
            n_feats = feats.shape[0]
            compilable_check(n_tokens == n_feats, f"tokens {n_tokens}, features {n_feats}")
            return feats * 2
    """
    assert not findings(src, "EXL102")
    used = src.replace("return feats * 2", "return feats[:n_tokens]")
    assert findings(used, "EXL102", at=True)


def test_exl401_adaptive_max_pool_to_a_parameter_size():
    # FP class P-POOLSIZE: timm/layers/adaptive_avgmax_pool.py:32,38 (`output_size=1` default,
    # passed by SelectAdaptivePool2d), timm/layers/non_local_attn.py:127 (`(self.block_size, 1)` on
    # an input asserted divisible). Measured (torch 2.13, onnx-dynamo): adaptive_max_pool2d to
    # (4, 4), (4, 1), (1, 4) on 8x8 / 8x7 exports; to (3, 3) on 8x8 it fails
    src = """
    import torch
    import torch.nn.functional as F

    def avgmax(x, output_size=1):
        return F.adaptive_max_pool2d(x, output_size) + F.adaptive_avg_pool2d(x, output_size)

    class Model(torch.nn.Module):
        def __init__(self, block_size=4):
            super().__init__()
            self.block_size = block_size

        def forward(self, x):
            return avgmax(x).sum() + F.adaptive_max_pool2d(x, (self.block_size, 1)).sum()
    """
    assert not findings(src, "EXL401")
    assert findings(src.replace("(self.block_size, 1)", "(3, 3)"), "EXL401")


def test_exl203_helper_sets_state_before_forward_reads_it():
    # FP class P-WBR2: swin / donut `set_shift_and_window_size` (called first in forward, sets
    # self.shift_size, then read), seamless_m4t `set_modality("speech")` then `if
    # self.current_modality == "speech"`. Measured (torch 2.13): all four exporters pass and match
    # eager on another input
    src = """
    import torch

    class Layer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.shift_size = 2
            self.mode = "text"
            self.lin = torch.nn.Linear(8, 8)

        def set_shift(self, res):
            if min(res) <= 4:
                self.shift_size = 0  # <-
            self.mode = "speech"

        def forward(self, x):
            self.set_shift((x.shape[1], x.shape[2]))
            if self.shift_size > 0:
                x = torch.roll(x, shifts=(-self.shift_size, -self.shift_size), dims=(1, 2))
            if self.mode == "speech":
                x = x + 1
            return self.lin(x)
    """
    assert not findings(src, "EXL203")
    # read before the helper writes it: a value carried from the previous call, still reported
    carried = src.replace("        def forward(self, x):\n            self.set_shift((x.shape[1], x.shape[2]))\n",
                          "        def forward(self, x):\n            x = x * self.shift_size\n"
                          "            self.set_shift((x.shape[1], x.shape[2]))\n")
    assert findings(carried, "EXL203", at=True)


def test_exl203_table_grown_on_demand_through_a_helper():
    # FP class P-GROW: fsmt SinusoidalPositionalEmbedding.make_weight, musicgen(_melody) /
    # seamless_m4t make_weights: `if max_pos > self.weights.size(0): self.make_weights(max_pos)`.
    # Measured (torch 2.13): at a length the table covers all four exporters pass and match
    src = """
    import torch
    from torch import nn

    class Pos(nn.Module):
        def __init__(self):
            super().__init__()
            self.make_weights(16)

        def make_weights(self, n):
            w = torch.zeros(n, 8)
            if hasattr(self, "weights"):
                w = w.to(self.weights.device)
            self.weights = nn.Buffer(w, persistent=False)

        def forward(self, x):
            if not torch.compiler.is_compiling() and x.shape[1] > self.weights.size(0):
                self.make_weights(x.shape[1])
            return x + self.weights[: x.shape[1]]
    """
    assert not findings(src, "EXL203")


def test_exl101_size_returned_in_a_tuple_by_a_submodule():
    # FP class P-TUPLE: transformers/models/timesformer/modeling_timesformer.py:131
    # `embeddings, num_frames, patch_width = self.patch_embeddings(pixel_values)`, the submodule's
    # forward returning `(embeddings, num_frames, patch_width)` with num_frames from
    # `pixel_values.shape`: a size, so `num_frames != self.time_embeddings.size(1)` is a shape test
    # (EXL111 at most), not a data-dependent branch
    src = """
    import torch

    class PatchEmbed(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Conv2d(3, 8, 4, 4)

        def forward(self, pixel_values):
            batch_size, num_frames, num_channels, height, width = pixel_values.shape
            x = self.proj(pixel_values.reshape(batch_size * num_frames, num_channels, height, width))
            patch_width = x.size(-1)
            return x.flatten(2).transpose(1, 2), num_frames, patch_width

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.patch_embeddings = PatchEmbed()
            self.time_embeddings = torch.nn.Parameter(torch.zeros(1, 8, 8))

        def forward(self, pixel_values):
            embeddings, num_frames, patch_width = self.patch_embeddings(pixel_values)
            if num_frames != self.time_embeddings.size(1):  # <-
                embeddings = embeddings * 2
            return embeddings
    """
    assert not findings(src, "EXL101")
    # a tensor in that position keeps firing
    data = src.replace("return x.flatten(2).transpose(1, 2), num_frames, patch_width",
                       "return x.flatten(2).transpose(1, 2), x.sum(), patch_width")
    assert findings(data, "EXL101", at=True)


def test_exl203_state_written_by_a_helper_in_one_arm_read_in_another_stays_reported():
    # TP kept (glm_image get_rope_index): the prefill arm calls a helper that stores
    # `self._prefill_len`; the decode arm (`elif`) reads it: a value from an earlier call
    src = """
    import torch

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self._prefill_len = None

        def get_rope_index(self, ids):
            self._prefill_len = ids.shape[1]  # <-
            return torch.arange(ids.shape[1])

        def forward(self, ids, past_len: int = 0):
            if past_len == 0:
                pos = self.get_rope_index(ids)
            else:
                pos = torch.arange(ids.shape[1]) + past_len - self._prefill_len
            return ids + pos
    """
    assert findings(src, "EXL203", at=True)


def test_exl201_numpy_on_static_sizes_in_arithmetic_is_not_an_error():
    # FP class P-NPSIZE: groupvit resize_attention_map `int(np.round(height / scale))` into reshape,
    # perceiver `torch.reshape(x, [-1, np.prod(f.shape[1:])])` / `[b, np.prod(dims), -1]`.
    # Measured (torch 2.13, static shapes): strict and non-strict export and match; with a
    # dynamic H non-strict fails ('loop of ufunc does not support argument 0 of type SymFloat'),
    # strict too ('Constraints violated (H)'). In a branch (`if np.prod(f.shape) % n != 0`:
    # 'Data-dependent branching') or unconverted in `reshape(x.shape[0], np.prod(...))`
    # ('Pending unbacked symbols') strict fails at static shapes: still errors
    src = """
    import numpy as np
    import torch

    class Model(torch.nn.Module):
        def forward(self, att, pix):
            height, width = pix.shape[2:]
            scale = (height * width // att.shape[2]) ** 0.5
            fh = int(np.round(height / scale))  # <-
            flat = torch.reshape(att, [-1, np.prod(att.shape[1:])])
            return att.reshape(att.shape[0], att.shape[1], fh, att.shape[2] // fh) + flat.sum()
    """
    got = lint(src, codes=["EXL201"])
    assert got and all(f.severity.value == "warning" for f in got)
    assert all(f.exporters == ("export-nonstrict", "onnx-legacy") for f in got)
    # exports with static shapes declared: nothing to say
    static = src + """
    m = Model()
    torch.export.export(m, (torch.randn(1, 2, 16), torch.randn(1, 3, 32, 32)))
    """
    assert not lint(static, codes=["EXL201"])
    branch = src.replace("fh = int(np.round(height / scale))  # <-",
                         "fh = int(np.round(height / scale))  # <-\n            if fh > 3:\n                fh = 3")
    errs = [f for f in lint(branch, codes=["EXL201"]) if f.severity.value == "error"]
    assert [f.line for f in errs] == [_line(branch)]


def test_exl101_label_check_only_when_labels_are_passed():
    # FP class P-TRAIN: wav2vec2 / hubert / wavlm / sew / unispeech CTC heads
    # (transformers/models/wav2vec2/modeling_wav2vec2.py:1610): `if labels is not None and
    # labels.max() >= vocab_size: raise`. `labels=None` carries training targets: an inference
    # export never passes them, so the data-dependent test never runs
    src = """
    import torch

    class CTC(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.head = torch.nn.Linear(4, 8)

        def forward(self, input_values, labels: torch.Tensor | None = None):
            if labels is not None and labels.max() >= 8:  # <-
                raise ValueError("label values must be < vocab_size")
            return self.head(input_values)
    """
    assert not lint(src, codes=["EXL101"])
    # a required `labels` input (no None default) is data the export is given: still reported
    required = src.replace("labels: torch.Tensor | None = None", "labels: torch.Tensor")
    assert [f.line for f in lint(required, codes=["EXL101"])] == [_line(required)]


def test_exl203_global_filled_once():
    # FP class P-ONCE: transformers/models/sam3_video/modeling_sam3_video.py:54-64
    # `_load_cv_utils_kernel_once`: `global k; if k is not None: return; k = ...`. Measured
    # (torch 2.13): all four exporters pass and match eager on another input
    src = """
    import torch

    _kernel = None

    def _load_once():
        global _kernel
        if _kernel is not None:
            return
        _kernel = False  # <-

    class Model(torch.nn.Module):
        def forward(self, x):
            _load_once()
            return x * 3 if _kernel else x * 2
    """
    assert not findings(src, "EXL203")
    # a global counter bumped on every call stays reported
    counter = src.replace("        if _kernel is not None:\n            return\n", "")
    assert findings(counter, "EXL203", at=True)


def test_exl401_legacy_op_inside_a_check_condition():
    # FP class P-CHECKOP: transformers/models/mvp/modeling_mvp.py:1290
    # `torch_compilable_check(torch.unique_consecutive(eos_mask.sum(1)).numel() == 1, "...")`.
    # Measured (torch 2.13, transformers' torch_compilable_check): onnx-legacy exports, the
    # ONNX graph keeps no node of the check
    src = """
    import torch

    def compilable_check(cond, msg):
        torch._check(cond)

    class Model(torch.nn.Module):
        def forward(self, ids, h):
            eos = ids.eq(2)
            compilable_check(torch.unique_consecutive(eos.sum(1)).numel() == 1, "same number of eos")  # <-
            return h * 2
    """
    assert not [f for f in lint(src, codes=["EXL401"]) if "onnx-legacy" in f.exporters]
    used = src.replace("return h * 2", "return h * torch.unique_consecutive(eos.sum(1)).sum()")
    assert [f for f in lint(used, codes=["EXL401"]) if "onnx-legacy" in f.exporters]


def test_exl207_tensor_annotation_alone_on_a_helper_parameter():
    # FP class P-ANNOT: transformers/models/rt_detr_v2/modeling_rt_detr_v2.py:73
    # `multi_scale_deformable_attention_v2(value, value_spatial_shapes: Tensor, ...)` is called with
    # `spatial_shapes_list` (a list of (h, w) ints from feature-map shapes, unknown to the caller's
    # analysis): the annotation alone does not make the rows 0-d tensors
    src = """
    import torch
    from torch import Tensor

    def deform_attn(value: Tensor, value_spatial_shapes: Tensor) -> Tensor:
        outs = []
        for level, (height, width) in enumerate(value_spatial_shapes):
            outs.append(value[level].reshape(-1, height, width).mean())  # <-
        return torch.stack(outs)

    class Attn(torch.nn.Module):
        def forward(self, value, spatial_shapes_list=None):
            return deform_attn(value, spatial_shapes_list)
    """
    assert not findings(src, "EXL207")
    # a tensor flowing in keeps firing
    tensor = src.replace("return deform_attn(value, spatial_shapes_list)",
                         "return deform_attn(value, torch.as_tensor(spatial_shapes_list))")
    assert findings(tensor, "EXL207", at=True)


def test_code_under_labels_is_not_none_is_not_on_the_export_path():
    # FP class P-TRAIN (through a helper): transformers/models/udop/modeling_udop.py:810
    # `if decoder_input_ids is None and labels is not None: decoder_input_ids =
    # self._shift_right(labels)`, whose `assert torch.all(shifted >= 0).item()` runs only when
    # training targets are passed
    src = """
    import torch

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(4, 4)

        def _shift_right(self, input_ids):
            shifted = input_ids.new_zeros(input_ids.shape)
            shifted[..., 1:] = input_ids[..., :-1].clone()
            assert torch.all(shifted >= 0).item(), "positive ids"  # <-
            return shifted

        def forward(self, x, decoder_input_ids=None, labels=None):
            if decoder_input_ids is None and labels is not None:
                decoder_input_ids = self._shift_right(labels)
            return self.proj(x)
    """
    assert not findings(src, "EXL101")
    # the same helper on an inference input keeps firing
    kept = src.replace("decoder_input_ids = self._shift_right(labels)",
                       "decoder_input_ids = self._shift_right(labels)\n"
                       "            x = x + self._shift_right(x.long()).float()")
    assert findings(kept, "EXL101", at=True)
