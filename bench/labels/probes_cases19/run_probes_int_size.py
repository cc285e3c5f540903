"""Probes for EXL137 in helpers (torch 2.13): `int()` of a size a model's forward hands a helper, by
name (`grid(x.shape[2])`), as an item of a tuple of sizes (`x.size()[-2:]` unpacked), and through a
list of such tuples to a plain helper object's method (mmdetection's anchor generator, batch 19's
pkg_anchor_grid_int_featsize). H and W declared `Dim(min=16, max=64)`; control: only the batch.
Each exporter exports at 32x32 (batch control: batch 2), then the result is compared with eager at 48x40
(batch 3); an error while running the exported model at that size is printed as raised. Usage: python run_probes_int_size.py 2>/dev/null
"""
import io
import warnings

warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from torch.export import Dim  # noqa: E402


def grid(h, stride):
    n = int(h)
    return torch.arange(0, n) * stride


class Generator:
    def level(self, featmap_size, stride):
        feat_h, feat_w = featmap_size
        feat_h = int(feat_h)
        feat_w = int(feat_w)
        return (torch.arange(0, feat_h)[:, None] * stride + torch.arange(0, feat_w)[None, :]).flatten()

    def all_levels(self, featmap_sizes):
        return [self.level(featmap_sizes[i], 2 ** (i + 1)) for i in range(len(featmap_sizes))]


class ByName(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, img):
        f = self.conv(img)
        return f.flatten(2).sum(1) + grid(f.shape[2] * f.shape[3], 1).float()


class ThroughListOfTuples(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(4, 4, 3, stride=2, padding=1)
        self.gen = Generator()

    def forward(self, img):
        f1 = self.conv1(img)
        f2 = self.conv2(f1)
        feats = [f1, f2]
        sizes = [f.size()[-2:] for f in feats]
        anchors = self.gen.all_levels(sizes)
        return torch.cat([f.flatten(2).sum(1) + a.float() for f, a in zip(feats, anchors)], 1)


def run(name, model, dims):
    # (the batch control exports a batch of 2: an example batch of 1 specialises it, 0/1 rule)
    x = torch.randn(1, 3, 32, 32) if dims == "hw" else torch.randn(2, 3, 32, 32)
    x2 = torch.randn(1, 3, 48, 40) if dims == "hw" else torch.randn(3, 3, 32, 32)
    ds = {"img": {2: Dim("h", min=16, max=64), 3: Dim("w", min=16, max=64)}} if dims == "hw" else {"img": {0: Dim("b", min=1, max=8)}}
    axes = {"img": {2: "h", 3: "w"}} if dims == "hw" else {"img": {0: "b"}}
    want = model(x2)
    for ex in ("strict", "nonstrict", "dynamo", "legacy"):
        try:
            if ex in ("strict", "nonstrict"):
                ep = torch.export.export(model, (x,), dynamic_shapes=ds, strict=ex == "strict")
                got = ep.module()(x2)
            else:
                buf = io.BytesIO()
                if ex == "dynamo":
                    prog = torch.onnx.export(model, (x,), dynamic_shapes=ds, dynamo=True, verbose=False)
                    buf.write(prog.model_proto.SerializeToString())
                else:
                    torch.onnx.export(model, (x,), buf, dynamo=False, input_names=["img"], dynamic_axes=axes)
                sess = ort.InferenceSession(buf.getvalue())
                got = torch.from_numpy(sess.run(None, {sess.get_inputs()[0].name: x2.numpy()})[0])
        except Exception as e:  # noqa: BLE001
            msg = str(e).strip().splitlines()[0][:110] if str(e).strip() else type(e).__name__
            print(f"{name:32s} {dims:5s} {ex:9s} {type(e).__name__}: {msg}")
            continue
        ok = got.shape == want.shape and np.allclose(got.detach().numpy(), want.detach().numpy(), atol=1e-4)
        print(f"{name:32s} {dims:5s} {ex:9s} {'pass (matches at the other size)' if ok else 'DIVERGED at the other size'}")


for dims in ("hw", "batch"):
    run("int_of_size_by_name", ByName().eval(), dims)
    run("int_of_size_list_of_tuples", ThroughListOfTuples().eval(), dims)
