"""Issue 10 (branch prec13): false-alarm classes of the fourth fresh zoo population (compressai,
facenet-pytorch, facexlib, lightning-bolts, mmdet3d, pytorch-tabnet, pytorch-tabular,
pytorch-widedeep, rotary-embedding-torch, vocos, ...), one reproducer each, with the controls
that must keep firing. The exporters' behaviour behind each is measured in
bench/labels/probes_prec13/."""

from __future__ import annotations

from conftest import codes_at as codes
from conftest import line_of

# ---------------------------------------------------------------------------------------
# P-INITPARAM: an in-place `nn.init.*_` returns the tensor it was given
# ---------------------------------------------------------------------------------------

INIT = """
import math
import torch
import torch.nn as nn
from torch.nn import init

class Embeds(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.bias = nn.init.kaiming_uniform_(nn.Parameter(torch.Tensor(n, d)), a=math.sqrt(5))  # BIAS
        self.E = init.xavier_uniform_(nn.Parameter(torch.zeros(n, d)))  # E
        self.lat = torch.nn.init.trunc_normal_(nn.Parameter(torch.empty(n, d)))  # LAT
        self.plain = nn.init.normal_(torch.empty(n, d))  # PLAIN

    def forward(self, x):
        return x * self.bias + self.E + self.lat + self.plain
"""


def test_parameter_returned_by_an_in_place_init_is_registered():
    # pytorch-widedeep embeddings_layers.py:443, _attention_layers.py:219/221, tab_perceiver.py:294
    found = codes(INIT)
    for tag in ("BIAS", "E", "LAT"):
        assert (line_of(INIT, tag), "EXL303") not in found, tag


def test_plain_tensor_returned_by_an_in_place_init_stays_reported():
    # control: the init fills a plain tensor, which stays unregistered
    assert (line_of(INIT, "PLAIN"), "EXL303") in codes(INIT)


# ---------------------------------------------------------------------------------------
# P-SIZEARITH: torch arithmetic on Python sizes only holds a size, not tensor data
# ---------------------------------------------------------------------------------------

ANCHORS = """
import torch
import torch.nn as nn

class DetectionLayer(nn.Module):
    def __init__(self, num_classes, prior_shapes):
        super().__init__()
        self.num_classes = num_classes
        self.prior_shapes = prior_shapes

    def forward(self, x):
        batch_size, num_features, height, width = x.shape
        num_attrs = self.num_classes + 5
        anchors_per_cell = int(torch.div(num_features, num_attrs, rounding_mode="floor"))  # DIV
        if anchors_per_cell != len(self.prior_shapes):  # IF
            raise ValueError("anchors")
        x = x.permute(0, 2, 3, 1).view(batch_size, height, width, anchors_per_cell, num_attrs)  # VIEW
        n = int(torch.div(x.sum(), num_attrs, rounding_mode="floor"))  # DATA
        return x.reshape(batch_size, height * width * anchors_per_cell, num_attrs), x.new_zeros(n)  # NEW
"""


def test_int_of_torch_arithmetic_on_sizes_is_a_size():
    # lightning-bolts yolo/layers.py:112-144: the anchors per cell from the channel count
    # (measured n13: non-strict and legacy pass and match)
    found = codes(ANCHORS)
    assert (line_of(ANCHORS, "DIV"), "EXL102") not in found
    assert (line_of(ANCHORS, "IF"), "EXL101") not in found
    assert (line_of(ANCHORS, "VIEW"), "EXL104") not in found


def test_int_of_torch_arithmetic_on_tensor_data_stays_reported():
    # control: the same division of a reduction of the input is tensor data
    found = codes(ANCHORS)
    assert (line_of(ANCHORS, "DATA"), "EXL102") in found
    assert (line_of(ANCHORS, "NEW"), "EXL104") in found


# ---------------------------------------------------------------------------------------
# P-DEVGUARD: `.cuda()` under a test that the module's weights already are on a GPU
# ---------------------------------------------------------------------------------------

SWAV = """
import torch
import torch.nn as nn

class MultiCrop(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3)

    def forward(self, x):
        if "cuda" in str(self.conv1.weight.device):
            x = x.cuda(non_blocking=True)  # GUARDED
        else:
            y = x.cuda()  # ELSE
        if "cuda" in str(x.dtype):
            x = x.cuda()  # DTYPE
        z = x.cuda()  # BARE
        return self.conv1(x)
"""


def test_cuda_under_a_weight_device_test_is_not_reported():
    # lightning-bolts swav_resnet.py:327 (measured n17: all four pass and match on CPU)
    assert (line_of(SWAV, "GUARDED"), "EXL301") not in codes(SWAV)


def test_cuda_outside_the_device_test_stays_reported():
    # controls: the `else` arm, a test on something other than a device, an unguarded call
    found = codes(SWAV)
    for tag in ("ELSE", "DTYPE", "BARE"):
        assert (line_of(SWAV, tag), "EXL301") in found, tag


# ---------------------------------------------------------------------------------------
# P-CACHESLICE: a cache hit returning a detached slice of the cache buffer
# ---------------------------------------------------------------------------------------

ROTARY = """
import torch
import torch.nn as nn
from torch import einsum

def exists(v):
    return v is not None

class Rotary(nn.Module):
    def __init__(self, dim, max_len=64):
        super().__init__()
        self.freqs = nn.Parameter(torch.randn(dim // 2), requires_grad=False)
        self.register_buffer("cached_freqs", torch.zeros(max_len, dim), persistent=False)
        self.cached_freqs_seq_len = 0
        self.max_len = max_len

    def forward(self, t, seq_len=None, offset=0):
        should_cache = exists(seq_len) and (offset + seq_len) <= self.max_len
        if should_cache and exists(self.cached_freqs) and (offset + seq_len) <= self.cached_freqs_seq_len:
            return self.cached_freqs[offset:(offset + seq_len)].detach()
        freqs = einsum("..., f -> ... f", t.type(self.freqs.dtype), self.freqs)
        freqs = freqs.repeat_interleave(2, dim=-1)
        if should_cache and offset == 0:
            self.cached_freqs[:seq_len] = freqs.detach()
            self.cached_freqs_seq_len = seq_len  # LEN
        return freqs

class Scaled(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.register_buffer("last", torch.zeros(dim))
        self.seen = 0

    def forward(self, x):
        if self.seen > 0:
            return (self.last * 2).detach()
        self.last.copy_(x.mean(0))
        self.seen = x.shape[0]  # SEEN
        return x
"""


def test_attribute_refilled_after_a_hit_returning_a_slice_of_the_cache_is_not_state():
    # rotary-embedding-torch rotary_embedding_torch.py:348 (measured n32)
    assert (line_of(ROTARY, "LEN"), "EXL203") not in codes(ROTARY)


def test_hit_returning_a_value_computed_from_the_cache_stays_reported():
    # control: the hit returns a new value computed from the carried buffer, not the cache itself
    assert (line_of(ROTARY, "SEEN"), "EXL203") in codes(ROTARY)


# ---------------------------------------------------------------------------------------
# P-FLAGARG: an unannotated forward argument read only as a truth test is a Python flag
# ---------------------------------------------------------------------------------------

MATTING = """
import torch
import torch.nn as nn
from torch import Tensor

class LRBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Conv2d(3, 8, 3, padding=1)
        self.head = nn.Conv2d(8, 1, 1)

    def forward(self, img, inference):
        lr8x = self.enc(img)
        pred = None
        if not inference:  # CHILD
            pred = torch.sigmoid(self.head(lr8x))
        return pred, lr8x

class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Conv2d(8, 1, 1)

    def forward(self, x, found):
        if found:  # GATE
            x = self.head(x)
        return x

class Scale(nn.Module):
    def forward(self, x, s):
        if s:  # USED
            x = x * s
        return x

class Where(nn.Module):
    def forward(self, x, keep):
        if not keep:  # WHERE
            return x
        return torch.where(keep, x, torch.zeros_like(x))

class Fill(nn.Module):
    def forward(self, x, pad):
        if pad:  # FILL
            return x.masked_fill(pad, 0.0)
        return x

class Count(nn.Module):
    def forward(self, x, n):
        if n:  # COUNT
            return x[:int(n)]
        return x

class Typed(nn.Module):
    def forward(self, x, flag: Tensor):
        if flag:  # TYPED
            x = x + 1
        return x

class Matting(nn.Module):
    def __init__(self):
        super().__init__()
        self.lr_branch = LRBranch()
        self.gate = Gate()

    def forward(self, img, inference):
        pred, lr8x = self.lr_branch(img, inference)
        return self.gate(lr8x, (lr8x > 0).any()), pred
"""


def test_forward_argument_read_only_as_a_truth_test_is_a_flag():
    # facexlib matting/modnet.py:123/178: `forward(self, img, inference)` handed on by MODNet
    # (measured n10: all four pass and match with a Python bool)
    assert (line_of(MATTING, "CHILD"), "EXL101") not in codes(MATTING)


def test_truth_test_of_a_computed_or_used_or_typed_tensor_stays_reported():
    # controls: a mask computed by the parent, an argument also computed with (arithmetic, a
    # torch function, a tensor method, `int()`), an annotated one
    found = codes(MATTING)
    for tag in ("GATE", "USED", "WHERE", "FILL", "COUNT", "TYPED"):
        assert (line_of(MATTING, tag), "EXL101") in found, tag
    assert (line_of(MATTING, "return x[:int(n)]"), "EXL104") in found


HANDED = """
import torch
import torch.nn as nn

class Net(nn.Module):
    def forward(self, img, m):
        return self._apply_mask(img, m)

    def _apply_mask(self, x, s):
        if s:  # HANDED
            x = x * s
        return x
"""


def test_argument_handed_to_a_method_that_also_computes_with_it_stays_reported():
    # control of the hand-on path: the method truth-tests its parameter and multiplies by it, so
    # it is no flag there (each use of the callee's parameter is read, not only the first walk's)
    assert (line_of(HANDED, "HANDED"), "EXL101") in codes(HANDED)


# ---------------------------------------------------------------------------------------
# P-ARRAYRANK: the rank and dtype of an array taken out of a tensor are fixed
# ---------------------------------------------------------------------------------------

VOXEL = """
import numpy as np
import torch
import torch.nn as nn

class Voxelize(nn.Module):
    def ravel_hash(self, x: np.ndarray) -> np.ndarray:
        assert x.ndim == 2, x.shape  # RANK
        assert x.shape[0] > 0  # ROWS
        assert (x >= 0).all()  # VALUES
        return x

    def forward(self, coors):
        c = torch.round(coors).int()
        low = float(np.finfo(torch.tensor(0, dtype=coors.dtype).numpy().dtype).min)  # FINFO
        return torch.from_numpy(self.ravel_hash(c.cpu().numpy())) + low
"""


def test_rank_of_an_array_taken_out_of_a_tensor_is_fixed():
    # mmdet3d data_preprocessor.py:503 (`assert x.ndim == 2` in ravel_hash)
    assert (line_of(VOXEL, "RANK"), "EXL101") not in codes(VOXEL)


def test_values_of_an_array_taken_out_of_a_tensor_stay_reported():
    # controls: a test on the array's values is still data (and the .numpy() stays reported);
    # numpy.finfo of the dtype of an array taken out of a tensor (funasr/espnet branchformer:
    # strict, non-strict and dynamo fail, bench/labels/probes_prec11 j1a)
    found = codes(VOXEL)
    assert (line_of(VOXEL, "VALUES"), "EXL101") in found
    assert (line_of(VOXEL, "return torch.from_numpy"), "EXL201") in found
    assert sum(1 for ln, c in found if ln == line_of(VOXEL, "FINFO") and c == "EXL201") == 2  # finfo, .numpy()


# ---------------------------------------------------------------------------------------
# P-STRDEFAULT: an arm on a string-default parameter that no export-path call passes
# ---------------------------------------------------------------------------------------

FPS = """
import numpy as np
import torch
import torch.nn as nn

def farthest_point_sample(xyz, npoint, _method="yanx27"):
    if _method.startswith("fpsample"):
        idx = np.stack([np.arange(npoint) for pc in xyz.cpu().numpy()])  # DEAD
        return torch.from_numpy(idx)
    if _method == "numpy":
        return torch.from_numpy(np.arange(npoint) + xyz.sum().item())  # DEADEQ
    if _method == "yanx27":
        return torch.argsort(xyz[..., 0], dim=-1)[:, :npoint] + int(xyz.max())  # LIVE
    raise ValueError(_method)

class SetAbstraction(nn.Module):
    def forward(self, xyz):
        return farthest_point_sample(xyz, 4)

class Explicit(nn.Module):
    def forward(self, xyz):
        return sample(xyz, 4, _method="fpsample.bucket")

def sample(xyz, npoint, _method="yanx27"):
    if _method.startswith("fpsample"):
        return torch.from_numpy(np.stack([np.arange(npoint) for pc in xyz.cpu().numpy()]))  # PASSED
    return xyz

class FromConfig(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg

    def forward(self, xyz):
        return sample_kw(xyz, **self.cfg)

def sample_kw(xyz, npoint=4, _method="yanx27"):
    if _method.startswith("fpsample"):
        return torch.from_numpy(np.stack([np.arange(npoint) for pc in xyz.cpu().numpy()]))  # KWARGS
    return xyz
"""


def test_arm_on_a_string_default_no_call_passes_is_not_on_the_export_path():
    # compressai pointnet2.py:155 (`_method="pointops"` default, both callers omit it)
    found = codes(FPS)
    assert (line_of(FPS, "DEAD"), "EXL201") not in found
    assert (line_of(FPS, "DEADEQ"), "EXL102") not in found


def test_arm_the_default_selects_or_a_call_passes_stays_reported():
    # controls: the arm the default selects; the arm a call passes the value for, by name or
    # possibly through `**kwargs`
    found = codes(FPS)
    assert (line_of(FPS, "LIVE"), "EXL102") in found
    assert (line_of(FPS, "PASSED"), "EXL201") in found
    assert (line_of(FPS, "KWARGS"), "EXL201") in found
