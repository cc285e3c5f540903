"""Probes for cases19's classes (torch 2.13; run with the project's venv python).

repeat_interleave and the legacy exporter's opset (EXL402 read `onnx-legacy: 13` from the op table,
measured on OpInfo's first sample, a 0-d input): export with the legacy exporter at opsets 9-13,
run the model with onnxruntime on the example and compare with eager. Usage: python run_probes.py 2>/dev/null | grep "legacy opset" (the exporter prints its graph on failure)
"""
import io
import warnings

warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402
import torch  # noqa: E402


class Fn(torch.nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, *xs):
        return self.f(*xs)


CASES = {
    # name: (function, example inputs, dynamic_axes)
    "rank0_dim_none_int": (lambda x: torch.repeat_interleave(x, 2), (torch.randn(()),), None),
    "rank2_dim_none_int": (lambda x: torch.repeat_interleave(x, 2), (torch.randn(2, 3),), None),
    "rank2_dim0_int": (lambda x: torch.repeat_interleave(x, 3, dim=0), (torch.randn(2, 3),), None),
    "rank2_dim1_method": (lambda x: x.repeat_interleave(2, dim=1), (torch.randn(2, 3),), None),
    "rank2_dim0_size_of_other": (lambda x, t: torch.repeat_interleave(x, t.shape[0], dim=0),
                                 (torch.randn(2, 3), torch.randn(3, 4)), {"t": {0: "n"}}),
    "rank2_dim0_tensor_repeats": (lambda x, r: torch.repeat_interleave(x, r, dim=0),
                                  (torch.randn(2, 3), torch.tensor([1, 2])), None),
}

for name, (f, args, dyn) in CASES.items():
    m = Fn(f)
    names = ["x", "t"][: len(args)] if dyn else None
    for opset in (9, 10, 11, 12, 13):
        buf = io.BytesIO()
        try:
            torch.onnx.export(m, args, buf, opset_version=opset, dynamo=False, input_names=names, dynamic_axes=dyn)
        except Exception as e:  # noqa: BLE001
            print(f"{name:28s} legacy opset {opset:2d}: FAIL {type(e).__name__}: {str(e).splitlines()[0][:100]}")
            continue
        sess = ort.InferenceSession(buf.getvalue())
        out = sess.run(None, {i.name: a.numpy() for i, a in zip(sess.get_inputs(), args)})[0]
        ok = np.allclose(out, m(*args).numpy())
        print(f"{name:28s} legacy opset {opset:2d}: pass ({'matches' if ok else 'DIFFERS from'} eager)")
