"""Rebuilt from https://github.com/pytorch/pytorch/issues/126549
"Error: Exporting the operator 'aten::searchsorted' to ONNX opset version 17"

A normalizing flow (zuko's NSF, monotonic rational-quadratic splines) locates each input's spline
bin with `torch.searchsorted(knots, x)`; the ONNX export at opset 17 failed on searchsorted
(also pytorch/pytorch#151648 at opset 20).
"""
import torch


class SplineBin(torch.nn.Module):
    def __init__(self, bins=8):
        super().__init__()
        self.widths = torch.nn.Parameter(torch.randn(bins))
        self.heights = torch.nn.Parameter(torch.randn(bins))

    def forward(self, x):
        w = torch.softmax(self.widths, dim=0)
        h = torch.softmax(self.heights, dim=0)
        knots_x = torch.cat([torch.zeros(1), torch.cumsum(w, 0)]) * 2 - 1
        knots_y = torch.cat([torch.zeros(1), torch.cumsum(h, 0)]) * 2 - 1
        idx = torch.searchsorted(knots_x, x.contiguous()).clamp(1, w.shape[0]) - 1
        x0, y0 = knots_x[idx], knots_y[idx]
        slope = h[idx] / w[idx]
        return y0 + slope * (x - x0)


example_args = (torch.rand(4, 2) * 1.8 - 0.9,)
opset_version = 17
