import torch
import torch.nn.functional as F


def find_extrema_3d(data, enhance_factor=10.0):
    B, E, T = data.shape
    data_flat = data.reshape(-1, T)
    diff = torch.diff(data_flat, dim=1)
    peaks = ((diff[:, :-1] > 0) & (diff[:, 1:] <= 0)).float()
    troughs = ((diff[:, :-1] < 0) & (diff[:, 1:] >= 0)).float()
    extrema = F.pad(peaks - troughs, (1, 1)) * enhance_factor
    return extrema.reshape(B, E, T)
