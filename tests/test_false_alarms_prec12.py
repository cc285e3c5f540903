"""Issue 10 (branch prec12): false-alarm classes of the third fresh zoo population (espnet2/asr,
darts, torchtune, mmyolo, basicsr, tsai, effdet) and of the training-time modules left from
prec11, one reproducer each, with the controls that must keep firing."""

from __future__ import annotations

from conftest import codes_at as codes
from conftest import line_of

# ---------------------------------------------------------------------------------------
# P-LOGONLY: a tensor turned into Python only to build a log message
# ---------------------------------------------------------------------------------------

DECODER = """
import logging
import torch
import torch.nn as nn

log = logging.getLogger(__name__)

class GreedyDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 5)
        self.logger = log

    def ids2text(self, ids):
        return " ".join(str(i) for i in ids)

    def forward(self, enc):
        probs = self.proj(enc)
        ids = probs.argmax(-1)
        logging.info("ctc:{}".format(self.ids2text(ids[0].tolist())))  # LOGGED
        best = probs.max().item()  # NAMED
        self.logger.debug(f"best {best}")
        print("mean", probs.mean().item())  # PRINTED
        return probs
"""


def test_value_read_only_by_a_log_call_is_not_reported():
    # espnet MaskCTCInference 292/319: `logging.info("ctc:{}".format(self.ids2text(y_hat[y_idx].tolist())))`
    found = codes(DECODER)
    for tag in ("LOGGED", "NAMED", "PRINTED"):
        assert (line_of(DECODER, tag), "EXL102") not in found, tag


def test_value_that_also_reaches_an_output_stays_reported():
    # controls: the same value also scales the output; a call named like a log method on a
    # call result (`get_logger().info`) or on another object (`self.stats.info`) is no log call
    used = DECODER.replace("return probs", "return probs * best")
    assert (line_of(used, "NAMED"), "EXL102") in codes(used)
    other = DECODER.replace('self.logger.debug(f"best {best}")', 'self.proj.info(best)')
    assert (line_of(other, "NAMED"), "EXL102") in codes(other)
    called = DECODER.replace('self.logger.debug(f"best {best}")', 'logging.getLogger().debug(best)\n        '
                                                                   'torch.full((2,), best)')
    assert (line_of(called, "NAMED"), "EXL102") in codes(called)


# ---------------------------------------------------------------------------------------
# P-WEIGHTCONST: `.item()` of the module's own buffer / parameter, never written after __init__
# ---------------------------------------------------------------------------------------

WEIGHTS = """
import torch
import torch.nn as nn

class Thresholded(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.register_buffer("_curr_scale", torch.tensor(2))
        self.concept_weights = nn.Parameter(torch.ones(n))
        self.paddings = torch.div(torch.arange(n) * 8, 2, rounding_mode="floor").int()

    def forward(self, x, idx):
        scale = self._curr_scale.item()  # BUFFER
        out = []
        for i in range(len(self.concept_weights)):
            thr = self.concept_weights[i].item()  # PARAM
            p = self.paddings[i].item()  # TENSORATTR
            out.append(torch.where(x > thr, x * scale, x)[..., p:])
        w = self.concept_weights[idx.argmax()].item()  # DATAINDEX
        return torch.cat(out, -1) * w
"""


def test_item_of_an_own_buffer_or_parameter_is_not_reported_for_legacy():
    # mmagic pggan 149 (`self._curr_scale_int.item()`), clip_wrapper 103
    # (`self.special_care_embeds_weights[concept_idx].item()`), tsai HydraPlus 89
    found = codes(WEIGHTS)
    for tag in ("BUFFER", "PARAM", "TENSORATTR"):
        assert (line_of(WEIGHTS, tag), "EXL102") not in found, tag


def test_item_of_a_weight_written_in_forward_or_indexed_by_data_stays_reported():
    # controls: an index computed from the input; a buffer the forward advances in place
    # (x-transformers `self.step.add_(1)`, probe l2c: legacy does not match) or reassigns
    # (espnet S4 `self.L = 2 * self.L`)
    assert (line_of(WEIGHTS, "DATAINDEX"), "EXL102") in codes(WEIGHTS)
    stepped = WEIGHTS.replace("        scale = self._curr_scale.item()  # BUFFER",
                              "        self._curr_scale.add_(1)\n        scale = self._curr_scale.item()  # BUFFER")
    assert (line_of(stepped, "BUFFER"), "EXL102") in codes(stepped)
    grown = WEIGHTS + """
    def grow(self):
        self._curr_scale = 2 * self._curr_scale
"""
    assert (line_of(grown, "BUFFER"), "EXL102") in codes(grown)


# ---------------------------------------------------------------------------------------
# P-GTREAD: a module whose forward reads ground truth off its inputs is a training-time module
# ---------------------------------------------------------------------------------------

BATCH_AUG = """
import random
import torch
import torch.nn as nn
import torch.nn.functional as F

class BatchRandomResize(nn.Module):
    def __init__(self, sizes=(320, 640)):
        super().__init__()
        self.sizes = sizes
        self._input_size = None

    def forward(self, inputs, data_samples):
        h, w = inputs.shape[-2:]
        if self._input_size is None:
            self._input_size = (random.choice(self.sizes),) * 2
        scale_y = self._input_size[0] / h
        inputs = F.interpolate(inputs, size=self._input_size, mode="bilinear")
        for data_sample in data_samples:
            data_sample.gt_instances.bboxes[..., 1::2] = data_sample.gt_instances.bboxes[..., 1::2] * scale_y
        n = int(inputs.sum().item())  # ITEM
        return inputs[:, :n], data_samples
"""

ASSIGNER = """
import torch
import torch.nn as nn

class BatchAssigner(nn.Module):
    def __init__(self, topk=10):
        super().__init__()
        self.topk = topk

    def forward(self, pred_results, batch_targets_normed, batch_input_shape):
        cost = pred_results.sum(-1)
        ks = torch.clamp(batch_targets_normed.sum(1).int(), min=1)
        _, pos = torch.topk(cost[0], k=ks[0].item())  # TOPK
        return pos
"""


def test_module_reading_ground_truth_off_its_inputs_is_not_an_export_root():
    # mmdet / mmpose `BatchSyncRandomResize` (data_sample.gt_instances / gt_instance_labels),
    # mmyolo `BatchYOLOv7Assigner.forward(pred_results, batch_targets_normed, ...)`
    assert (line_of(BATCH_AUG, "ITEM"), "EXL102") not in codes(BATCH_AUG)
    assert (line_of(ASSIGNER, "TOPK"), "EXL104") not in codes(ASSIGNER)


def test_module_that_only_writes_ground_truth_or_counts_targets_stays_reported():
    # controls: a model packing its output into `sample.gt_img` (mmagic PGGAN's forward), a
    # `gt_` field of `self`, a size parameter `num_targets`, and the class exported by the file
    packing = BATCH_AUG.replace(
        "            data_sample.gt_instances.bboxes[..., 1::2] = data_sample.gt_instances.bboxes[..., 1::2] * scale_y",
        "            data_sample.gt_img = inputs")
    assert (line_of(packing, "ITEM"), "EXL102") in codes(packing)
    on_self = BATCH_AUG.replace("data_sample.gt_instances.bboxes[..., 1::2] * scale_y", "self.gt_scale")
    on_self = on_self.replace("data_sample.gt_instances.bboxes[..., 1::2] =", "data_sample.bboxes =")
    assert (line_of(on_self, "ITEM"), "EXL102") in codes(on_self)
    sized = ASSIGNER.replace("batch_targets_normed", "num_targets").replace(
        "ks = torch.clamp(num_targets.sum(1).int(), min=1)", "ks = torch.clamp(cost.sum(1).int(), min=num_targets)")
    assert (line_of(sized, "TOPK"), "EXL104") in codes(sized)
    detector = """
import torch
import torch.nn as nn

class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(4, 4)

    def forward(self, inputs, data_samples, mode="tensor"):
        feats = self.head(inputs)
        if mode == "loss":
            return (feats - data_samples[0].gt_instances.bboxes).pow(2).mean()
        if self.training:
            return feats.sum() - data_samples[0].gt_sem_seg.sum()
        n = int(feats.sum().item())  # ITEM
        return feats[:n]
"""
    # a model whose forward reads ground truth only on its loss / training path stays a root
    assert (line_of(detector, "ITEM"), "EXL102") in codes(detector)
    exported = ASSIGNER + """
p = torch.randn(2, 8, 4)
t = torch.rand(2, 3)
torch.onnx.export(BatchAssigner(), (p, t, (640, 640)), "assigner.onnx", dynamo=False)
"""
    assert (line_of(exported, "TOPK"), "EXL104") in codes(exported)


# ---------------------------------------------------------------------------------------
# P-CACHEPAIR: a cache hit returning the cached attributes themselves, as a tuple
# ---------------------------------------------------------------------------------------

FFT_NODES = """
import numpy as np
import torch
import torch.nn as nn

class Kernel(nn.Module):
    def _omega(self, L, cache=True):
        if cache and hasattr(self, "omega") and self.omega.size(-1) == L // 2 + 1:
            return self.omega, self.z
        omega = torch.tensor(np.exp(-2j * np.pi / L), dtype=torch.cfloat)
        omega = omega ** torch.arange(0, L // 2 + 1)
        z = 2 * (1 - omega) / (1 + omega)
        if cache:
            self.omega = omega  # OMEGA
            self.z = z  # Z
        return omega, z

    def forward(self, x):
        omega, z = self._omega(x.size(-1))
        return x * omega.real.sum() + z.imag.sum()
"""


def test_attributes_refilled_after_a_tuple_cache_hit_are_not_state():
    # espnet S4 `_omega` 681/682 (probe l4: all four exporters pass and match, fresh or warm)
    found = codes(FFT_NODES)
    assert (line_of(FFT_NODES, "OMEGA"), "EXL203") not in found
    assert (line_of(FFT_NODES, "Z"), "EXL203") not in found


def test_a_hit_returning_a_value_computed_from_the_cache_stays_reported():
    # control: the hit returns something computed from the carried value (`self.omega * self.scale`),
    # and a tuple holding an attribute the test does not read
    computed = FFT_NODES.replace("return self.omega, self.z", "return self.omega * 2, self.z")
    assert (line_of(computed, "Z"), "EXL203") in codes(computed)
    untested = FFT_NODES.replace('hasattr(self, "omega") and self.omega.size(-1) == L // 2 + 1',
                                 "L > 0").replace("if cache and L > 0:", "if cache and L > 0 and self.ready:")
    assert (line_of(untested, "Z"), "EXL203") in codes(untested)
