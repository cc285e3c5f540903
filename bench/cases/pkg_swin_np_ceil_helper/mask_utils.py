import numpy as np
import torch


def padded_mask(H, W, window_size, device):
    Hp = int(np.ceil(H / window_size)) * window_size
    Wp = int(np.ceil(W / window_size)) * window_size
    img_mask = torch.zeros((1, Hp, Wp, 1), device=device)
    img_mask[:, :H, :W, :] = 1.0
    return img_mask
