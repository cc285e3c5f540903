import torch.nn.functional as F


def sdpa_attention_forward(query, key, value, causal=True):
    return F.scaled_dot_product_attention(query, key, value, is_causal=causal, enable_gqa=True)
