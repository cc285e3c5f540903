"""Rebuilt from https://github.com/facebookresearch/detectron2/issues/5347 "`torch.export` fails
when model uses `ImageList.from_tensors`" (GuardOnDataDependentSymNode "u1 < 0" in
`constant_pad_nd`: the padding is computed from image sizes kept as tensors)

`structures/image_list.py` (re-exported by `structures/__init__.py`) pads a list of images to the
largest size, computed with `torch.stack` of their shapes; the model (`model.py`) calls it.
"""
import torch

from .model import Batcher

model = Batcher()
example_args = ([torch.randn(3, 10, 12), torch.randn(3, 8, 14)],)
