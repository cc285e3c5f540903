"""Rebuilt from https://github.com/open-mmlab/mmsegmentation/issues/903 "TracerWarning while
Pytorch2ONNX conversion" (UNet exported to ONNX; the up-sampling blocks resize the decoder
feature to the skip connection's size)

The up block (`up_block.py`) resizes with a helper in `ops.py` to the skip feature's spatial size
and concatenates; the UNet (`unet.py`) stacks encoder and decoder. Exported with dynamic H/W.
Looks risky (sizes read from tensors into an op); believed to export fine.
"""
import torch

from .unet import TinyUNet

model = TinyUNet()
example_args = (torch.randn(1, 3, 20, 28),)
dynamic_shapes = ({2: torch.export.Dim("h", min=8, max=128), 3: torch.export.Dim("w", min=8, max=128)},)
