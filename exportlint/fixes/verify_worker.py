"""Worker side of rewrite verification (imports torch; run as
``python -m exportlint.fixes.verify_worker JOB.json``).

Stages (one process each, so the original and the rewritten project never share modules):

- ``probe``: load the probe copy (each rewritten branch's test wrapped in
  :func:`exportlint.fixes.probe.hit`), run eager on the example inputs and on perturbed
  inputs until every probed branch took both ways (or the perturbations run out); save the
  chosen inputs and which way each branch went.
- ``reference``: load the ORIGINAL project and run eager on the saved inputs.
- ``check``: load the rewritten copy, export it with each exporter, run the exported program
  on the saved inputs and compare with the reference outputs.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
import warnings


def _load(job):
    from exportlint.confirm.locate import UserFiles
    from exportlint.confirm.worker import build_spec, load_target

    users = UserFiles(job["target"].get("user_roots", []))
    obj, mod = load_target(job["target"], users)
    import torch

    torch.manual_seed(0)
    spec = build_spec(obj, mod, users)
    try:
        spec["model"].eval()
    except Exception:  # noqa: BLE001
        pass
    return spec


def _eager(model, args, kwargs):
    import torch

    from exportlint.confirm.worker import clone_inputs, output_leaves

    a, k = clone_inputs(args, kwargs)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return output_leaves(model(*a, **k))


def _perturbations(args, kwargs):
    """(name, args, kwargs): confirm's value variants, then more of them."""
    import torch

    from exportlint.confirm.worker import tree_map, make_variants

    out = [(n, a, k) for n, kind, a, k in make_variants(args, kwargs) if kind == "value"]

    def values(fn):
        def f(t):
            if isinstance(t, torch.Tensor) and t.is_floating_point():
                return fn(t)
            return t
        return f

    gen = torch.Generator().manual_seed(1234)
    extra = [
        ("abs", lambda t: t.abs()),
        ("-abs", lambda t: -t.abs()),
        ("x0.01", lambda t: t * 0.01),
        ("x-100", lambda t: t * -100),
        ("+1000", lambda t: t + 1000),
        ("-1000", lambda t: t - 1000),
        ("nan", lambda t: torch.where(torch.arange(t.numel()).reshape(t.shape) == 0, float("nan"), t) if t.numel() else t),
        ("inf", lambda t: torch.where(torch.arange(t.numel()).reshape(t.shape) == 0, float("inf"), t) if t.numel() else t),
    ]
    for i in range(6):
        scale = (1.0, 10.0, 0.1)[i % 3]
        extra.append((f"randn#{i}x{scale}", lambda t, s=scale: torch.randn(t.shape, generator=gen, dtype=t.dtype) * s))
    for name, fn in extra:
        g = values(fn)
        out.append((name, tree_map(g, args), tree_map(g, kwargs)))

    def bools(v):
        def f(t):
            if isinstance(t, torch.Tensor) and t.dtype == torch.bool:
                return torch.full_like(t, v)
            return t
        return f

    for v in (False, True):
        out.append((f"masks all {v}", tree_map(bools(v), args), tree_map(bools(v), kwargs)))
    return out


def stage_probe(job) -> dict:
    import torch

    from exportlint.fixes import probe

    spec = _load(job)
    model = spec["model"]
    pids = list(job["probes"])
    probe.reset()
    _eager(model, spec["args"], spec["kwargs"])
    seen = probe.reset()
    inputs = [("example", spec["args"], spec["kwargs"])]
    ways = {p: sorted(seen.get(p, ())) for p in pids}
    flipped_by: dict[str, str] = {}
    total = {p: set(seen.get(p, ())) for p in pids}
    for name, a, k in _perturbations(spec["args"], spec["kwargs"]):
        if all(len(total[p]) == 2 for p in pids):
            break
        try:
            _eager(model, a, k)
        except Exception:  # noqa: BLE001 - the model does not take this input
            probe.reset()
            continue
        got = probe.reset()
        useful = False
        for p in pids:
            new = got.get(p, set()) - total[p]
            if new:
                useful = True
                total[p] |= new
                flipped_by.setdefault(p, name)
        if useful:
            inputs.append((name, a, k))
    torch.save([(n, a, k) for n, a, k in inputs], job["inputs_path"])
    return {"ways": {p: sorted(total[p]) for p in pids}, "example_ways": ways, "flipped_by": flipped_by,
            "inputs": [n for n, _, _ in inputs]}


def stage_reference(job) -> dict:
    import torch

    spec = _load(job)
    inputs = torch.load(job["inputs_path"], weights_only=False)
    outs = [_eager(spec["model"], a, k) for _, a, k in inputs]
    torch.save(outs, job["outputs_path"])
    return {"n": len(outs)}


def _tolerances(job, ref) -> tuple[float, float]:
    """The configured rtol/atol, widened for half-precision outputs (torch.testing's float16 /
    bfloat16 tolerances are 1e-3 / 1.6e-2 relative; exporters reorder fp16 arithmetic)."""
    import torch

    rtol, atol = job["rtol"], job["atol"]
    if any(getattr(t, "dtype", None) in (torch.float16, torch.bfloat16) for t in ref):
        rtol, atol = max(rtol, 1e-2), max(atol, 1e-2)
    return rtol, atol


def stage_check(job) -> dict:
    import tempfile

    import torch

    from exportlint.confirm.locate import exporter_message
    from exportlint.confirm.worker import compare, export_with

    spec = _load(job)
    inputs = torch.load(job["inputs_path"], weights_only=False)
    refs = torch.load(job["outputs_path"], weights_only=False)
    res: dict = {}
    # the rewritten model in eager first: a rewrite that changes eager results fails here
    eager_max = 0.0
    for (name, a, k), ref in zip(inputs, refs):
        try:
            got = _eager(spec["model"], a, k)
        except Exception as e:  # noqa: BLE001
            return {"eager": {"status": "fail", "message": f"the rewritten model fails in eager on {name}: "
                                                            f"{type(e).__name__}: {e}"[:400]}}
        c = compare(ref, got, *_tolerances(job, ref))
        if not c["ok"]:
            return {"eager": {"status": "fail", "max_abs": c["max_abs"],
                              "message": f"the rewritten model differs from the original in eager on {name}: "
                                         f"{c['message']}"}}
        eager_max = max(eager_max, c["max_abs"] or 0.0)
    res["eager"] = {"status": "pass", "max_abs": eager_max}
    for exporter in job["exporters"]:
        t0 = time.time()
        with tempfile.TemporaryDirectory() as wd, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                ex = export_with(exporter, spec["model"], spec, job.get("opset"), wd)
            except Exception as e:  # noqa: BLE001
                res[exporter] = {"status": "fail", "message": exporter_message(e)[:500],
                                 "seconds": round(time.time() - t0, 2)}
                try:
                    from exportlint.confirm.locate import UserFiles, locate

                    loc = locate(e, exporter, UserFiles(job["target"].get("user_roots", [])))
                    if loc is not None:
                        res[exporter]["at"] = [loc.path, loc.line] + [list(f) for f in loc.stack[:8]]
                except Exception:  # noqa: BLE001
                    pass
                continue
            worst = 0.0
            status, msg = "pass", ""
            for (name, a, k), ref in zip(inputs, refs):
                try:
                    got = ex.run(a, k)
                except Exception as e:  # noqa: BLE001
                    status, msg = "fail", f"the exported program fails on {name}: {type(e).__name__}: {e}"[:500]
                    break
                c = compare(ref, got, *_tolerances(job, ref))
                worst = max(worst, c["max_abs"] if c["max_abs"] is not None else float("inf"))
                if not c["ok"]:
                    status, msg = "diverged", f"on {name}: {c['message']}"
                    break
            res[exporter] = {"status": status, "max_abs": worst, "message": msg,
                             "seconds": round(time.time() - t0, 2)}
    return res


def main(argv: list[str]) -> int:
    with open(argv[1], encoding="utf-8") as fh:
        job = json.load(fh)
    from exportlint.confirm.worker import TargetError

    try:
        out = {"ok": True, **{"probe": stage_probe, "reference": stage_reference, "check": stage_check}[job["stage"]](job)}
    except TargetError as e:
        out = {"ok": False, "message": f"{e.stage}: {e.message}"}
    except BaseException as e:  # noqa: BLE001 - user code
        out = {"ok": False, "message": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()[-2000:]}
    with open(job["result_path"], "w", encoding="utf-8") as fh:
        json.dump(out, fh, default=str)
    return 0


if __name__ == "__main__":  # pragma: no cover
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    sys.exit(main(sys.argv))
