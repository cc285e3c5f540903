"""Rebuilt from https://github.com/huggingface/transformers/issues/8442 "Models fine-tuned with
gradient checkpointing (=True) fails to export to ONXX" (BERT built with
`gradient_checkpointing=True` in its config)

The encoder (`encoder.py`) runs each layer through `torch.utils.checkpoint.checkpoint` when the
config's `gradient_checkpointing` is set; the config class lives in `configuration.py` and the
model is built from `Config(gradient_checkpointing=True)`.
"""
import torch

from .configuration import Config
from .encoder import Encoder

model = Encoder(Config(gradient_checkpointing=True))
example_args = (torch.randn(2, 5, 8),)
