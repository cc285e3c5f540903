"""Rebuilt from https://github.com/open-edge-platform/geti/issues/3770
"Export error after training"

The detector's export path builds per-image metadata with `[meta_info] * len(inputs)` and
`int(inputs.shape[2])`; the ONNX export printed "TracerWarning: Using len to get tensor shape might
cause the trace to be incorrect" there. Here a per-image loop over `len(inputs)` with a dynamic batch.
"""
import torch


class PerImageHead(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.head = torch.nn.Conv2d(3, 4, 1)

    def forward(self, inputs):
        shape = (int(inputs.shape[2]), int(inputs.shape[3]))
        outs = []
        for i in range(len(inputs)):
            outs.append(self.head(inputs[i:i + 1]).flatten(2).mean(-1) * shape[0])
        return torch.cat(outs, dim=0)


example_args = (torch.randn(2, 3, 8, 8),)
dynamic_shapes = {"inputs": {0: torch.export.Dim("batch", min=1, max=32)}}
