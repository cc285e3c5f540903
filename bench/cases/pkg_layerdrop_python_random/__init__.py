"""Rebuilt from https://github.com/pytorch/pytorch/issues/102794 "[dynamo.export] AssertionError:
Dynamo attempts to add additional input during export for Huggingface Bart" (the encoder's
LayerDrop draws `dropout_probability = random.uniform(0, 1)` before each layer and skips the layer
when `self.training and dropout_probability < self.layerdrop`; exported in eval mode)

`layers.py` holds the encoder layer; `encoder.py` the encoder with LayerDrop.
"""
import torch

from .encoder import Encoder

model = Encoder()
example_args = (torch.randn(2, 6, 16),)
