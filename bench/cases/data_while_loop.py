"""Rebuilt from https://github.com/pytorch/pytorch/issues/93579
"torchdynamo.export doesn't work with data-dependent control flow"

A Python `while` whose condition reads tensor data (rescale until the values are small):
dynamo export could not capture it as one graph.
"""
import torch


class Rescale(torch.nn.Module):
    def forward(self, x):
        steps = 0
        while x.abs().max() > 1.0:
            x = x / 2
            steps += 1
        return x, torch.tensor(steps)


example_args = (torch.tensor([[0.5, -3.0], [2.0, 0.25]]),)
