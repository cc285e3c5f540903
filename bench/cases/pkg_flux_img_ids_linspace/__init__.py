"""Rebuilt from https://github.com/Comfy-Org/ComfyUI/pull/5490 "fix dynamic shape export"
("`torch.onnx.export` interprets `h_len - 1` as constant breaking dynamic shape import": the Flux
model's image position ids are built with `torch.linspace(0, h_len - 1, steps=h_len)` from the
latent's size; the fix replaced it with `torch.arange`)

`ids.py` holds the position-id builder; `model.py` the patch embedding adding the ids' embedding;
the latent's H and W are dynamic (even).
"""
import torch
from torch.export import Dim

from .model import FluxPatchEmbed

model = FluxPatchEmbed()
example_args = (torch.randn(1, 4, 8, 12),)
_h = Dim("_h", min=2, max=32)
_w = Dim("_w", min=2, max=32)
dynamic_shapes = {"x": {2: 2 * _h, 3: 2 * _w}}
