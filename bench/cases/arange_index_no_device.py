"""Rebuilt from https://github.com/pytorch/pytorch/issues/102947
"torch.onnx.export error ------RuntimeError: Expected all tensors to be on the same device, but found
at least two devices, cpu and cuda:0! (when checking argument for argument index in method wrapper_"

Index tensors built with `torch.arange(...)` and no `device=` inside forward, used with
`index_select` on the input: the user's export on a CUDA model failed on the device mix.
"""
import torch


class Reverse(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(6, 6)

    def forward(self, x):
        idx = torch.arange(x.shape[1] - 1, -1, -1)
        return self.fc(x.index_select(1, idx))


example_args = (torch.randn(3, 6),)
dynamic_shapes = {"x": {0: torch.export.Dim("batch", min=1, max=64)}}
