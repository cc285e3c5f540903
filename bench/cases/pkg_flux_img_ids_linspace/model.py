import torch.nn as nn

from .ids import make_img_ids


class FluxPatchEmbed(nn.Module):
    def __init__(self, in_channels=4, hidden=16, patch_size=2):
        super().__init__()
        self.patch_size = patch_size
        self.img_in = nn.Linear(in_channels * patch_size * patch_size, hidden)
        self.pe_embedder = nn.Linear(3, hidden)

    def forward(self, x):
        bs, c, h, w = x.shape
        p = self.patch_size
        img = x.reshape(bs, c, h // p, p, w // p, p).permute(0, 2, 4, 1, 3, 5).reshape(bs, (h // p) * (w // p), c * p * p)
        img_ids = make_img_ids(x, p)
        return self.img_in(img) + self.pe_embedder(img_ids)
