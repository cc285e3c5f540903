"""Claims behind prec15's changes that the code alone does not settle (torch 2.13.0+cpu); each
exporter of each probe in its own process."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class NoneCompare(nn.Module):
    """nnaudio get_cqt_complex2: `if wcos == None or wsin == None:` with `wcos` a buffer tensor."""
    def __init__(self):
        super().__init__()
        self.register_buffer("wcos", torch.randn(3))

    def forward(self, x):
        if self.wcos == None:  # noqa: E711
            return x * 2
        return x * self.wcos


class FeatureDropoutFunction(torch.autograd.function.InplaceFunction):
    """stanza: a @classmethod forward reading ctx flags it set itself."""
    @classmethod
    def forward(cls, ctx, input, p=0.5, train=False, inplace=False):
        ctx.p, ctx.train, ctx.inplace = p, train, inplace
        output = input if ctx.inplace else input.clone()
        if ctx.p > 0 and ctx.train:
            output = output * 0
        return output

    @staticmethod
    def backward(ctx, g):
        return g, None, None, None


class ClsCtx(nn.Module):
    def forward(self, x):
        return FeatureDropoutFunction.apply(x, 0.5, False, False) + 1


CASES = {
    "none_compare": lambda: run_all("tensor == None branch (nnaudio)", NoneCompare(), (torch.randn(3),), (torch.randn(3),)),
    "cls_ctx": lambda: run_all("classmethod Function forward, ctx flags (stanza)", ClsCtx(), (torch.randn(2, 3),), (torch.randn(2, 3),)),
}

if __name__ == "__main__":
    if len(sys.argv) > 2:
        import harness
        orig = harness.run_all
        globals()["run_all"] = lambda *a, **k: orig(*a, exporters=(sys.argv[2],), **k)
        CASES[sys.argv[1]]()
    else:
        import subprocess
        for case in (sys.argv[1:] or CASES):
            for ex in ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"):
                r = subprocess.run([sys.executable, __file__, case, ex], capture_output=True, text=True, timeout=300)
                out = r.stdout.strip().splitlines()
                print(out[-1] if out else f"{case} | {ex}: FAIL process exit {r.returncode} (no result printed)", flush=True)
