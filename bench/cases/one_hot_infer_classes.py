"""Rebuilt from https://github.com/pytorch/pytorch/issues/22534
"RuntimeError: ONNX export failed: Couldn't export operator aten::one_hot"

The report exported `F.one_hot` of integer labels. Here the common form that leaves
`num_classes` out, so the class count is inferred from the data (`labels.max() + 1`): a
bag-of-labels feature built from one-hot rows.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class LabelBag(nn.Module):
    def forward(self, labels):
        onehot = F.one_hot(labels).float()
        return onehot.sum(1)


example_args = (torch.tensor([[0, 1, 4], [2, 3, 1]]),)
