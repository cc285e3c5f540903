import torch


def relu_gram(x):
    return torch.relu(x @ x.T)
