"""Issue 10 (branch prec10): false-alarm classes of the fresh zoo population (asteroid,
neuralforecast) and the census, one reproducer each, with the controls that must keep firing.
Exporter behaviour behind each expectation was measured with torch 2.13.0
(bench/labels/probes_prec10/, outputs in `.out` files)."""

from __future__ import annotations

from conftest import codes_at as codes
from conftest import line_of

# ---------------------------------------------------------------------------------------
# P-NOTTENSOR: a forward parameter read with an attribute no tensor has
# ---------------------------------------------------------------------------------------

MASKED_ATTN = """
import torch
import torch.nn as nn
import torch.nn.functional as F

class FullAttention(nn.Module):
    def __init__(self, mask_flag=True, output_attention=False):
        super().__init__()
        self.mask_flag = mask_flag
        self.output_attention = output_attention

    def forward(self, queries, keys, values, attn_mask):
        if not self.output_attention:
            return F.scaled_dot_product_attention(
                queries, keys, values,
                attn_mask=(attn_mask.mask[:, 0] if (self.mask_flag and attn_mask) else None),  # COND
            )
        scores = torch.einsum("blhe,bshe->bhls", queries, keys)
        if self.mask_flag:
            if attn_mask is None:
                attn_mask = TriangularCausalMask(queries.shape[0], queries.shape[1])
            scores.masked_fill_(attn_mask.mask, -float("inf"))
        return torch.einsum("bhls,bshd->blhd", torch.softmax(scores, dim=-1), values)
"""


def test_parameter_read_with_an_attribute_no_tensor_has_is_not_tensor_data():
    # neuralforecast FullAttention: `attn_mask` is a mask object (`TriangularCausalMask`, read as
    # `attn_mask.mask`); `self.mask_flag and attn_mask` tests a Python object's truth, not tensor
    # data (a tensor has no `.mask`: AttributeError). The re-binding in the other arm comes after
    # the read in source order.
    assert (line_of(MASKED_ATTN, "COND"), "EXL101") not in codes(MASKED_ATTN)


def test_parameter_read_with_tensor_attributes_stays_tensor_data():
    # control: the same test on a parameter read only as a tensor (`.shape`, `.T`, `.dtype`,
    # methods): a data-dependent branch, reported
    src = MASKED_ATTN.replace("attn_mask.mask", "attn_mask.T")
    assert (line_of(src, "COND"), "EXL101") in codes(src)
    # and one read with a foreign attribute only after it is re-bound (torchvision RetinaNet:
    # `images, targets = self.transform(images, targets)` then `images.tensors`)
    late = MASKED_ATTN.replace("attn_mask.mask[:, 0] if", "attn_mask.T if").replace(
        "        if not self.output_attention:", "        attn_mask = attn_mask.float()\n        if not self.output_attention:")
    assert (line_of(late, "COND"), "EXL101") in codes(late)


# ---------------------------------------------------------------------------------------
# P-FALLBACK: an op's copy in the `except` fallback of a try whose body calls it
# ---------------------------------------------------------------------------------------

STABLE_SOLVE = """
import torch
import torch.nn as nn

def _stable_solve(b, a, eps=1e-6):
    try:
        return torch.linalg.solve(a, b)  # TRY
    except RuntimeError:
        a = a + eps * torch.eye(a.shape[-1], dtype=a.dtype)
        return torch.linalg.solve(a, b)  # FALLBACK

class Beamformer(nn.Module):
    def forward(self, target_scm, noise_scm):
        return _stable_solve(target_scm, noise_scm)
"""


def test_op_copied_in_the_except_fallback_is_reported_once_at_the_try_body():
    # asteroid's stable_solve/cholesky: the handler runs only when the try body raised; an
    # export fails at the try body's op (probes_prec10/g2: dynamo and legacy name the try body's
    # `linalg.solve`, never the fallback's `inv`)
    got = codes(STABLE_SOLVE)
    assert (line_of(STABLE_SOLVE, "TRY"), "EXL401") in got
    assert (line_of(STABLE_SOLVE, "FALLBACK"), "EXL401") not in got


def test_other_op_in_the_except_fallback_stays_reported():
    # control: a fallback calling an op the try body does not call is reported (whether it runs
    # is not known statically: only the same API's copy is a duplicate)
    src = STABLE_SOLVE.replace("return torch.linalg.solve(a, b)  # FALLBACK",
                               "return torch.linalg.inv(a) @ b  # FALLBACK")
    got = codes(src)
    assert (line_of(src, "TRY"), "EXL401") in got
    assert (line_of(src, "FALLBACK"), "EXL401") in got


# ---------------------------------------------------------------------------------------
# P-STFTREAL: torch.stft with real output (`return_complex=False`) exports with onnx-legacy
# ---------------------------------------------------------------------------------------

STFT = """
import torch
import torch.nn as nn

class STFT(nn.Module):
    def __init__(self, n_fft=16, hop=4):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("window", torch.hann_window(n_fft))

    def forward(self, x):
        s = torch.stft(x, n_fft=self.n_fft, hop_length=self.hop, window=self.window, center=True,  # CALL
                       normalized=False, onesided=True, pad_mode="reflect", return_complex=False)
        return s
"""


def _legacy_exl401(src):
    from conftest import lint

    return [f for f in lint(src) if f.code == "EXL401" and f.line == line_of(src, "# CALL")
            and "onnx-legacy" in f.exporters]


def test_stft_with_real_output_is_not_reported_for_legacy():
    # asteroid x_umx `_STFT`: legacy exports and matches with `return_complex=False`
    # (probes_prec10/g1a, and the regenerated op table's variants); it refuses complex output only
    assert _legacy_exl401(STFT) == []


def test_stft_with_complex_output_stays_reported_for_legacy():
    # control: `return_complex=True` (the op table: 'STFT does not currently support complex types')
    assert _legacy_exl401(STFT.replace("return_complex=False", "return_complex=True"))


# ---------------------------------------------------------------------------------------
# P-GROUNDTRUTH: a module whose forward requires ground truth is no export entry point
# ---------------------------------------------------------------------------------------

OHEM = """
import torch
import torch.nn as nn
import torch.nn.functional as F

class OhemCrossEntropy(nn.Module):
    def __init__(self, thres=0.7, min_kept=100000, ignore_label=255):
        super().__init__()
        self.thresh, self.min_kept, self.ignore_label = thres, max(1, min_kept), ignore_label

    def forward(self, score, target):
        pred = F.softmax(score, dim=1)
        losses = F.cross_entropy(score, target, ignore_index=self.ignore_label, reduction='none').view(-1)
        mask = target.view(-1) != self.ignore_label
        tmp = target.clone()
        tmp[tmp == self.ignore_label] = 0
        pred = pred.gather(1, tmp.unsqueeze(1))
        pred, ind = pred.view(-1)[mask].sort()
        if pred.numel() > 0:  # NUMEL
            min_value = pred[min(self.min_kept, pred.numel() - 1)]
        else:
            return score.new_tensor(0.0)
        threshold = max(min_value, self.thresh)
        return losses[mask][ind][pred < threshold].mean()
"""

TRACKER = """
import torch
import torch.nn as nn

class F1Tracker(nn.Module):
    def forward(self, y_pred, y_true):
        tp = torch.sum(torch.logical_and(y_pred, y_true))
        fp = torch.sum(torch.logical_and(torch.logical_xor(y_pred, y_true), y_pred))
        return {"precision": float(tp / (tp + fp + 1e-7))}  # FLOAT
"""


def test_module_whose_forward_requires_ground_truth_is_not_an_export_root():
    # asteroid F1Tracker.forward(y_pred, y_true), a PIT loss's forward(est_targets, targets),
    # mmdet CenterPrior.forward(anchors, gt_instances, mask): a metric, a loss, a training prior
    # (the class names do not say so); an inference export has no ground truth to pass
    assert (line_of(TRACKER, "FLOAT"), "EXL102") not in codes(TRACKER)
    plural = OHEM.replace("target", "targets")
    assert (line_of(plural, "NUMEL"), "EXL124") not in codes(plural)


def test_module_whose_inputs_are_not_named_for_ground_truth_or_that_is_exported_stays_reported():
    # controls: the same forward with a second input not named for ground truth (`seg`), or named
    # `target` (singular: a likelihood head exported as `forward(hidden, target)`, as
    # bench/cases/time_series_student_t.py; mmseg's OhemCrossEntropy stays reported with it), and
    # a file that exports the class itself
    for name in ("seg", "target"):
        renamed = OHEM.replace("target", name)
        assert (line_of(renamed, "NUMEL"), "EXL124") in codes(renamed), name
    exported = TRACKER + """
torch.onnx.export(F1Tracker(), (torch.rand(4) > 0.5, torch.rand(4) > 0.5), "f1.onnx", dynamo=False)
"""
    assert (line_of(exported, "FLOAT"), "EXL102") in codes(exported)


# ---------------------------------------------------------------------------------------
# P-FLAGFWD: a `False`-default flag forwarded by a caller that never receives it
# ---------------------------------------------------------------------------------------

CHOLESKY = """
import torch
import torch.nn as nn

def stable_cholesky(x, upper=False, eps=1e-6):
    return _stable_cholesky(x.double(), upper=upper, eps=eps).float()

def _stable_cholesky(x, upper=False, eps=1e-6):
    if upper:
        return torch.linalg.cholesky(x).mH  # UPPER
    return torch.linalg.cholesky(x)  # LOWER

class GEV(nn.Module):
    def forward(self, a, b):
        c = stable_cholesky(b)
        return torch.linalg.inv(c) @ a
"""


def test_op_under_a_false_flag_only_forwarded_from_an_unset_flag_is_not_reported():
    # asteroid beamforming: `stable_cholesky(b)` never passes `upper`, so `upper=upper` forwards
    # False and `_stable_cholesky`'s `if upper:` never runs on the export path
    got = codes(CHOLESKY)
    assert (line_of(CHOLESKY, "UPPER"), "EXL401") not in got
    assert (line_of(CHOLESKY, "LOWER"), "EXL401") in got


def test_op_under_a_flag_forwarded_from_a_call_that_sets_it_stays_reported():
    # control: forward passes `upper=True`, which `stable_cholesky` forwards
    src = CHOLESKY.replace("c = stable_cholesky(b)", "c = stable_cholesky(b, upper=True)")
    assert (line_of(src, "UPPER"), "EXL401") in codes(src)


def test_entry_flag_forwarded_to_a_submodule_stays_reported():
    # control: a forward's own `False` default (P-ENTRYFLAG: held only because the forward is taken
    # as exported directly) forwarded to a submodule is not forwarded as unset: a real inference
    # option (transformers' `interpolate_pos_encoding=False`) a user's call may set
    src = """
import torch
import torch.nn as nn

class Emb(nn.Module):
    def forward(self, x, interpolate=False):
        if interpolate:
            return torch.linalg.cholesky(x)  # UPPER
        return x

class Vision(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = Emb()

    def forward(self, x, interpolate: bool = False):
        return self.emb(x, interpolate=interpolate)
"""
    assert (line_of(src, "UPPER"), "EXL401") in codes(src)


def test_attribute_of_an_object_parameter_keeps_the_tensor_guess():
    # control (torch_geometric GPSE): `batch.graph_feature`, `batch.y` make `batch` an object, but
    # `batch.batch.max().item()` still sizes a loop over tensor data (reported on main)
    src = """
import torch
import torch.nn as nn

class Head(nn.Module):
    def forward(self, batch):
        pred, true = batch.graph_feature, batch.y_graph
        idx = torch.concat([
            torch.where(batch.batch == i)[0][:-1]
            for i in range(batch.batch.max().item() + 1)  # LOOP
        ])
        return pred[idx], true
"""
    assert (line_of(src, "LOOP"), "EXL103") in codes(src)


def test_attribute_of_an_object_parameter_passed_to_a_helper_keeps_the_tensor_guess():
    # control (torch_geometric GPSE as written): forward hands the graph batch to a helper that
    # sizes its loop with `batch.batch.max().item()` (reported on main); the object's own truth
    # test stays unreported
    src = """
import torch
import torch.nn as nn

class Head(nn.Module):
    def forward(self, batch):
        batch.node_feature = batch.x * 2
        return self._apply_index(batch)

    def _apply_index(self, batch):
        pred, true = batch.graph_feature, batch.y_graph
        if batch:  # TRUTH
            pred = pred + 1
        idx = torch.concat([
            torch.where(batch.batch == i)[0][:-1]
            for i in range(batch.batch.max().item() + 1)  # LOOP
        ])
        return pred[idx], true
"""
    got = codes(src)
    assert (line_of(src, "LOOP"), "EXL103") in got
    assert (line_of(src, "TRUTH"), "EXL101") not in got


# ---------------------------------------------------------------------------------------
# P-MODESTATE: state handed from one mode's call of a forward to the other's (RevIN)
# ---------------------------------------------------------------------------------------

REVIN = """
import torch
import torch.nn as nn

class RevIN(nn.Module):
    def __init__(self, eps=1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x, mode: str):
        if mode == "norm":
            self._get_statistics(x)
            x = (x - self.mean) / self.stdev
        elif mode == "denorm":
            x = x * self.stdev + self.mean
        else:
            raise NotImplementedError
        return x

    def _get_statistics(self, x):
        self.mean = torch.mean(x, dim=1, keepdim=True).detach()  # MEAN
        self.stdev = torch.sqrt(torch.var(x, dim=1, keepdim=True, unbiased=False) + self.eps).detach()  # STD
"""


def test_state_written_by_one_mode_and_read_by_the_other_is_not_reported():
    # neuralforecast RevIN: the parent calls `revin(x, "norm")` then `revin(y, "denorm")` in one
    # forward; the statistics are handed within that call (probes_prec10/g1d: all four pass and match)
    got = codes(REVIN)
    assert (line_of(REVIN, "MEAN"), "EXL203") not in got
    assert (line_of(REVIN, "STD"), "EXL203") not in got


def test_state_read_before_it_is_written_in_one_mode_stays_reported():
    # controls: statistics every mode reads from the previous call (written only after the
    # reads, whatever the mode: a running state), and arms picked by a flag, not a mode string
    after = REVIN.replace('''            self._get_statistics(x)
            x = (x - self.mean)''', '''            x = (x - self.mean)''').replace('''        else:
            raise NotImplementedError
        return x''', '''        else:
            raise NotImplementedError
        self._get_statistics(x)
        return x''')
    assert (line_of(after, "MEAN"), "EXL203") in codes(after)
    flag = REVIN.replace('def forward(self, x, mode: str):', 'def forward(self, x, norm: bool):').replace(
        'if mode == "norm":', 'if norm:').replace('elif mode == "denorm":', 'elif not norm:')
    assert (line_of(flag, "MEAN"), "EXL203") in codes(flag)
