"""Sample U 12, 23 (pyiqa AHIQ/IQT): forward hooks append a layer's output to a plain Python object's
list (`SaveOutput.outputs[device]`), forward reads the list and resets it (`self.save_output.clear(x.device)`,
`self.outputs[device] = []`). EXL203 says the change happens once at export time: does any exporter fail,
or does the exported graph differ from eager on a second input? Control u12c: a counter the output reads."""
import io
import warnings

import torch
from torch import nn

warnings.filterwarnings("ignore")


class SaveOutput:
    def __init__(self):
        self.outputs = {}

    def __call__(self, module, module_in, module_out):
        if module_out.device in self.outputs.keys():
            self.outputs[module_out.device].append(module_out)
        else:
            self.outputs[module_out.device] = [module_out]

    def clear(self, device):
        self.outputs[device] = []


class Scratch(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4))
        self.save_output = SaveOutput()
        for layer in self.body:
            if isinstance(layer, nn.Linear):
                layer.register_forward_hook(self.save_output)

    def forward(self, x):
        self.body(x)
        feat = torch.cat((self.save_output.outputs[x.device][0], self.save_output.outputs[x.device][1]), dim=1)
        self.save_output.clear(x.device)
        return feat


class Counter(nn.Module):
    """control: state carried from call to call into the output."""
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return x * self.calls


x, x2 = torch.randn(2, 4), torch.randn(2, 4)
for name, make in (("u12 hook scratch cleared", Scratch), ("u12c counter", Counter)):
    for strict in (True, False):
        tag = "export-strict" if strict else "export-nonstrict"
        try:
            torch.manual_seed(0); m = make(); ep = torch.export.export(m, (x,), strict=strict)
            torch.manual_seed(0); ref = make(); ref(x)
            ok = torch.allclose(ep.module()(x2), ref(x2))
            print(f"{name} | {tag}: PASS, second input matches eager: {ok}")
        except Exception as e:
            print(f"{name} | {tag}: FAIL {type(e).__name__}: {str(e).splitlines()[0][:140]}")
    for dynamo in (True, False):
        tag = "onnx-dynamo" if dynamo else "onnx-legacy"
        try:
            torch.manual_seed(0); m = make()
            if dynamo:
                prog = torch.onnx.export(m, (x,), dynamo=True)
                got = prog(x2)[0] if isinstance(prog(x2), (list, tuple)) else prog(x2)
            else:
                import onnxruntime as ort
                buf = io.BytesIO(); torch.onnx.export(m, (x,), buf, dynamo=False)
                got = torch.from_numpy(ort.InferenceSession(buf.getvalue()).run(None, {ort.InferenceSession(buf.getvalue()).get_inputs()[0].name: x2.numpy()})[0])
            torch.manual_seed(0); ref = make(); ref(x)
            print(f"{name} | {tag}: PASS, second input matches eager: {torch.allclose(torch.as_tensor(got), ref(x2), atol=1e-5)}")
        except Exception as e:
            print(f"{name} | {tag}: FAIL {type(e).__name__}: {str(e).splitlines()[0][:140]}")
