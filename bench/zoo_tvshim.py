"""Make ``import torchvision`` work with a CPU-only torch (used by the zoo scoreboard's worker only).

torchvision's PyPI wheel is CUDA-built: its ``_C.so`` needs ``libc10_cuda.so``, fails to load
with torch+cpu, and ``import torchvision`` then dies in ``_meta_registrations.py`` with
``operator torchvision::nms does not exist``. timm and transformers import torchvision too.

``install()`` must run before torchvision is imported. It

1. defines the ``torchvision::`` operator schemas with ``torch.library`` (the schema strings
   are copied from the wheel's own ``_C.so``, where torchvision's C++ source registers them);
2. gives CPU kernels, in pure torch, to the two ops the models measured here call:
   ``nms`` (greedy non-maximum suppression, the algorithm of torchvision's CPU kernel) and
   ``roi_align`` (torchvision's own pure-Python ``_roi_align``, uncompiled); every other
   op gets a kernel that raises, so a model that needs one fails loudly;
3. makes torchvision's loader treat ``_C.so`` as loaded (``torch.ops.load_library`` is a
   no-op for that one file) so ``_has_ops()`` is True and the models call
   ``torch.ops.torchvision.*`` exactly as with a working wheel.

What the exporters see is therefore the real custom ops with torchvision's own fake
(meta) kernels and ONNX symbolics; only the eager CPU kernels are substitutes.
"""

from __future__ import annotations

import os

SCHEMAS = [
    "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, "
    "int sampling_ratio, bool aligned) -> Tensor",
    "_roi_align_backward(Tensor grad, Tensor rois, float spatial_scale, SymInt pooled_height, "
    "SymInt pooled_width, SymInt batch_size, SymInt channels, SymInt height, SymInt width, int sampling_ratio, "
    "bool aligned) -> Tensor",
    "qroi_align(Tensor input, Tensor rois, float input_scale, int input_zero_point, float rois_scale, "
    "int rois_zero_point, float spatial_scale, SymInt pooled_height, SymInt pooled_width, int sampling_ratio, "
    "bool aligned) -> Tensor",
    "ps_roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, "
    "int sampling_ratio) -> (Tensor, Tensor)",
    "_ps_roi_align_backward(Tensor grad, Tensor rois, Tensor channel_mapping, float spatial_scale, "
    "SymInt pooled_height, SymInt pooled_width, int sampling_ratio, SymInt batch_size, SymInt channels, "
    "SymInt height, SymInt width) -> Tensor",
    "roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width) "
    "-> (Tensor, Tensor)",
    "_roi_pool_backward(Tensor grad, Tensor rois, Tensor argmax, float spatial_scale, SymInt pooled_height, "
    "SymInt pooled_width, SymInt batch_size, SymInt channels, SymInt height, SymInt width) -> Tensor",
    "ps_roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width) "
    "-> (Tensor, Tensor)",
    "_ps_roi_pool_backward(Tensor grad, Tensor rois, Tensor channel_mapping, float spatial_scale, "
    "SymInt pooled_height, SymInt pooled_width, SymInt batch_size, SymInt channels, SymInt height, "
    "SymInt width) -> Tensor",
    "deform_conv2d(Tensor input, Tensor weight, Tensor offset, Tensor mask, Tensor bias, SymInt stride_h, "
    "SymInt stride_w, SymInt pad_h, SymInt pad_w, SymInt dilation_h, SymInt dilation_w, SymInt groups, "
    "SymInt offset_groups, bool use_mask) -> Tensor",
    "_deform_conv2d_backward(Tensor grad, Tensor input, Tensor weight, Tensor offset, Tensor mask, Tensor bias, "
    "SymInt stride_h, SymInt stride_w, SymInt pad_h, SymInt pad_w, SymInt dilation_h, SymInt dilation_w, "
    "SymInt groups, SymInt offset_groups, bool use_mask) -> (Tensor, Tensor, Tensor, Tensor, Tensor)",
    "box_iou_rotated(Tensor boxes1, Tensor boxes2) -> Tensor",
    "_cuda_version() -> int",
]
#: ops given a working CPU kernel here (reported in the scoreboard's output)
SUBSTITUTED = ("torchvision::nms", "torchvision::roi_align")

_LIB = None


def _nms_cpu(dets, scores, iou_threshold):
    import torch

    if dets.numel() == 0:
        return torch.empty((0,), dtype=torch.long)
    x1, y1, x2, y2 = dets.unbind(1)
    areas = (x2 - x1) * (y2 - y1)
    order = scores.argsort(descending=True)
    suppressed = torch.zeros(dets.shape[0], dtype=torch.bool)
    keep = []
    for i in order.tolist():
        if suppressed[i]:
            continue
        keep.append(i)
        xx1 = torch.maximum(x1[i], x1)
        yy1 = torch.maximum(y1[i], y1)
        xx2 = torch.minimum(x2[i], x2)
        yy2 = torch.minimum(y2[i], y2)
        inter = (xx2 - xx1).clamp(min=0) * (yy2 - yy1).clamp(min=0)
        iou = inter / (areas[i] + areas - inter)
        suppressed |= iou > iou_threshold
    return torch.tensor(keep, dtype=torch.long)


def _roi_align_cpu(input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned):
    import importlib

    ra = importlib.import_module("torchvision.ops.roi_align")

    fn = getattr(ra._roi_align, "__wrapped__", ra._roi_align)  # torchvision's pure-torch version, uncompiled
    return fn(input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned)


def _missing(name):
    def kernel(*args, **kwargs):
        raise NotImplementedError(f"torchvision::{name} has no CPU kernel in the zoo scoreboard's shim")

    return kernel


def install() -> None:
    global _LIB
    if _LIB is not None:
        return
    import torch

    lib = torch.library.Library("torchvision", "DEF")
    for schema in SCHEMAS:
        lib.define(schema)
    kernels = {"nms": _nms_cpu, "roi_align": _roi_align_cpu, "_cuda_version": lambda: -1}
    for schema in SCHEMAS:
        name = schema.split("(")[0]
        lib.impl(name, kernels.get(name) or _missing(name), "CompositeExplicitAutograd"
                 if name == "_cuda_version" else "CPU")
    _LIB = lib
    real_load = torch.ops.load_library

    def load_library(path):
        if os.path.basename(str(path)).startswith("_C.") and "torchvision" in str(path):
            return None  # its schemas and CPU kernels are defined above
        return real_load(path)

    torch.ops.load_library = load_library
