import torch.nn.functional as F


def sdpa_attention(q, k, v, heads):
    b, n, d = q.shape
    q = q.view(b, n, heads, d // heads).transpose(1, 2)
    k = k.view(b, n, heads, d // heads).transpose(1, 2)
    v = v.view(b, n, heads, d // heads).transpose(1, 2)
    out = F.scaled_dot_product_attention(q, k, v)
    return out.transpose(1, 2).reshape(b, n, d)
