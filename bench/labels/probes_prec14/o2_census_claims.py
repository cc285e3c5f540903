"""Census claims of the fifth population (prec14, main@6f7706b) not obvious from the code. torch 2.13.0+cpu."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class RevFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, fm):
        with torch.no_grad():
            x1, x2 = torch.chunk(x, 2, dim=1)
            y1 = x1 + fm(x2)
            y = torch.cat((y1, x2), dim=1)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, g):
        return g, None


class RevBlock(nn.Module):
    """pytorchcv revnet ReversibleBlock.forward: `y = self.rev_funct(x, ...)`, then `x.data.set_()`."""
    def __init__(self):
        super().__init__()
        self.fm = nn.Linear(2, 2)

    def forward(self, x):
        y = RevFn.apply(x, self.fm)
        x.data.set_()
        return y


class MelTo(nn.Module):
    """coqui-tts TorchMelSpectrogram.forward: `self.mel_stft = self.mel_stft.to(inp.device)`, a
    submodule re-bound to itself (Module.to returns self)."""
    def __init__(self):
        super().__init__()
        self.mel_stft = nn.Linear(4, 4)

    def forward(self, inp):
        self.mel_stft = self.mel_stft.to(inp.device)
        return torch.log(torch.clamp(self.mel_stft(inp), min=1e-5))


class Binarize(torch.autograd.Function):
    """pytorchcv wrn1bit Binarize: `math.sqrt(2.0 / (x.shape[1] * x.shape[2] * x.shape[3])) * x.sign()`."""
    @staticmethod
    def forward(ctx, x):
        import math
        return math.sqrt(2.0 / (x.shape[1] * x.shape[2] * x.shape[3])) * x.sign()

    @staticmethod
    def backward(ctx, dy):
        return dy


class Conv1bit(nn.Conv2d):
    def forward(self, x):
        return nn.functional.conv2d(x, Binarize.apply(self.weight), None, 1, 1)


run_all("c9 x.data.set_() of the input after an autograd.Function (pytorchcv revnet)", RevBlock(), (torch.randn(2, 4),),
        (torch.randn(2, 4),))
run_all("c140 self.m = self.m.to(x.device) in forward (coqui tortoise mel)", MelTo(), (torch.rand(2, 4),), (torch.rand(2, 4),))
run_all("c17 autograd.Function of math on a parameter's sizes (pytorchcv wrn1bit)", Conv1bit(3, 4, 3), (torch.randn(1, 3, 6, 6),),
        (torch.randn(1, 3, 6, 6),))
