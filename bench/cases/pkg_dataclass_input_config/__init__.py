"""Rebuilt from https://github.com/pytorch/pytorch/issues/147400 "torch.export doesn't provide useful
error message when someone uses unrecognized dataclass as input" (a forward taking a plain
`@dataclass` of ints next to its tensor; `torch.export.export(..., strict=False)` fails with
"Encountered an unsupported object of type <class MyStaticInput>")

`config.py` holds the dataclass; `head.py` the model reading its fields.
"""
import torch

from .config import ScaleConfig
from .head import ScaledHead

model = ScaledHead()
example_args = (torch.randn(2, 4), ScaleConfig(1, 2))
