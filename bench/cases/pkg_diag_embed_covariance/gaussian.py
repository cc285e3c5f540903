import torch


def diagonal_covariance(log_var, eps=1e-4):
    var = log_var.exp() + eps
    return torch.diag_embed(var)
