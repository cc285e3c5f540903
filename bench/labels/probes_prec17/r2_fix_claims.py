"""Fix claims of prec17 (tuned on population 8, after sample R was scored). torch 2.13.0+cpu.
Each exporter of each case runs in its own process (`python r2_fix_claims.py [case ...]`)."""
import sys, time, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class EqualKeyCache(nn.Module):
    """torch-geometric-temporal DCRNN (R 31-33): a cache of the expanded edge index, refilled under
    `self._cached_edge_index == None or self._cached_batch_size != b or not torch.equal(...)`."""
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self._cached_edge_index = None
        self._cached_batch_size = None
        self._cached_edge_weight = None
        self._cached_expanded = None

    def forward(self, x, edge_index, edge_weight):
        b = x.size(0)
        if self._cached_edge_index == None or self._cached_batch_size != b \
                or not torch.equal(self._cached_edge_index, edge_index) or not torch.equal(self._cached_edge_weight, edge_weight):
            self._cached_batch_size = b
            self._cached_edge_index = edge_index
            self._cached_edge_weight = edge_weight
            self._cached_expanded = (edge_index * edge_weight).sum(0)
        return self.lin(x) + self._cached_expanded[None, :3].float()


class OnceGuard(nn.Module):
    """imagen-pytorch ImagenTrainer.wrap_unet (R 7): `if hasattr(self, 'one_unet_wrapped'): return`,
    then a one-shot setup of attributes, then `self.one_unet_wrapped = True`."""
    def __init__(self):
        super().__init__()
        self.unet = nn.Linear(3, 3)

    def wrap(self):
        if hasattr(self, "one_unet_wrapped"):
            return
        self.unet_being_trained = self.unet
        self.scale = 2.0
        self.one_unet_wrapped = True

    def forward(self, x):
        self.wrap()
        return self.unet_being_trained(x) * self.scale


class TimingCounter(nn.Module):
    """torchscale MOELayer (R 38): a wall-clock counter accumulated and reset in forward, read only
    into itself and into a metadata dict."""
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.a2a_cpu_time_ms = 0.0
        self.metadata = {}

    def forward(self, x):
        t0 = time.time() * 1000
        y = self.lin(x)
        self.a2a_cpu_time_ms += time.time() * 1000 - t0
        self.metadata["all_to_all_cpu_time_ms"] = self.a2a_cpu_time_ms
        self.a2a_cpu_time_ms = 0.0
        return y


class GumbelNoValidate(nn.Module):
    """EXL210's advice (R 39): the same literal Gumbel with `validate_args=False`."""
    def forward(self, x):
        one = torch.tensor(1.0, device=x.device)
        zero = torch.tensor(0.0, device=x.device)
        return x + torch.distributions.gumbel.Gumbel(zero, one, validate_args=False).mean


class CallCounter(nn.Module):
    """A call counter and a running total fed only by themselves, and a record dict only ever
    subscript-assigned (R-SELFFED)."""
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.calls = 0
        self.seen = 0.0
        self.metadata = {}

    def forward(self, x):
        self.calls += 1
        self.seen = self.seen + 2.5
        self.metadata["seen"] = self.seen
        return self.lin(x)


class CounterRead(CallCounter):
    """control: the counter read into the output."""
    def forward(self, x):
        self.calls += 1
        return self.lin(x) * self.calls


class LazyLayer(nn.Module):
    """darts' TimesFM 3 residual block (sweep removal): `if self._input_dim_set: return`, then new
    submodules built for the input's width, then `self._input_dim_set = True` (a lazy layer)."""
    def __init__(self):
        super().__init__()
        self.hidden_layer = nn.Linear(1, 3)
        self._input_dim_set = False

    def set_input_dims(self, d):
        if self._input_dim_set:
            return
        w = self.hidden_layer.weight
        self.hidden_layer = nn.Linear(d, 3).to(device=w.device, dtype=w.dtype)
        self._input_dim_set = True

    def forward(self, x):
        self.set_input_dims(x.shape[-1])
        return self.hidden_layer(x)


class TensorAccumulator(nn.Module):
    """spikingjelly's LIF example (sweep removal): `self.v_acc += spike`, a tensor total read only
    by training code outside forward."""
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.v_acc = 0

    def forward(self, x):
        spike = (self.lin(x) > 0).float()
        self.v_acc += spike
        return spike


def _warm(m, *args):
    with torch.no_grad():
        m(*args)
    return m


EI = torch.tensor([[0, 1, 2, 3], [1, 2, 3, 0]])
EW = torch.tensor([1, 2, 1, 2])
EI2 = torch.tensor([[3, 1, 0, 2], [2, 0, 1, 3]])
CASES = {
    "e1": lambda: run_all("e1 cache keyed by == None / torch.equal, fresh", EqualKeyCache(), (torch.randn(2, 3), EI, EW), (torch.randn(2, 3), EI2, EW)),
    "e1w": lambda: run_all("e1w the same, warmed", _warm(EqualKeyCache(), torch.randn(2, 3), EI, EW), (torch.randn(2, 3), EI, EW), (torch.randn(2, 3), EI2, EW)),
    "o1": lambda: run_all("o1 one-shot setup behind hasattr(self, flag): return, fresh", OnceGuard(), (torch.randn(2, 3),), (torch.randn(2, 3),)),
    "o1w": lambda: run_all("o1w the same, warmed", _warm(OnceGuard(), torch.randn(2, 3)), (torch.randn(2, 3),), (torch.randn(2, 3),)),
    "v1": lambda: run_all("v1 Gumbel(literal zero, literal one, validate_args=False).mean", GumbelNoValidate(), (torch.randn(2, 3),), (torch.randn(2, 3),)),
    "c1": lambda: run_all("c1 self-fed counter and total, a write-only record, fresh", CallCounter(), (torch.randn(2, 3),), (torch.randn(2, 3),)),
    "c1w": lambda: run_all("c1w the same, warmed", _warm(CallCounter(), torch.randn(2, 3)), (torch.randn(2, 3),), (torch.randn(2, 3),)),
    "c1c": lambda: run_all("c1c control: the counter read into the output", CounterRead(), (torch.randn(2, 3),), (torch.randn(2, 3),)),
    "o2": lambda: run_all("o2 lazy submodule built behind a set-once guard, fresh", LazyLayer(), (torch.randn(2, 4),), (torch.randn(2, 4),)),
    "o2w": lambda: run_all("o2w the same, warmed", _warm(LazyLayer(), torch.randn(2, 4)), (torch.randn(2, 4),), (torch.randn(2, 4),)),
    "c2": lambda: run_all("c2 self-fed tensor accumulator, fresh", TensorAccumulator(), (torch.randn(2, 3),), (torch.randn(2, 3),)),
    "c2w": lambda: run_all("c2w the same, warmed", _warm(TensorAccumulator(), torch.randn(2, 3)), (torch.randn(2, 3),), (torch.randn(2, 3),)),
    "t1": lambda: run_all("t1 timing counter read only into itself and a metadata dict", TimingCounter(), (torch.randn(2, 3),), (torch.randn(2, 3),)),
}

if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[2] in ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"):
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
                print(out if out else f"{case} | {ex}: FAIL process exit {r.returncode} {r.stderr.strip().splitlines()[-1][:200] if r.stderr.strip() else ''}", flush=True)
