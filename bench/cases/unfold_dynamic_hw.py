"""Rebuilt from https://github.com/pytorch/pytorch/issues/29706
"ONNX can not export Unfold"

`nn.Unfold(kernel_size=3, padding=1)` followed by `.view(n, -1, h, w)`, exported with opset 11 and
dynamic_axes on batch, height and width (see also pytorch/pytorch#81871: "Unsupported: ONNX export
of operator Unfold, input size not accessible").
"""
import torch


class LocalUnfold(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.unfold = torch.nn.Unfold(kernel_size=3, padding=1)

    def forward(self, x):
        n, c, h, w = x.shape
        unfold_x = self.unfold(x).view(n, -1, h, w)
        return unfold_x


example_args = (torch.randn(2, 4, 10, 12),)
dynamic_shapes = {"x": {0: torch.export.Dim("batch", max=16), 2: torch.export.Dim("height", min=3, max=256),
                        3: torch.export.Dim("width", min=3, max=256)}}
opset_version = 11
