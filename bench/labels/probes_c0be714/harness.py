import io, sys, traceback, warnings
import torch

def run_all(name, mod, args, other_args=None, exporters=("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")):
    mod.eval()
    for ex in exporters:
        try:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                if ex == "export-strict":
                    ep = torch.export.export(mod, args, strict=True); f = ep.module()
                elif ex == "export-nonstrict":
                    ep = torch.export.export(mod, args, strict=False); f = ep.module()
                elif ex == "onnx-dynamo":
                    prog = torch.onnx.export(mod, args, dynamo=True, verbose=False)
                    f = None
                else:
                    buf = io.BytesIO()
                    torch.onnx.export(mod, args, buf, dynamo=False, opset_version=17)
                    import onnxruntime as ort
                    sess = ort.InferenceSession(buf.getvalue())
                    def f(*a, _s=sess):
                        outs = _s.run(None, {i.name: t.numpy() for i, t in zip(_s.get_inputs(), a)})
                        return torch.from_numpy(outs[0])
            msg = "PASS"
            if other_args is not None and f is not None:
                try:
                    got = f(*other_args); exp = mod(*other_args)
                    if isinstance(got, (tuple, list)): got = got[0]
                    if isinstance(exp, (tuple, list)): exp = exp[0]
                    msg += " match-other=%s" % torch.allclose(got, exp, atol=1e-5)
                except Exception as e:
                    msg += " other-input-error=%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200])
            tw = [str(x.message).splitlines()[0][:120] for x in w if "Tracer" in type(x.message).__name__]
            if tw: msg += " tracer-warnings=%s" % tw[:2]
            print(f"{name} | {ex}: {msg}")
        except Exception as e:
            s = str(e).strip().splitlines()
            first = next((l for l in s if l.strip()), "")
            print(f"{name} | {ex}: FAIL {type(e).__name__}: {first[:300]}")
        sys.stdout.flush()
