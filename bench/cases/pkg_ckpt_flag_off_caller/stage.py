import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        return x + self.fc(x).relu()


class Stage(nn.Module):
    def __init__(self, dim, depth, grad_checkpointing=True):
        super().__init__()
        self.grad_checkpointing = grad_checkpointing
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])

    def forward(self, x):
        for blk in self.blocks:
            if self.grad_checkpointing:
                x = checkpoint(blk, x, use_reentrant=False)
            else:
                x = blk(x)
        return x
