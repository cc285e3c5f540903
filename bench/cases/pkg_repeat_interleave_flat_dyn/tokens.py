import torch.nn as nn


def duplicate(x, n=2):
    return x.repeat_interleave(n)


class TokenDoubler(nn.Module):
    def forward(self, x):
        return duplicate(x) * 2
