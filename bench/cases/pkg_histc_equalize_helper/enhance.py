import torch


def image_histogram(img, bins=32):
    hist = torch.histc(img.flatten(), bins=bins, min=0.0, max=1.0)
    return hist / hist.sum()


def equalize(img, bins=32):
    hist = image_histogram(img, bins)
    cdf = torch.cumsum(hist, 0)
    idx = (img * (bins - 1)).long().clamp(0, bins - 1)
    return cdf[idx]
