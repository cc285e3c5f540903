"""Rebuilt from https://github.com/pytorch/pytorch/issues/134663
"Error in torch.export for torch.ops.aten.chunk for dynamic shape"

`chunk` on the dimension the user declared dynamic (here the batch, which carries both frames of
an image pair as in optical-flow encoders) made torch.export fail with dynamic shapes.
"""
import torch


class PairEncoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fnet = torch.nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, image1, image2):
        fmaps = self.fnet(torch.cat([image1, image2], dim=0))
        fmap1, fmap2 = torch.chunk(fmaps, 2, dim=0)
        corr = (fmap1 * fmap2).sum(dim=1, keepdim=True)
        return corr


batch = torch.export.Dim("batch", min=1, max=16)
example_args = (torch.randn(2, 3, 16, 16), torch.randn(2, 3, 16, 16))
dynamic_shapes = {"image1": {0: batch}, "image2": {0: batch}}
