import torch.nn as nn
import torch.nn.functional as F


class GQAAttentionBase(nn.Module):
    def attend(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
