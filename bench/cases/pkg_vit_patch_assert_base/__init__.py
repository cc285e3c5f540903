"""Rebuilt from https://github.com/YvanYin/Metric3D/issues/127 "Problems in saving the entire
model and executing onnx" (TracerWarnings at `ViT_DINO_reg.py: if pad_h == self.patch_size:` and
`assert H % patch_H == 0, f"Input image height {H} is not a multiple of patch height {patch_H}"`)

The patch embedding (`layers/patch_embed.py`, re-exported by `layers/__init__.py`) checks in a
base-class method that the image is a multiple of the patch size; the backbone (`backbone.py`)
subclasses it and calls the inherited check from its `forward`. Exported with dynamic H/W.
"""
import torch

from .backbone import DinoBackbone

model = DinoBackbone()
example_args = (torch.randn(1, 3, 28, 42),)
dynamic_shapes = ({2: torch.export.Dim("h", min=14, max=140), 3: torch.export.Dim("w", min=14, max=140)},)
