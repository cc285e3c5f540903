"""Claims of sample R (prec17, seed 1710, main@78715f8) that are not obvious from the code. torch 2.13.0+cpu.
Each exporter of each case runs in its own process (`python r1_sample_claims.py [case ...]`)."""
import io, math, sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class CosOfItem(nn.Module):
    """styletts2 VSampler.get_alpha_beta (R 17): `cos(sigma * pi / 2)` of `sigmas[0].item()`."""
    def forward(self, noise, sigmas):
        angle = sigmas[0].item() * math.pi / 2
        return noise * math.cos(angle) + math.sin(angle)


class GumbelConst(nn.Module):
    """torchscale gumbel_rsample (R 39): `Gumbel(zero, one)` of two literal tensors made in forward;
    `.mean` only (no sampling), so that only the argument validation is measured."""
    def forward(self, x):
        one = torch.tensor(1.0, device=x.device)
        zero = torch.tensor(0.0, device=x.device)
        return x + torch.distributions.gumbel.Gumbel(zero, one).mean


class GumbelInput(nn.Module):
    """control: `Gumbel(loc, scale)` of a scale computed from the input."""
    def forward(self, x):
        return x + torch.distributions.gumbel.Gumbel(torch.zeros_like(x), x.exp()).mean


def _other_device(name, make, x):
    """No GPU here: `meta` stands in for the other device (the model is moved, the input is there)."""
    m = make()
    try:
        m.to("meta")
        print(f"{name} | eager, model moved to meta: PASS", m(x.to("meta")).device)
    except Exception as e:
        print(f"{name} | eager, model moved to meta: FAIL {type(e).__name__}: {str(e).splitlines()[0][:120]}")
    for strict in (True, False):
        ep = torch.export.export(make(), (x,), strict=strict)
        try:
            print(f"{name} | export-{'strict' if strict else 'nonstrict'}, program moved to meta: PASS",
                  ep.module().to("meta")(x.to("meta")).device)
        except Exception as e:
            print(f"{name} | export-{'strict' if strict else 'nonstrict'}, program moved to meta: FAIL "
                  f"{type(e).__name__}: {str(e).splitlines()[0][:120]}")


class IndexAttr(nn.Module):
    """super-gradients DEKRHorisontalFlipWrapper (R 27, 28): an unregistered long tensor read only as a subscript index."""
    def __init__(self):
        super().__init__()
        self.flip = torch.tensor([2, 1, 0, 3]).long()

    def forward(self, x):
        return x[:, self.flip, :] * 2


class ArithAttr(nn.Module):
    """control: the same attribute in arithmetic with the input."""
    def __init__(self):
        super().__init__()
        self.flip = torch.tensor([2.0, 1.0, 0.0, 3.0])

    def forward(self, x):
        return x * self.flip[None, :, None]


class MovedAttr(nn.Module):
    """torch-geometric-temporal MTGNN (R 30): every read is `self._idx.to(x.device)`."""
    def __init__(self):
        super().__init__()
        self._idx = torch.arange(4)

    def forward(self, x):
        return x + self._idx.to(x.device)[None, :, None].float()


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.bn = nn.BatchNorm1d(4)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.bn(self.lin(x)))


class EvalInCtor(nn.Module):
    """super-gradients ConvertableCompletePipelineModel (R 26): `model.eval()` in `__init__`, the wrapper
    itself never put in eval mode, then `torch.onnx.export(model=complete_model, ...)`."""
    def __init__(self, model, pre=None, post=None):
        super().__init__()
        model.eval()
        self.model = model
        self.pre = pre or nn.Identity()
        self.post = post or nn.Identity()

    def forward(self, x):
        return self.post(self.model(self.pre(x)))


def eval_in_ctor(wrapped_eval):
    torch.manual_seed(0)
    inner = Inner()
    with torch.no_grad():
        inner.bn.running_mean.fill_(0.3)
        inner.bn.running_var.fill_(2.0)
    m = EvalInCtor(inner) if wrapped_eval else inner
    tag = "R26 wrapper, inner eval()'d in __init__" if wrapped_eval else "R26c control: the model itself, never eval()'d"
    x = torch.randn(3, 4)
    ref = inner.eval()(x) if not wrapped_eval else m(x)
    if not wrapped_eval:
        inner.train()
    buf = io.BytesIO()
    for dynamo in (True, False):
        try:
            if dynamo:
                prog = torch.onnx.export(m, (x,), dynamo=True, verbose=False)
                out = prog(x)
                got = out[0] if isinstance(out, (tuple, list)) else out
                got = got if isinstance(got, torch.Tensor) else torch.from_numpy(got)
            else:
                torch.onnx.export(m, (x,), buf, dynamo=False)
                import onnxruntime as ort
                sess = ort.InferenceSession(buf.getvalue())
                got = torch.from_numpy(sess.run(None, {sess.get_inputs()[0].name: x.numpy()})[0])
            print(f"{tag} | {'onnx-dynamo' if dynamo else 'onnx-legacy'}: PASS matches-inference={torch.allclose(got, ref, atol=1e-5)}")
        except Exception as e:
            print(f"{tag} | {'onnx-dynamo' if dynamo else 'onnx-legacy'}: FAIL {type(e).__name__}: {str(e).splitlines()[0][:150]}")


CASES = {
    "r17": lambda: run_all("r17 math.cos/sin of an .item() value", CosOfItem(), (torch.randn(2, 3), torch.tensor([0.7, 0.2])), (torch.randn(2, 3), torch.tensor([0.3, 0.2]))),
    "r39": lambda: run_all("r39 Gumbel(literal zero, literal one).mean in forward", GumbelConst(), (torch.randn(2, 3),), (torch.randn(2, 3),)),
    "r39c": lambda: run_all("r39c control: Gumbel(zeros_like(x), x.exp()).mean", GumbelInput(), (torch.randn(2, 3),), (torch.randn(2, 3),)),
}
LOCAL = {
    "r27": lambda: _other_device("r27 unregistered index tensor, subscript only", IndexAttr, torch.randn(2, 4, 3)),
    "r27c": lambda: _other_device("r27c control: unregistered tensor in arithmetic", ArithAttr, torch.randn(2, 4, 3)),
    "r30": lambda: _other_device("r30 unregistered tensor read as .to(x.device)", MovedAttr, torch.randn(2, 4, 3)),
    "r26": lambda: eval_in_ctor(True),
    "r26c": lambda: eval_in_ctor(False),
}

if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[2] == "local":
        LOCAL[sys.argv[1]]()
    elif len(sys.argv) == 3 and sys.argv[2] in ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"):  # one exporter of one case, in its own process
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
