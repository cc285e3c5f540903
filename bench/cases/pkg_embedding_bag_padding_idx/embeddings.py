import torch.nn as nn


class ResidueEmbedding(nn.Module):
    def __init__(self, num_residues=10, dim=8):
        super().__init__()
        self.bag = nn.EmbeddingBag(num_residues, dim, mode="sum", padding_idx=0)

    def forward(self, tokens, offsets):
        return self.bag(tokens, offsets)
