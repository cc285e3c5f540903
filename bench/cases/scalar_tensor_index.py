"""Rebuilt from https://github.com/pytorch/pytorch/issues/182345
"`torch.export` fails when indexing with a scalar tensor"

Indexing a tensor with a 0-d integer tensor (`operand[indices]` with `indices = torch.tensor(0)`)
failed in torch.export. The pattern is everywhere in diffusion samplers: a noise-schedule buffer
looked up with the timestep, passed as a 0-d tensor.
"""
import torch
import torch.nn as nn


class NoiseScheduleStep(nn.Module):
    def __init__(self, steps=50):
        super().__init__()
        self.register_buffer("alphas_cumprod", torch.linspace(0.999, 0.01, steps))
        self.eps_model = nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, sample, timestep):
        alpha = self.alphas_cumprod[timestep]
        eps = self.eps_model(sample)
        return (sample - (1 - alpha).sqrt() * eps) / alpha.sqrt()


example_args = (torch.randn(1, 3, 8, 8), torch.tensor(10))
