import numpy as np, torch, torch.nn as nn
from torch.export import Dim
class IfInt(nn.Module):
    def forward(s, x):
        if int(np.prod(x.shape[1:])) > 10:
            return x * 2
        return x
class Grp(nn.Module):
    def forward(s, att, pix):
        height, width = pix.shape[2:]
        scale = (height * width // att.shape[2]) ** 0.5
        fh = int(np.round(height / scale)); fw = att.shape[2] // fh
        return att.reshape(att.shape[0], att.shape[1], fh, fw)
def ex(name, m, args, strict, ds=None):
    try:
        torch.export.export(m, args, strict=strict, dynamic_shapes=ds); print(name, "strict" if strict else "nonstrict", "PASS")
    except Exception as e:
        print(name, "strict" if strict else "nonstrict", "FAIL", type(e).__name__, str(e).strip().splitlines()[0][:200])
ex("if-int-np.prod", IfInt(), (torch.randn(2, 3, 4),), True)
ex("if-int-np.prod", IfInt(), (torch.randn(2, 3, 4),), False)
H = Dim("H", min=16, max=64)
for st in (True, False):
    ex("groupvit-dynHW", Grp(), (torch.randn(1, 2, 16), torch.randn(1, 3, 32, 32)), st, ds=({}, {2: H, 3: H}))
