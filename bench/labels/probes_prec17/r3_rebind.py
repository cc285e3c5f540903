"""Sample Q 16 (doctr RecognitionPredictor, a "TP (weak)"): a submodule re-bound to itself converted
in forward. Which exporters fail, direct or through a helper? torch 2.13.0+cpu, each exporter of each
case in its own process."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


def to_same(model, x, device, dtype):
    return model.to(device=device, dtype=dtype), x.to(device=device, dtype=dtype)


class ViaHelper(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Linear(4, 4)

    def forward(self, x):
        p = next(self.model.parameters())
        self.model, x = to_same(self.model, x, p.device, p.dtype)
        return self.model(x)


class DirectDtype(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Linear(4, 4)

    def forward(self, x):
        self.model = self.model.to(dtype=x.dtype)
        return self.model(x)


class DirectDevice(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Linear(4, 4)

    def forward(self, x):
        self.model = self.model.to(x.device)
        return self.model(x)


CASES = {
    "q16h": lambda: run_all("q16h helper: self.model, x = to_same(self.model, x, p.device, p.dtype)", ViaHelper(), (torch.randn(2, 4),), (torch.randn(2, 4),)),
    "q16d": lambda: run_all("q16d direct: self.model = self.model.to(dtype=x.dtype)", DirectDtype(), (torch.randn(2, 4),), (torch.randn(2, 4),)),
    "q16v": lambda: run_all("q16v direct: self.model = self.model.to(x.device)", DirectDevice(), (torch.randn(2, 4),), (torch.randn(2, 4),)),
}

if __name__ == "__main__":
    if len(sys.argv) == 3:
        import harness
        orig = harness.run_all
        globals()["run_all"] = lambda *a, **k: orig(*a, exporters=(sys.argv[2],), **k)
        CASES[sys.argv[1]]()
    else:
        import subprocess
        for case in (sys.argv[1:] or CASES):
            for ex in ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"):
                r = subprocess.run([sys.executable, __file__, case, ex], capture_output=True, text=True, timeout=300)
                out = r.stdout.strip()
                print(out if out else f"{case} | {ex}: FAIL process exit {r.returncode}", flush=True)
