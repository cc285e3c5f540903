"""Rebuilt from https://github.com/huggingface/pytorch-image-models/pull/2394 "Wrap torch
checkpoint() fn to default use_reentrant flag to False" (timm blocks call `checkpoint(blk, x)`
when `grad_checkpointing` is set; exported models are built with it off)

The stage (`stage.py`) runs its blocks through `torch.utils.checkpoint.checkpoint` when its
`grad_checkpointing` flag is set; the network (`net.py`) builds the stages with the flag False.
Looks risky; nothing is checkpointed on the export path.
"""
import torch

from .net import TinyNet

model = TinyNet()
example_args = (torch.randn(2, 5, 8),)
