"""Rebuilt from https://github.com/pytorch/pytorch/issues/180202 "`torch.export` of `sdpa` fails with
unbacked batch dim due to guard" (as in idefics3: the real images are selected with a boolean mask,
`x = x[bool_mask]`, the batch becomes data-dependent, and `F.scaled_dot_product_attention` with an
attention mask of that batch fails to export on CPU on a guard on the batch size)

`attention.py` holds the masked attention over the selected images; `vision.py` the vision
encoder selecting the real images before it.
"""
import torch

from .vision import VisionEncoder

model = VisionEncoder()
example_args = (torch.randn(3, 8, 32), torch.tensor([True, False, True]))
