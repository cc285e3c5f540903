"""EXL203 on a one-way latch (hf BigBirdPegasus's encoder, zoo19; torch 2.13): forward tests the
attribute's own value with a size (`if self.attention_type == "block_sparse" and seq <= K:`) and then
calls a setter that writes another constant (`self.set_attention_type("original_full")`, which returns
when the value is already set); the graph then reads the attribute. The state moves "block_sparse" ->
"original_full" at most once, and never back.

For each exporter, a FRESH model is exported at a short sequence (the latch fires during export) or a
long one (it does not), static shapes; the exported program is compared with the same model object run
eagerly afterwards (its state is what export left) at the short and the long size, and with a fresh
eager model at the export size.
Variant `flip` (a control): the write toggles (`"original_full" if self.attention_type == "block_sparse"
else "block_sparse"`), so every call changes the state."""
import contextlib, io, sys, warnings

import numpy as np
import torch

warnings.filterwarnings("ignore")
K = 4


class Net(torch.nn.Module):
    def __init__(self, flip=False):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)
        self.attention_type = "block_sparse"
        self.flip = flip

    def set_attention_type(self, value):
        if value == self.attention_type:
            return
        self.attention_type = value

    def forward(self, x):
        if self.flip:
            self.set_attention_type("original_full" if self.attention_type == "block_sparse" else "block_sparse")
        elif self.attention_type == "block_sparse" and x.shape[1] <= K:
            self.set_attention_type("original_full")
        if self.attention_type == "block_sparse":
            return self.lin(x) * 2
        return self.lin(x) + 1


def export(m, x, how):
    if how in ("export-strict", "export-nonstrict"):
        ep = torch.export.export(m, (x,), strict=how == "export-strict")
        return lambda t: ep.module()(t)
    import onnxruntime as ort, tempfile
    path = tempfile.mktemp(suffix=".onnx")
    if how == "onnx-dynamo":
        torch.onnx.export(m, (x,), dynamo=True, verbose=False).save(path)
    else:
        torch.onnx.export(m, (x,), path, dynamo=False, input_names=["x"])
    s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    return lambda t: torch.from_numpy(s.run(None, {"x": t.numpy()})[0])


def run(how, flip, n_export):
    torch.manual_seed(0)
    m = Net(flip).eval()
    x = torch.randn(2, n_export, 8)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        f = export(m, x, how)
    state = m.attention_type
    out = []
    fresh = Net(flip).eval()
    fresh.load_state_dict(m.state_dict())
    with torch.no_grad():
        same = torch.allclose(f(x), fresh(x), atol=1e-5)
        out.append(f"vs fresh eager at export size: {'match' if same else 'DIFFER'}")
        t = torch.randn(2, n_export, 8)
        same = torch.allclose(f(t), m(t), atol=1e-5)
        out.append(f"vs the exported object's eager, 2nd call: {'match' if same else 'DIFFER'}")
    return f"state after export {state!r}; " + "; ".join(out)


if __name__ == "__main__":
    print("torch", torch.__version__)
    for flip in (False, True):
        for n in (3, 6):
            for how in ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"):
                try:
                    r = run(how, flip, n)
                except Exception as e:  # noqa: BLE001
                    r = "FAIL " + str(e).splitlines()[0][:150]
                print(f"{'flip ' if flip else 'latch'} seq={n} {how:17s} {r}", flush=True)
