"""Rebuilt from https://github.com/NVlabs/FoundationStereo/issues/215 "Export ONNX model
bug(320x192)" (TracerWarning "Converting a tensor to a Python boolean" at
`core/submodule.py: if x.shape != rem.shape:`)

The up-and-concatenate block of `submodule.py` resizes the upsampled features when their shape
differs from the skip connection's; the feature network (`extractor.py`) uses it after a
stride-2 stage. Exported with dynamic H/W.
"""
import torch

from .extractor import FeatureNet

model = FeatureNet()
example_args = (torch.randn(1, 4, 16, 16),)
dynamic_shapes = ({2: torch.export.Dim("h", min=8, max=128), 3: torch.export.Dim("w", min=8, max=128)},)
