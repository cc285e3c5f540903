"""cases20: indexing with a 0-d integer tensor, strict vs non-strict torch.export (torch 2.13). Output: probe_scalar_index.out"""
import torch, torch.nn as nn, warnings
warnings.simplefilter("ignore")
class P(nn.Module):
    def __init__(self, kind):
        super().__init__(); self.kind = kind
        self.table = nn.Parameter(torch.randn(4, 8)); self.register_buffer("buf", torch.randn(4, 8))
    def forward(self, x, i):
        k = self.kind
        if k == "param[i]": return x + self.table[i]
        if k == "buffer[i]": return x + self.buf[i]
        if k == "input[i]": return x[i]
        if k == "param[i, :]": return x + self.table[i, :]
        if k == "param[:, i]": return x[:, :4] + self.table[:, i]
        if k == "param.index_select": return x + self.table.index_select(0, i.reshape(1))
        if k == "F.embedding": return x + torch.nn.functional.embedding(i, self.table)
        if k == "computed[i]": return x + (self.table * 2)[i]
x = torch.randn(2, 8)
for k in ["param[i]", "buffer[i]", "input[i]", "param[i, :]", "param[:, i]", "param.index_select", "F.embedding", "computed[i]"]:
    for idx, nm in [(torch.tensor(1), "0-d"), (torch.tensor([1]), "1-d")]:
        res = []
        for strict in (True, False):
            try:
                torch.export.export(P(k), (x, idx), strict=strict); res.append("pass")
            except Exception as e:
                res.append("FAIL " + type(e).__name__ + ": " + str(e).splitlines()[0][:90])
        print(f"{k:20s} {nm}: strict {res[0]} | nonstrict {res[1]}", flush=True)
class Q(nn.Module):
    def __init__(self, kind):
        super().__init__(); self.kind = kind
    def forward(self, boxes, scores):
        k = self.kind
        if k == "boxes[scores.argmax()]": return boxes[scores.argmax()]
        if k == "boxes[torch.argmax(scores)]": return boxes[torch.argmax(scores)]
        if k == "boxes[scores.argmax(0)]": return boxes[scores.argmax(0)]
        if k == "boxes[scores.argmax(dim=0, keepdim=True)]": return boxes[scores.argmax(dim=0, keepdim=True)]
        if k == "boxes[scores.argmax().item()]": return boxes[scores.argmax().item()]
        if k == "boxes.index_select(0, scores.argmax().view(1))": return boxes.index_select(0, scores.argmax().view(1))
boxes = torch.randn(5, 4); scores = torch.rand(5)
for k in ["boxes[scores.argmax()]", "boxes[torch.argmax(scores)]", "boxes[scores.argmax(0)]", "boxes[scores.argmax(dim=0, keepdim=True)]", "boxes[scores.argmax().item()]", "boxes.index_select(0, scores.argmax().view(1))"]:
    res = []
    for strict in (True, False):
        try:
            ep = torch.export.export(Q(k), (boxes, scores), strict=strict)
            ok = torch.allclose(ep.module()(boxes, scores * -1), Q(k)(boxes, scores * -1))
            res.append("pass" + ("" if ok else " (DIVERGES)"))
        except Exception as e:
            res.append("FAIL " + type(e).__name__ + ": " + str(e).splitlines()[0][:90])
    print(f"{k:45s}: strict {res[0]} | nonstrict {res[1]}", flush=True)

# the ONNX exporters on the argmax form (onnxruntime compared with eager at another input)
import io
import numpy as np
import onnxruntime as ort
for k in ["boxes[scores.argmax()]", "boxes[torch.argmax(scores)]"]:
    for dynamo in (True, False):
        try:
            f = io.BytesIO()
            if dynamo:
                torch.onnx.export(Q(k), (boxes, scores), dynamo=True).save(f)
            else:
                torch.onnx.export(Q(k), (boxes, scores), f, dynamo=False)
            s = ort.InferenceSession(f.getvalue())
            s2 = -scores
            got = s.run(None, {i.name: v.numpy() for i, v in zip(s.get_inputs(), (boxes, s2))})[0]
            ok = np.allclose(got, Q(k)(boxes, s2).numpy())
            r = "pass" if ok else "DIVERGES"
        except Exception as e:
            r = "FAIL " + type(e).__name__ + ": " + str(e).splitlines()[0][:90]
        print(f"{k:45s}: {'onnx-dynamo' if dynamo else 'onnx-legacy'} {r}", flush=True)
