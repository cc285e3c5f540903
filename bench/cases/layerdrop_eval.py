"""Rebuilt from https://github.com/huggingface/transformers/issues/12376
"Issue in layer-drop implementation in TensorFlow models in graph mode"

transformers' encoders skip layers at random in training (LayerDrop): `dropout_probability =
torch.rand([])` then `if dropout_probability < self.layerdrop: continue` under `self.training`.
The report is about the TF graph-mode port; here the PyTorch form, exported in eval mode.
Believed fine: the random branch never runs in eval.
"""
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, n=3, layerdrop=0.1):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(4, 4) for _ in range(n))
        self.layerdrop = layerdrop

    def forward(self, x):
        for layer in self.layers:
            if self.training:
                dropout_probability = torch.rand([])
                if dropout_probability < self.layerdrop:
                    continue
            x = torch.relu(layer(x))
        return x


example_args = (torch.randn(2, 4),)
