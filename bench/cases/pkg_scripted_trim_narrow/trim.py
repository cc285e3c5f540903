import torch


@torch.jit.script
def trim_2d(t, sized):
    return t.narrow(2, 0, sized.size(2)).narrow(3, 0, sized.size(3))
