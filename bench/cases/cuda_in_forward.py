"""Rebuilt from https://github.com/pytorch/pytorch/issues/72175
"Torch.onnx.export, RuntimeError: Expected all tensors to be on the same device, but found at
least two devices, cuda:0 and cpu!"

Tensors moved with `.cuda()` inside forward while the export ran with the model and inputs on
the CPU; the maintainers' advice was to move nothing to CUDA for the export.
"""
import torch


class Decoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(16, 8)

    def forward(self, tokens):
        positions = torch.arange(tokens.shape[1]).cuda()
        return self.embed(tokens) + self.embed(positions).unsqueeze(0)


example_args = (torch.tensor([[1, 2, 3, 4]]),)
