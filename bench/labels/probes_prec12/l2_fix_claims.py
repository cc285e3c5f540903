"""Claims behind prec12's changes, measured before encoding them. torch 2.13.0+cpu."""
import logging, sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all

log = logging.getLogger("probe")


class LoggedToList(nn.Module):
    """espnet MaskCTCInference 292/319: `logging.info("ctc:{}".format(ids2text(y[idx].tolist())))`:
    the Python list only builds a log message."""
    def forward(self, x):
        y = x.argmax(-1)
        logging.info("ids:{}".format(y.tolist()))
        n = x.sum().item()
        log.info(f"sum {n}")
        print("max", x.max().item(), file=sys.stderr)
        return x * 2


class BufferThreshold(nn.Module):
    """mmagic pggan 149/153, clip_wrapper 103/116: `.item()` of a registered buffer / parameter of
    the module, written only in __init__."""
    def __init__(self):
        super().__init__()
        self.register_buffer("thr", torch.tensor(0.25))
        self.w = nn.Parameter(torch.tensor([0.5, 1.5]))
        self.pads = torch.tensor([1, 2]).int()  # tsai HydraPlus: a tensor attribute from constants

    def forward(self, x):
        t = self.thr.item()
        s = self.w[1].item()
        p = self.pads[1].item()
        y = torch.nn.functional.pad(x, (p, p))
        return torch.where(y > t, y * s, y)


class CountedBuffer(nn.Module):
    """control: a buffer the forward advances in place (x-transformers up_wrapper `self.step.add_(1)`),
    then read with `.item()`."""
    def __init__(self):
        super().__init__()
        self.register_buffer("step", torch.tensor(0))

    def forward(self, x):
        self.step.add_(1)
        return x * self.step.item()


x = torch.randn(2, 5)
run_all("l2a .tolist()/.item() read only by logging calls and print", LoggedToList(), (x,), (x + 3,),
        exporters=("onnx-legacy",))
run_all("l2b .item() of a registered buffer, a parameter and a constant tensor attribute", BufferThreshold(),
        (x,), (x * 3,), exporters=("onnx-legacy",))
run_all("l2c control: .item() of a buffer advanced in forward", CountedBuffer(), (x,), (x,), exporters=("onnx-legacy",))
