"""Rebuilt from https://github.com/pytorch/pytorch/issues/160059
"torch.jit.script fails with 'undefined value' error when module has @torch.compiler.disable decorator"

The detector's post-processing module lives in its own file (`postprocess.py`) with
`@torch.compiler.disable` on its `forward`; the detector (`detector.py`) builds it in `__init__`
and calls it at the end of `forward`.
"""
import torch

from .detector import Detector

model = Detector()
example_args = (torch.randn(2, 5, 8),)
