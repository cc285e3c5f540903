"""Rebuilt from https://github.com/pytorch/pytorch/issues/107948
"Exporting the operator 'aten::linalg_inv' to ONNX opset version 18 is not supported."

The user's model takes image crops and per-crop camera intrinsic matrices (batch declared dynamic
with dynamic_axes, opset 18) and back-projects pixel rays with `torch.linalg.inv(intrinsics)`.
"""
import torch


class RayBackProjection(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.head = torch.nn.Conv2d(3, 1, 3, padding=1)

    def forward(self, crops, intrinsics):
        b, _, h, w = crops.shape
        depth = self.head(crops).relu() + 1.0
        ys, xs = torch.meshgrid(torch.arange(h, dtype=torch.float32),
                                torch.arange(w, dtype=torch.float32), indexing="ij")
        pix = torch.stack([xs, ys, torch.ones_like(xs)], dim=0).reshape(1, 3, -1)
        rays = torch.linalg.inv(intrinsics) @ pix
        return rays * depth.reshape(b, 1, -1)


example_args = (torch.randn(2, 3, 16, 16), torch.eye(3).repeat(2, 1, 1) * 10 + torch.randn(2, 3, 3))
batch = torch.export.Dim("batch", min=1, max=32)
dynamic_shapes = {"crops": {0: batch}, "intrinsics": {0: batch}}
opset_version = 18
