"""Claims of sample S (prec18, seed 1810, main@b23a5bd) that are not obvious from the code. torch 2.13.0+cpu.
Each case runs in its own process (`python s1_sample_claims.py [case ...]`). No GPU here: `meta` stands
in for the other device, as in prec16 q3 and prec17 r27."""
import io, sys, torch, torch.nn as nn, torch.nn.functional as F
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


def _other_device(name, make, x):
    """The model is moved to `meta`, the input is there; then each torch.export program, moved."""
    m = make()
    try:
        m.to("meta")
        print(f"{name} | eager, model moved to meta: PASS", m(x.to("meta")).device)
    except Exception as e:
        print(f"{name} | eager, model moved to meta: FAIL {type(e).__name__}: {str(e).splitlines()[0][:120]}")
    for strict in (True, False):
        try:
            ep = torch.export.export(make(), (x,), strict=strict)
            print(f"{name} | export-{'strict' if strict else 'nonstrict'}, program moved to meta: PASS",
                  ep.module().to("meta")(x.to("meta")).device)
        except Exception as e:
            print(f"{name} | export-{'strict' if strict else 'nonstrict'}, program moved to meta: FAIL "
                  f"{type(e).__name__}: {str(e).splitlines()[0][:120]}")


class IndexRows(nn.Module):
    """deepfilternet MfWf (S 7): rows of unregistered index tensors as subscript indices, read and written."""
    def __init__(self, n=4):
        super().__init__()
        self.triu_idcs = torch.triu_indices(n, n, 1)
        self.tril_idcs = torch.empty_like(self.triu_idcs)
        self.tril_idcs[0] = self.triu_idcs[1]
        self.tril_idcs[1] = self.triu_idcs[0]

    def forward(self, r):
        r = r.clone()
        t = r[:, self.tril_idcs[0], self.tril_idcs[1]]
        r[:, self.triu_idcs[0], self.triu_idcs[1]] = t * 2
        return r


class IndexRowsArith(nn.Module):
    """control: a row of the same tensor in arithmetic with the input."""
    def __init__(self, n=4):
        super().__init__()
        self.triu_idcs = torch.triu_indices(n, n, 1)

    def forward(self, r):
        return r[:, 0, : self.triu_idcs.shape[1]] + self.triu_idcs[0]


class PatchMerging(nn.Module):
    """groundingdino Swin PatchMerging (S 33): H, W handed down from `x.size(2)`, `x.size(3)`."""
    def __init__(self, dim):
        super().__init__()
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)

    def forward(self, x, H, W):
        B, L, C = x.shape
        assert L == H * W, "input feature has wrong size"
        x = x.view(B, H, W, C)
        pad_input = (H % 2 == 1) or (W % 2 == 1)
        if pad_input:
            x = F.pad(x, (0, 0, 0, W % 2, 0, H % 2))
        x0 = x[:, 0::2, 0::2, :]
        x1 = x[:, 1::2, 0::2, :]
        x2 = x[:, 0::2, 1::2, :]
        x3 = x[:, 1::2, 1::2, :]
        return self.reduction(torch.cat([x0, x1, x2, x3], -1).view(B, -1, 4 * C))


class TinySwin(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, 4, 4)
        self.down = PatchMerging(dim)

    def forward(self, x):
        x = self.patch(x)
        Wh, Ww = x.size(2), x.size(3)
        return self.down(x.flatten(2).transpose(1, 2), Wh, Ww)


class GroupedGRULayer(nn.Module):
    """deepfilternet GroupedGRULayer (S 2, 3): one-layer GRUs given `dropout` through **kwargs."""
    def __init__(self, input_size=4, hidden_size=8, groups=2, dropout=0.0):
        super().__init__()
        kwargs = {"bias": True, "batch_first": True, "dropout": dropout, "bidirectional": False}
        self.input_size = input_size // groups
        self.layers = nn.ModuleList((nn.GRU(input_size // groups, hidden_size // groups, **kwargs) for _ in range(groups)))

    def forward(self, x):
        outs = [layer(x[..., i * self.input_size:(i + 1) * self.input_size])[0] for i, layer in enumerate(self.layers)]
        return torch.cat(outs, dim=-1)


class GRUWithDropout(nn.Module):
    """control: the same with a Dropout on the output."""
    def __init__(self):
        super().__init__()
        self.inner = GroupedGRULayer()
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.inner(x))


def train_mode_export(make, tag):
    """The module is exported in training mode (never eval()'d); is the export's output the
    inference output (eval mode, eager)?"""
    torch.manual_seed(0)
    m = make()
    x = torch.randn(2, 5, 4)
    ref = m.eval()(x)
    m.train()
    for dynamo in (True, False):
        try:
            if dynamo:
                prog = torch.onnx.export(m, (x,), dynamo=True, verbose=False)
                out = prog(x)
                got = out[0] if isinstance(out, (tuple, list)) else out
                got = got if isinstance(got, torch.Tensor) else torch.from_numpy(got)
            else:
                buf = io.BytesIO()
                torch.onnx.export(m, (x,), buf, dynamo=False)
                import onnxruntime as ort
                sess = ort.InferenceSession(buf.getvalue())
                got = torch.from_numpy(sess.run(None, {sess.get_inputs()[0].name: x.numpy()})[0])
            print(f"{tag} | {'onnx-dynamo' if dynamo else 'onnx-legacy'}: PASS matches-inference={torch.allclose(got, ref, atol=1e-5)}")
        except Exception as e:
            print(f"{tag} | {'onnx-dynamo' if dynamo else 'onnx-legacy'}: FAIL {type(e).__name__}: {str(e).splitlines()[0][:150]}")
    for strict in (True, False):
        try:
            ep = torch.export.export(m, (x,), strict=strict)
            got = ep.module()(x)
            print(f"{tag} | export-{'strict' if strict else 'nonstrict'}: PASS matches-inference={torch.allclose(got, ref, atol=1e-5)}")
        except Exception as e:
            print(f"{tag} | export-{'strict' if strict else 'nonstrict'}: FAIL {type(e).__name__}: {str(e).splitlines()[0][:150]}")


CASES = {
    "s33": lambda: run_all("s33 Swin PatchMerging with H, W from x.size() (odd size: the pad branch)", TinySwin(), (torch.randn(1, 3, 20, 20),), (torch.randn(1, 3, 20, 20),)),
}
LOCAL = {
    "s2": lambda: train_mode_export(lambda: GroupedGRULayer(dropout=0.3), "s2 one-layer GRUs (dropout=0.3 given), exported in training mode"),
    "s2c": lambda: train_mode_export(GRUWithDropout, "s2c control: the same and a Dropout, exported in training mode"),
    "s7": lambda: _other_device("s7 rows of an unregistered index tensor as subscript indices", IndexRows, torch.randn(2, 4, 4)),
    "s7c": lambda: _other_device("s7c control: a row of it in arithmetic", IndexRowsArith, torch.randn(2, 4, 6)),
}

if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[2] == "local":
        LOCAL[sys.argv[1]]()
    elif len(sys.argv) == 3:
        import harness
        orig = harness.run_all
        globals()["run_all"] = lambda *a, **k: orig(*a, exporters=(sys.argv[2],), **k)
        CASES[sys.argv[1]]()
    else:
        import subprocess
        for case in (sys.argv[1:] or list(CASES) + list(LOCAL)):
            if case in LOCAL:
                r = subprocess.run([sys.executable, __file__, case, "local"], capture_output=True, text=True, timeout=300)
                print(r.stdout.strip() or f"{case}: FAIL process exit {r.returncode} {r.stderr[-300:]}", flush=True)
                continue
            for ex in ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"):
                r = subprocess.run([sys.executable, __file__, case, ex], capture_output=True, text=True, timeout=300)
                out = r.stdout.strip()
                print(out if out else f"{case} | {ex}: FAIL process exit {r.returncode} (no result printed)", flush=True)
