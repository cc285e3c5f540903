"""Rebuilt from https://github.com/aeolusguan/BridgeDepth/issues/10 "make_onnx"
(TracerWarnings "Converting a tensor to a Python boolean" at `blocks.py: if pad_r > 0 or
pad_b > 0:` while exporting the stereo model to ONNX)

The window attention block (`blocks.py`) pads its input up to a multiple of the window size and
branches on whether any padding is needed; the stereo network (`stereo.py`) stacks those blocks
in an `nn.ModuleList`. Exported with dynamic H/W.
"""
import torch

from .stereo import StereoRefiner

model = StereoRefiner()
example_args = (torch.randn(1, 4, 12, 20),)
dynamic_shapes = ({2: torch.export.Dim("h", min=4, max=128), 3: torch.export.Dim("w", min=4, max=128)},)
