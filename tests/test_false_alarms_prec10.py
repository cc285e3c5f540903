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
    def __init__(self, mask_flag=True):
        super().__init__()
        self.mask_flag = mask_flag

    def forward(self, queries, keys, values, attn_mask):
        return F.scaled_dot_product_attention(
            queries, keys, values,
            attn_mask=(attn_mask.mask[:, 0] if (self.mask_flag and attn_mask) else None),  # COND
        )
"""


def test_parameter_read_with_an_attribute_no_tensor_has_is_not_tensor_data():
    # neuralforecast FullAttention: `attn_mask` is a mask object (`TriangularCausalMask`, read as
    # `attn_mask.mask`); `self.mask_flag and attn_mask` tests a Python object's truth, not tensor
    # data (a tensor has no `.mask`: AttributeError)
    assert (line_of(MASKED_ATTN, "COND"), "EXL101") not in codes(MASKED_ATTN)


def test_parameter_read_with_tensor_attributes_stays_tensor_data():
    # control: the same test on a parameter read only as a tensor (`.shape`, `.T`, `.dtype`,
    # methods): a data-dependent branch, reported
    src = MASKED_ATTN.replace("attn_mask.mask[:, 0] if", "attn_mask.T.to(queries.dtype) if")
    assert (line_of(src, "COND"), "EXL101") in codes(src)


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
