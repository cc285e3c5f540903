"""Rebuilt from https://github.com/NVIDIA/TensorRT/issues/4184 "How to convert own model tensorrt"
(Depth-Anything's DINOv2 backbone resizes its position embedding with `F.interpolate(...,
scale_factor=(w0 / sqrt(N), h0 / sqrt(N)), mode="bicubic")` and asserts `int(w0) ==
patch_pos_embed.shape[-2]`; the ONNX trace warned "Converting a tensor to a Python integer" there)

`pos_embed.py` holds the position-embedding resize; `model.py` the patch-embedding backbone stub;
the image size is dynamic (multiples of the patch size).
"""
import torch
from torch.export import Dim

from .model import TinyViT

model = TinyViT()
example_args = (torch.randn(1, 3, 48, 64),)
dynamic_shapes = {"x": {2: Dim("gh", min=2, max=12) * 8, 3: Dim("gw", min=2, max=12) * 8}}
opset_version = 17
