"""lead30 probes, from the held-out zoo misses of session 30 (hf axk2 :276, bamba :299,
bailing_hybrid :642), rebuilt small. seq (dim 1) declared dynamic, min 2 max 64; torch 2.13 CPU.

A  topk of ``k = min(c, x.shape[-1])`` on the dynamic dim             (axk2's indexer)
A2 topk of a constant k                                              (control)
A3 A with the dim declared min=4 (= the constant of the min)          (the fix)
B  pad the dynamic dim to a multiple of a chunk, reshape into chunks  (bamba's reshape_into_chunks)
B2 the same with the dim declared a multiple of the chunk             (control)
C  pad to a chunk multiple, chunk, compute, then slice back to S      (bailing_hybrid's chunk_kda)
Run: python probe_chunk_topk.py
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class A(nn.Module):
    def forward(self, x):
        k = min(4, x.shape[-1])
        return x.topk(k, dim=-1).indices


class A2(nn.Module):
    def forward(self, x):
        return x.topk(2, dim=-1).indices


def pad_to_chunks(x, chunk):
    pad = (chunk - x.shape[1] % chunk) % chunk
    return F.pad(x, (0, 0, 0, pad))


class B(nn.Module):
    def forward(self, x):
        y = pad_to_chunks(x, 16)
        return y.reshape(y.shape[0], -1, 16, y.shape[2]).sum(2)


class C(nn.Module):
    def forward(self, x):
        S = x.shape[1]
        y = pad_to_chunks(x, 16)
        y = y.reshape(y.shape[0], -1, 16, y.shape[2]).cumsum(2)
        y = y.reshape(y.shape[0], -1, y.shape[-1])
        return y[:, :S]


def _other(x, dims):
    """The example input with each dynamic dim grown by 5 (by 16 when declared a multiple)."""
    shape = [n + (16 if not isinstance(dims[d], torch.export.Dim) or "*" in str(dims[d]) else 5) if d in dims else n
             for d, n in enumerate(x.shape)]
    return torch.randn(*shape)


def run(name, m, x, dims):
    m = m.eval()
    for strict in (True, False):
        try:
            torch.export.export(m, (x,), dynamic_shapes=(dims,), strict=strict)
            print(name, "strict" if strict else "non-strict", "PASS")
        except Exception as e:  # noqa: BLE001
            msg = " ".join(str(e).split())
            print(name, "strict" if strict else "non-strict", "FAIL", type(e).__name__, msg[:230])
    import io
    import warnings

    import numpy as np
    import onnxruntime as ort

    x2 = _other(x, dims)
    for dynamo in (True, False):
        label = "onnx-dynamo" if dynamo else "onnx-legacy"
        buf = io.BytesIO()
        try:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                if dynamo:
                    prog = torch.onnx.export(m, (x,), dynamic_shapes=(dims,), dynamo=True, verbose=False)
                    prog.save(buf)
                else:
                    axes = {0: {d: f"d{d}" for d in dims}}
                    torch.onnx.export(m, (x,), buf, dynamo=False, input_names=["x"], dynamic_axes={"x": axes[0]})
            tw = [str(i.message)[:90] for i in w if "Tracer" in type(i.message).__name__]
            sess = ort.InferenceSession(buf.getvalue())
            got = sess.run(None, {sess.get_inputs()[0].name: x2.numpy()})[0]
            want = m(x2).detach().numpy()
            same = got.shape == want.shape and np.allclose(got, want, atol=1e-4)
            print(name, label, "PASS" if same else "DIVERGES", got.shape, want.shape, tw[:1])
        except Exception as e:  # noqa: BLE001
            msg = " ".join(str(e).split())
            print(name, label, "FAIL", type(e).__name__, msg[:230])


def main():
    seq = torch.export.Dim("seq", min=2, max=64)
    x3 = torch.randn(2, 8, 4)
    run("A", A(), torch.randn(2, 3, 8), {2: seq})
    run("A2", A2(), torch.randn(2, 3, 8), {2: seq})
    run("A3", A(), torch.randn(2, 3, 8), {2: torch.export.Dim("seq4", min=4, max=64)})
    run("B", B(), x3, {1: seq})
    run("B2", B(), torch.randn(2, 32, 4), {1: 16 * torch.export.Dim("n", min=1, max=4)})
    run("C", C(), x3, {1: seq})


if __name__ == "__main__":
    main()
