"""Rebuilt from https://github.com/Project-MONAI/MONAI/issues/7560
"make BoxSelector exportable to ONNX"

MONAI's detector calls a box selector in `box_selector.py` that keeps the candidates above a
score threshold and branches on what was kept; the ONNX export printed TracerWarnings in that
helper ("Converting a tensor to a Python boolean").
"""
import torch

from .detector import RetinaHead

model = RetinaHead()
example_args = (torch.randn(1, 8, 16),)
