"""Rebuilt from https://github.com/pytorch/pytorch/issues/26127
"[ONNX] export with dynamic_axes should generate Shape node for intermediate tensor .shape calls
even without jit.script"

The user exported with dynamic_axes, yet the height and width turned into tensors with
`torch.tensor(height)` were baked into the ONNX graph as constants of the example size.
"""
import torch


class XYGrid(torch.nn.Module):
    def forward(self, xy):
        height, width = xy.shape[2], xy.shape[3]
        height, width = torch.tensor(height), torch.tensor(width)
        i = torch.arange(xy.shape[3], dtype=torch.float32) / width
        j = torch.arange(xy.shape[2], dtype=torch.float32) / height
        grid = torch.stack(torch.meshgrid(j, i, indexing="ij"), dim=0)
        return xy + grid.unsqueeze(0)


example_args = (torch.randn(1, 2, 6, 8),)
dynamic_shapes = {"xy": {2: torch.export.Dim("h", min=2, max=512), 3: torch.export.Dim("w", min=2, max=512)}}
