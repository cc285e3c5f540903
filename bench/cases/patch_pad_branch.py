"""Rebuilt from https://github.com/pytorch/pytorch/issues/84692
"Error when trying to export MONAI model to ONNX"

MONAI's PatchEmbed pads the input when a spatial size is not a multiple of the patch size; the
ONNX export printed "TracerWarning: Converting a tensor to a Python boolean" at
`if w % self.patch_size[2] != 0:` and the following lines.
"""
import torch
import torch.nn.functional as F


class PatchEmbed(torch.nn.Module):
    def __init__(self, patch_size=(4, 4), in_chans=2, embed_dim=8):
        super().__init__()
        self.patch_size = patch_size
        self.proj = torch.nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x):
        _, _, h, w = x.size()
        if w % self.patch_size[1] != 0:
            x = F.pad(x, (0, self.patch_size[1] - w % self.patch_size[1]))
        if h % self.patch_size[0] != 0:
            x = F.pad(x, (0, 0, 0, self.patch_size[0] - h % self.patch_size[0]))
        return self.proj(x)


example_args = (torch.randn(1, 2, 16, 16),)
dynamic_shapes = {"x": {2: torch.export.Dim("h", min=4, max=512), 3: torch.export.Dim("w", min=4, max=512)}}
