"""Rebuilt from https://github.com/NVIDIA/pix2pixHD/issues/210 "Onnx export" (pix2pixHD encodes its
label map with `torch.cuda.FloatTensor(torch.Size(oneHot_size)).zero_()` and `scatter_`; tracing
warned "Converting a tensor to a Python index" at that line)

`encoding.py` holds the one-hot label encoder (here on the CPU: `torch.FloatTensor`); `model.py`
the generator stub; the image size is dynamic.
"""
import torch
from torch.export import Dim

from .model import LabelToImage

model = LabelToImage()
example_args = (torch.randint(0, 5, (1, 1, 16, 16)),)
dynamic_shapes = {"label_map": {2: Dim("h", min=4, max=64), 3: Dim("w", min=4, max=64)}}
