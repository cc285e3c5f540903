"""Rebuilt from https://github.com/huggingface/optimum/pull/2025
"Add ONNX export support for DETA model"

Deformable attention splits the flattened multi-level features by iterating over the
`spatial_shapes` tensor (`for level, (height, width) in enumerate(spatial_shapes)`); the ONNX
export printed "TracerWarning: Iterating over a tensor might cause the trace to be incorrect".
"""
import torch


class LevelSplit(torch.nn.Module):
    def forward(self, value, spatial_shapes):
        outs = []
        start = 0
        for level, (height, width) in enumerate(spatial_shapes):
            n = height * width
            v = value[:, start:start + n].transpose(1, 2).reshape(value.shape[0], -1, height, width)
            outs.append(v.mean(dim=(2, 3)))
            start = start + n
        return torch.stack(outs, dim=1)


example_args = (torch.randn(2, 16 + 4, 3), torch.tensor([[4, 4], [2, 2]]))
