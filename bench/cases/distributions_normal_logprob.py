"""Rebuilt from https://github.com/pytorch/pytorch/issues/135061
"[export] non-strict export error on torch.distributions.Normal"

An RL actor builds a `torch.distributions.Normal` from its network output inside `forward` and
returns the log-probability of an action. `Distribution.__init__` validates its arguments by
default (`validate_args`): it reduces a constraint mask to a Python bool, which the report hit as
"Could not guard on data-dependent expression Eq(u0, 1)".
"""
import torch
import torch.nn as nn
from torch import distributions as pyd


class StochasticActor(nn.Module):
    def __init__(self, state_dim=4, act_dim=2):
        super().__init__()
        self.fc = nn.Linear(state_dim, 2 * act_dim)

    def forward(self, state, action):
        mu, log_std = self.fc(state).chunk(2, dim=-1)
        dist = pyd.Normal(mu, log_std.clamp(-5, 2).exp())
        return dist.log_prob(action).sum(-1)


example_args = (torch.randn(3, 4), torch.randn(3, 2))
