"""Issue 10 (branch prec19): false-alarm classes of the tenth fresh zoo population (ptlflow,
carvekit, boxmot, voicefixer, ...; bench/labels/zoo_sample.md, sample T), one reproducer each,
with the controls that must keep firing. Probes in bench/labels/probes_prec19/."""

from __future__ import annotations

from conftest import codes_at as codes
from conftest import line_of


# ---------------------------------------------------------------------------------------
# T-NESTED (EXL101): a function nested in a method is analysed with the class in scope but takes
# no `self`: its first parameter is its first argument (carvekit U2NET's `def unet(x, height=1)`
# in forward, called `unet(x)` and `unet(..., height + 1)`; `height` took the kind of `x`)
# ---------------------------------------------------------------------------------------

_NESTED = """import torch
import torch.nn as nn


class U(nn.Module):
    def __init__(self):
        super().__init__()
        self.stage1 = nn.Conv2d(3, 3, 1)
        self.stage2 = nn.Conv2d(3, 3, 1)

    def forward(self, x):
        def unet(x, height=1):
            if height < 2:  # DEPTH
                x1 = getattr(self, f"stage{height}")(x)
                x2 = unet(x1, height + 1)
                return x2 if height > 1 else x  # TERNARY
            return getattr(self, f"stage{height}")(x)

        return unet(x)
"""


def test_nested_int_parameter_of_a_nested_function_is_not_tensor_data():
    found = codes(_NESTED)
    assert (line_of(_NESTED, "# DEPTH"), "EXL101") not in found
    assert (line_of(_NESTED, "# TERNARY"), "EXL101") not in found


def test_nested_control_the_tensor_argument_of_a_nested_function_still_fires():
    src = _NESTED.replace("if height < 2:  # DEPTH", "if x.sum() > 0:  # DEPTH")
    assert (line_of(src, "# DEPTH"), "EXL101") in codes(src)


def test_nested_control_a_tensor_passed_for_the_second_parameter_still_fires():
    src = _NESTED.replace("return unet(x)", "return unet(x, x.mean())")
    assert (line_of(src, "# DEPTH"), "EXL101") in codes(src)


# ---------------------------------------------------------------------------------------
# T-SIZEPARAM (EXL101): a forward parameter compared with a dim unpacked from the input's shape
# and otherwise used only as a size: a factory's dims (`torch.zeros(b, out_ch - c, h, w)`), a
# slice bound, an interpolate size (ptlflow RPKNet's InterpolationTransition.forward(x, out_ch))
# ---------------------------------------------------------------------------------------

_SIZEPARAM = """import torch
import torch.nn as nn
import torch.nn.functional as F


class Transition(nn.Module):
    def __init__(self, use_zero_channel=True):
        super().__init__()
        self.use_zero_channel = use_zero_channel

    def forward(self, x, out_ch):
        b, c, h, w = x.shape
        if c != out_ch:  # NEQ
            if self.use_zero_channel:
                if c < out_ch:  # LT
                    x_zero = torch.zeros(b, out_ch - c, h, w, dtype=x.dtype, device=x.device)
                    x = torch.cat([x, x_zero], dim=1)
                elif c > out_ch:
                    x = x[:, :out_ch]
            else:
                x = F.interpolate(x[None], (out_ch, h, w), mode="trilinear", align_corners=True)[0]
        return x
"""


def test_sizeparam_channel_count_used_as_factory_and_interpolate_size_is_not_reported():
    found = codes(_SIZEPARAM)
    assert (line_of(_SIZEPARAM, "# NEQ"), "EXL101") not in found
    assert (line_of(_SIZEPARAM, "# LT"), "EXL101") not in found


def test_sizeparam_control_the_parameter_also_used_as_a_tensor_still_fires():
    src = _SIZEPARAM.replace("        return x\n", "        return x * out_ch\n")
    assert (line_of(src, "# NEQ"), "EXL101") in codes(src)


def test_sizeparam_control_factory_size_alone_is_no_evidence():
    # no comparison with a size: `torch.zeros(out_ch)` alone does not make it a Python size
    src = """import torch
import torch.nn as nn


class M(nn.Module):
    def forward(self, x, out_ch):
        if out_ch > 0:  # ALONE
            return torch.zeros(out_ch)
        return x
"""
    assert (line_of(src, "# ALONE"), "EXL101") in codes(src)


# ---------------------------------------------------------------------------------------
# T-GROW (EXL203): a table rebuilt only when this call needs a larger or another one, its length
# kept in an int attribute (ptlflow GMFlowNet's PositionalEncoding: `if max_hw > self.max_len or
# self.d_model != C: self.max_len = max_hw; self.d_model = C; self._update_PE_table(...)`): as
# P-GROW's `n > self.table.size(0)`
# ---------------------------------------------------------------------------------------

_GROW = """import torch
import torch.nn as nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model):
        super().__init__()
        self.max_len = 256
        self.d_model = d_model
        self._update_PE_table(self.max_len, self.d_model // 2)

    def _update_PE_table(self, max_len, d_model):
        self.PE_table = torch.zeros(max_len, d_model)
        pos = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        self.PE_table[:, 0::2] = torch.sin(pos)

    def forward(self, x):
        N, C, H, W = x.shape
        max_hw = max(H, W)
        if max_hw > self.max_len or self.d_model != C:
            self.max_len = max_hw  # LEN
            self.d_model = C  # KEY
            self._update_PE_table(self.max_len, self.d_model // 2)
        return x + self.PE_table[:H, :1].unsqueeze(0).unsqueeze(0)
"""


def test_grow_table_length_in_an_int_attribute_is_not_reported():
    found = codes(_GROW)
    assert (line_of(_GROW, "# LEN"), "EXL203") not in found
    assert (line_of(_GROW, "# KEY"), "EXL203") not in found


def test_grow_control_a_running_maximum_with_no_table_still_fires():
    src = _GROW.replace("            self._update_PE_table(self.max_len, self.d_model // 2)\n", "")
    src = src.replace("        return x + self.PE_table", "        return x * self.max_len + self.PE_table")
    assert (line_of(src, "# LEN"), "EXL203") in codes(src)


def test_grow_control_a_test_on_something_else_still_fires():
    # a shrinking test (`self.max_len > max_hw`): the attribute is no length grown on demand
    src = _GROW.replace("if max_hw > self.max_len or self.d_model != C:", "if self.max_len > max_hw:")
    assert (line_of(src, "# LEN"), "EXL203") in codes(src)


# ---------------------------------------------------------------------------------------
# T-TRAINREAD (EXL203, EXL102): state and `.item()` values read only in a `self.training` arm
# (ptlflow CRAFT's attention diagnostics: `self.call_count += 1`, `if self.training: if
# self.call_count % N == 0: print0(..., curr_avg_attn)`): an eval-mode export never reads them
# (a training-mode export is EXL501's)
# ---------------------------------------------------------------------------------------

_TRAINREAD = """import math
import torch
import torch.nn as nn
from .utils import print0


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(8, 8)
        self.call_count = 0
        self.attn_diag_cycles = 1000

    def forward(self, x):
        scores = self.q(x) @ x.transpose(-1, -2) / math.sqrt(8)
        with torch.no_grad():
            curr_avg_attn = scores.abs().mean().item()  # ITEM
        self.call_count += 1  # COUNT
        if self.training:
            if self.call_count % self.attn_diag_cycles == 0:
                print0("avg-attn: {:.2f}".format(curr_avg_attn))
        return scores.softmax(-1)
"""


def test_trainread_counter_and_item_read_only_in_a_training_arm_are_not_reported():
    found = codes(_TRAINREAD)
    assert (line_of(_TRAINREAD, "# COUNT"), "EXL203") not in found
    assert (line_of(_TRAINREAD, "# ITEM"), "EXL102") not in found


def test_trainread_control_values_read_in_eval_mode_still_fire():
    src = _TRAINREAD.replace("        if self.training:\n", "        if not self.training:\n")
    src = src.replace("                print0(", "                scores = scores * curr_avg_attn\n                print0(")
    found = codes(src)
    assert (line_of(src, "# COUNT"), "EXL203") in found
    assert (line_of(src, "# ITEM"), "EXL102") in found


# ---------------------------------------------------------------------------------------
# T-EVALHELPER (EXL501): the exported model comes from a function of the file that puts its first
# parameter in eval mode or refuses one in training mode (boxmot's
# `export_model = prepare_coreml_export_model(as_inference_export_model(self.model))`)
# ---------------------------------------------------------------------------------------

_EVALHELPER = """import torch
import torch.nn as nn


def prepare(model: nn.Module) -> nn.Module:
    if model.training:
        raise RuntimeError("eval mode required")
    return model


def export(net, x):
    m = prepare(net)
    return torch.export.export(m, (x,))  # EXPORT
"""


def test_evalhelper_model_from_a_helper_refusing_training_mode_is_not_reported():
    assert (line_of(_EVALHELPER, "# EXPORT"), "EXL501") not in codes(_EVALHELPER)
    src = _EVALHELPER.replace("    if model.training:\n        raise RuntimeError(\"eval mode required\")\n",
                              "    model.eval()\n")
    assert (line_of(src, "# EXPORT"), "EXL501") not in codes(src)


def test_evalhelper_control_a_helper_that_switches_back_to_training_still_fires():
    src = _EVALHELPER.replace("    if model.training:\n        raise RuntimeError(\"eval mode required\")\n",
                              "    model.eval()\n    model.train()\n")
    assert (line_of(src, "# EXPORT"), "EXL501") in codes(src)


def test_evalhelper_control_a_helper_that_only_logs_the_mode_still_fires():
    src = _EVALHELPER.replace("        raise RuntimeError(\"eval mode required\")\n", "        print('training')\n")
    assert (line_of(src, "# EXPORT"), "EXL501") in codes(src)


# ---------------------------------------------------------------------------------------
# T-CUDAFLAG (EXL301): `.cuda()` under `if cuda and torch.cuda.is_available():` (voicefixer's
# try_tensor_cuda): a GPU the caller asks for and the machine has; never run on a CPU machine
# ---------------------------------------------------------------------------------------

_CUDAFLAG = """import torch
import torch.nn as nn


def try_tensor_cuda(tensor, cuda):
    if cuda and torch.cuda.is_available():
        return tensor.cuda()  # CUDA
    else:
        return tensor.cpu()


class Voc(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, mel, cuda=False):
        mel = try_tensor_cuda(mel, cuda=cuda)
        return self.lin(mel)
"""


def test_cudaflag_cuda_under_a_flag_and_is_available_is_not_reported():
    assert (line_of(_CUDAFLAG, "# CUDA"), "EXL301") not in codes(_CUDAFLAG)


def test_cudaflag_control_unguarded_and_flag_only_still_fire():
    src = _CUDAFLAG.replace("if cuda and torch.cuda.is_available():", "if cuda:")
    assert (line_of(src, "# CUDA"), "EXL301") in codes(src)
    src = _CUDAFLAG.replace("if cuda and torch.cuda.is_available():", "if torch.cuda.is_available():")
    assert (line_of(src, "# CUDA"), "EXL301") in codes(src)


# ---------------------------------------------------------------------------------------
# T-NESTEDKEY (EXL101): `inputs["meta"]["image_paths"]`: what a str key gave is looked up by a
# str key again, so it is a mapping, never a tensor; its item is of unknown kind (ptlflow
# VideoFlow's image paths compared as strings)
# ---------------------------------------------------------------------------------------

_NESTEDKEY = """import torch
import torch.nn as nn


class VF(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 1)

    def forward(self, inputs):
        images = inputs["images"]
        n = 0
        if "meta" in inputs and "image_paths" in inputs["meta"]:
            paths = [p[0] for p in inputs["meta"]["image_paths"]]
            i = 1
            while i < len(paths) and paths[0] == paths[i]:  # PATHS
                n += 1
                i += 1
        if inputs["scale"].sum() > 0:  # SCALE
            images = images * 2
        return self.conv(images[:, n])
"""


def test_nestedkey_items_of_a_nested_mapping_are_not_tensor_data():
    assert (line_of(_NESTEDKEY, "# PATHS"), "EXL101") not in codes(_NESTEDKEY)


def test_nestedkey_control_a_one_level_entry_keeps_the_tensor_guess():
    assert (line_of(_NESTEDKEY, "# SCALE"), "EXL101") in codes(_NESTEDKEY)


# ---------------------------------------------------------------------------------------
# T-NONEDEFAULT (EXL401 here, any rule): a `None`-default parameter that no call on the export
# path passes, tested (directly or through a local bound once to it) with `is None` / `is not
# None`: only the arm the default selects runs (anomalib MultiVariateGaussian._cov(..., aweights=
# None), `weights = aweights`, `... if weights is None else torch.mm(torch.diag(weights), ...)`)
# ---------------------------------------------------------------------------------------

_NONEDEFAULT = """import torch
import torch.nn as nn


class MVG(nn.Module):
    @staticmethod
    def _cov(observations, rowvar=False, aweights=None):
        weights = aweights
        if weights is not None:
            if not torch.is_tensor(weights):
                weights = torch.tensor(weights, dtype=torch.float)
            avg = torch.linalg.inv(observations)  # INV
        else:
            avg = torch.mean(observations, 0)
        observations_m = observations.sub(avg.expand_as(observations))
        x_t = observations_m.t() if weights is None else torch.mm(torch.diag(weights), observations_m).t()  # DIAG
        return torch.mm(x_t, observations_m)

    def forward(self, embedding):
        return self._cov(embedding, rowvar=False)
"""


def test_nonedefault_arms_an_unset_none_default_never_selects_are_not_reported():
    found = codes(_NONEDEFAULT)
    assert (line_of(_NONEDEFAULT, "# DIAG"), "EXL401") not in found
    assert (line_of(_NONEDEFAULT, "# INV"), "EXL401") not in found


def test_nonedefault_control_a_call_that_passes_it_still_fires():
    src = _NONEDEFAULT.replace("self._cov(embedding, rowvar=False)", "self._cov(embedding, rowvar=False, aweights=embedding[0])")
    found = codes(src)
    assert (line_of(src, "# DIAG"), "EXL401") in found


def test_nonedefault_control_a_rebound_alias_still_fires():
    src = _NONEDEFAULT.replace("        weights = aweights\n", "        weights = aweights\n        weights = observations[0]\n")
    assert (line_of(src, "# DIAG"), "EXL401") in codes(src)


# ---------------------------------------------------------------------------------------
# T-ELEMENT0D (EXL303): an unregistered 1-D tensor of a list literal or comprehension read only as
# one element in arithmetic (`self.loss_weights[i] * loss`, ptlflow FlowNet's MultiScale): a 0-d
# CPU tensor, which arithmetic takes beside a tensor on any device (probe t29: eager and both
# torch.export programs pass with inputs on `meta`; the 1-D tensor itself fails all three, t29c)
# ---------------------------------------------------------------------------------------

_ELEMENT0D = """import torch
import torch.nn as nn


class MultiScale(nn.Module):
    def __init__(self, num_scales=5, l_weight=0.32):
        super().__init__()
        self.loss_weights = torch.FloatTensor([(l_weight / 2**s) for s in range(num_scales)])  # W

    def forward(self, outputs, target):
        lossvalue = 0
        for i, out in enumerate(outputs):
            lossvalue += self.loss_weights[i] * (out - target).abs().mean()
        return lossvalue
"""


def test_element0d_elements_of_a_flat_tensor_in_arithmetic_are_not_reported():
    assert (line_of(_ELEMENT0D, "# W"), "EXL303") not in codes(_ELEMENT0D)


def test_element0d_control_the_whole_tensor_or_a_slice_or_a_row_still_fires():
    src = _ELEMENT0D.replace("self.loss_weights[i] * (out", "self.loss_weights * (out")
    assert (line_of(src, "# W"), "EXL303") in codes(src)
    src = _ELEMENT0D.replace("self.loss_weights[i] * (out", "self.loss_weights[i:] * (out")
    assert (line_of(src, "# W"), "EXL303") in codes(src)
    src = _ELEMENT0D.replace("[(l_weight / 2**s) for s in range(num_scales)]", "[[l_weight, 1.0], [2.0, 3.0]]")
    assert (line_of(src, "# W"), "EXL303") in codes(src)


def test_nonedefault_control_a_parameter_rebound_from_an_unset_default_still_fires():
    # sam2_video's `_run_single_frame_inference(..., mask_inputs, ..., prev_sam_mask_logits=None)`:
    # `mask_inputs` is a parameter the call passes; `mask_inputs = prev_sam_mask_logits` in another
    # arm does not make it the unset default
    src = """import torch
import torch.nn as nn


class M(nn.Module):
    def step(self, x, mask_inputs, prev=None):
        if mask_inputs is not None:
            return torch.diag(mask_inputs)  # DIAG
        if prev is not None:
            mask_inputs = prev
        return x

    def forward(self, x, m):
        return self.step(x, mask_inputs=m)
"""
    assert (line_of(src, "# DIAG"), "EXL401") in codes(src)


def test_nonedefault_control_a_function_handed_on_as_a_value_still_fires():
    # mmpretrain OFA's `partial(apply_constraint, constraint_trie=self.constraint_trie, ...)`: a
    # module function handed on as a value runs with unknown arguments; its None default may be set
    src = """from functools import partial
import torch
import torch.nn as nn


def apply_constraint(input_ids, logits, constraint_trie=None):
    if constraint_trie is not None:
        return torch.diag(logits)  # DIAG
    return logits


class M(nn.Module):
    def forward(self, ids, logits):
        fn = partial(apply_constraint, constraint_trie=ids)
        return fn(ids, logits)
"""
    assert (line_of(src, "# DIAG"), "EXL401") in codes(src)
