"""Rebuilt from https://github.com/pytorch/pytorch/issues/74032 "ONNX export of torch.histc"
("Exporting the operator histc to ONNX opset version 14 is not supported"; the model named in
the thread is kornia's histogram equalisation, `equalize_clahe`, which bins each tile with
`torch.histc`)

`enhance.py` holds the per-image histogram helper; `net.py` the module normalising with it.
"""
import torch

from .net import EqualizeNet

model = EqualizeNet()
example_args = (torch.rand(1, 1, 16, 16),)
opset_version = 14
