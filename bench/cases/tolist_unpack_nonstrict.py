"""Rebuilt from https://github.com/pytorch/pytorch/issues/119210
"Non-strict export does not support tolist: RuntimeError: .tolist() is not supported for tensor
subclasses, got FunctionalTensor"

`a, b = x.tolist()` then `x + a + b`, exported with `strict=False`. Here the two values are a
scale and an offset read from a small calibration tensor input.
"""
import torch


class M(torch.nn.Module):
    def forward(self, x, calib):
        scale, offset = calib.tolist()
        return x * scale + offset


example_args = (torch.randn(2, 4), torch.tensor([1.0, 2.0]))
