"""Rebuilt from https://github.com/pytorch/pytorch/issues/72057 "[INSTANCENORM] Instance
Normalization ignores track_running_stats=True when exporting to ONNX." (exporting StarGAN's
generator, whose residual blocks use `nn.InstanceNorm2d(dim_out, affine=True,
track_running_stats=True)`: in eval mode PyTorch normalises with the running statistics, the ONNX
model did not; see also https://github.com/pytorch/pytorch/issues/53887)

`blocks.py` holds StarGAN's residual block; `generator.py` a one-block generator; `__init__.py`
stands in for loading a trained checkpoint (non-trivial running statistics) before export.
"""
import torch

from .generator import Generator

model = Generator(conv_dim=8)
torch.manual_seed(0)
for _m in model.modules():
    if isinstance(_m, torch.nn.InstanceNorm2d):
        _m.running_mean.normal_()
        _m.running_var.uniform_(0.5, 2.0)
example_args = (torch.randn(1, 3, 16, 16),)
