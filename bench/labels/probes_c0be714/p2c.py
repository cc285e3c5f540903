import numpy as np, torch, torch.nn as nn
from harness import run_all
class A(nn.Module):
    def forward(s, x):
        n = int(np.prod(x.shape[1:]))
        return x.reshape(-1, n)
class B(nn.Module):
    def forward(s, x):
        return torch.reshape(x, [-1, np.prod(x.shape[1:])])
class C(nn.Module):
    def forward(s, x):
        return x.new_zeros(np.prod(x.shape[1:]))
class D(nn.Module):
    def forward(s, x):
        h = int(np.round(x.shape[2] / 2.0))
        return x[:, :, :h]
ex = ("export-strict", "export-nonstrict")
for n, m in [("int-np.prod", A()), ("list-np.prod", B()), ("zeros-np.prod", C()), ("slice-np.round", D())]:
    run_all(n, m, (torch.randn(2, 3, 4),), (torch.randn(2, 3, 4),), exporters=ex)
