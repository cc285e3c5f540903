"""Rebuilt from https://github.com/pytorch/pytorch/issues/118740
"`torch.onnx.dynamo_export` fails because of `torch._dynamo.exc.Unsupported: TorchDynamo
purposely graph breaks on RNN, GRU, LSTMs`"

The recurrent encoder (`encoder.py`) runs an `nn.GRU` and keeps the last hidden state; the
model (`model.py`) projects it. Static shapes, as in the report.
"""
import torch

from .model import SpeakerNet

model = SpeakerNet()
example_args = (torch.randn(1, 12, 6),)
