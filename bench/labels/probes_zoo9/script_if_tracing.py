"""@torch.jit._script_if_tracing: the legacy exporter scripts the function (no TracerWarning, right at
other sizes); torch.export runs it as Python (int(tensor) fails). torch 2.13.0."""
import warnings, torch, onnxruntime as ort, numpy as np


@torch.jit._script_if_tracing
def take(x, k):
    n = int(k.sum())
    return x[:n]


class M(torch.nn.Module):
    def forward(self, x, k):
        return take(x, k) * 2


m = M()
x = torch.randn(6, 3)
k1, k2 = torch.ones(2, dtype=torch.int64), torch.ones(4, dtype=torch.int64)
for name in ("onnx-legacy", "export-nonstrict"):
    try:
        if name == "onnx-legacy":
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                torch.onnx.export(m, (x, k1), "/tmp/probe_sit.onnx", dynamo=False, input_names=["x", "k"],
                                  dynamic_axes={"k": {0: "n"}})
            tw = [str(i.message)[:60] for i in w if issubclass(i.category, torch.jit.TracerWarning)]
            s = ort.InferenceSession("/tmp/probe_sit.onnx")
            got = s.run(None, {"x": x.numpy(), "k": k2.numpy()})[0]
            print(name, "tracer warnings:", tw, "| at k of 4:", got.shape, "eager", tuple(m(x, k2).shape))
        else:
            torch.export.export(m, (x, k1), strict=False)
            print(name, "exported")
    except Exception as e:
        print(name, "FAIL", type(e).__name__, str(e).splitlines()[0][:120])
