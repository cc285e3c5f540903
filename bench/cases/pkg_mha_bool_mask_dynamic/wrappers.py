import torch


class MHAWrapper(torch.nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.mha1 = torch.nn.MultiheadAttention(dim, heads, batch_first=False)

    def forward(self, x, mask):
        return self.mha1(x, x, x, attn_mask=mask, need_weights=False)[0]
