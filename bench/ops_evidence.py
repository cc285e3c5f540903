#!/usr/bin/env python3
"""Evidence for the op-support table and the EXL4xx rules.

1. The size of each table in rules/op_support.json (registries, probed APIs, variants).
2. For commonly used APIs that fail with some exporter: the static finding (which exporters
   EXL401/EXL402 name for a one-line model) next to the real outcome of exporting that
   model with each of the four exporters (needs torch). They must agree.
3. EXL4xx findings on `timm/models` and `transformers/models` from the PyPI wheels (fetched
   with `pip download --no-deps transformers timm` into bench/.corpus/ when absent), with a
   sample of findings for a hand check.

Usage: python bench/ops_evidence.py [--no-export] [--no-corpus] [--sample N] [--json OUT]
Exit status 1 when a static finding disagrees with the real export outcome.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import subprocess
import sys
import tempfile
import textwrap
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from exportlint.config import Config  # noqa: E402
from exportlint.engine import lint_paths, lint_source  # noqa: E402
from exportlint.findings import EXPORTERS  # noqa: E402
from exportlint.ops import table as optable  # noqa: E402

CORPUS = ROOT / "bench" / ".corpus"
CODES = frozenset({"EXL401", "EXL402", "EXL403"})

# (API, expression in forward, example args). Inputs: x, y, z in that order.
CASES: list[tuple[str, str, str]] = [
    ("torch.linalg.inv", "torch.linalg.inv(x)", "(torch.randn(4, 4) + 4 * torch.eye(4),)"),
    ("torch.Tensor.inverse", "x.inverse()", "(torch.randn(4, 4) + 4 * torch.eye(4),)"),
    ("torch.linalg.solve", "torch.linalg.solve(x, y)", "(torch.randn(4, 4) + 4 * torch.eye(4), torch.randn(4, 2))"),
    ("torch.linalg.cholesky", "torch.linalg.cholesky(x @ x.T + torch.eye(4))", "(torch.randn(4, 4),)"),
    ("torch.linalg.eigh", "torch.linalg.eigh(x + x.T)", "(torch.randn(4, 4),)"),
    ("torch.linalg.svd", "torch.linalg.svd(x)", "(torch.randn(4, 3),)"),
    ("torch.linalg.pinv", "torch.linalg.pinv(x)", "(torch.randn(4, 3),)"),
    ("torch.linalg.det", "torch.linalg.det(x)", "(torch.randn(4, 4),)"),
    ("torch.cdist", "torch.cdist(x, y)", "(torch.randn(5, 3), torch.randn(4, 3))"),
    ("torch.masked_select", "torch.masked_select(x, y)", "(torch.randn(6), torch.tensor([1, 0, 1, 1, 0, 1], dtype=torch.bool))"),
    ("torch.fft.rfft", "torch.view_as_real(torch.fft.rfft(x))", "(torch.randn(16),)"),
    ("torch.fft.fft", "torch.view_as_real(torch.fft.fft(x))", "(torch.randn(16),)"),
    ("torch.stft", "torch.view_as_real(torch.stft(x, 16, window=y, return_complex=True))", "(torch.randn(64), torch.hann_window(16))"),
    ("F.interpolate(antialias=True)", "F.interpolate(x, scale_factor=0.5, mode='bilinear', antialias=True)", "(torch.randn(1, 2, 8, 8),)"),
    ("F.interpolate(nearest-exact)", "F.interpolate(x, scale_factor=2, mode='nearest-exact')", "(torch.randn(1, 2, 4, 4),)"),
    ("torch.median(dim)", "torch.median(x, dim=-1).values", "(torch.randn(3, 5),)"),
    ("torch.kthvalue", "torch.kthvalue(x, 2, dim=-1).values", "(torch.randn(3, 5),)"),
    ("torch.searchsorted", "torch.searchsorted(x, y)", "(torch.arange(8.0), torch.rand(5) * 8)"),
    ("torch.cumprod", "torch.cumprod(x, dim=0)", "(torch.randn(6),)"),
    ("torch.erfinv", "torch.erfinv(x)", "(torch.rand(6) * 1.8 - 0.9,)"),
    ("torch.isin", "torch.isin(x, y)", "(torch.tensor([1, 2, 3, 4]), torch.tensor([2, 4]))"),
    ("torch.diff", "torch.diff(x)", "(torch.randn(6),)"),
    ("torch.bincount", "torch.bincount(x)", "(torch.tensor([0, 1, 1, 3]),)"),
    ("torch.multinomial", "torch.multinomial(x, 2)", "(torch.rand(2, 5) + 0.1,)"),
    ("torch.argsort(stable=True)", "torch.argsort(x, dim=-1, stable=True)", "(torch.randn(3, 5),)"),
    ("torch.histc", "torch.histc(x, bins=4, min=0, max=4)", "(torch.rand(8) * 4,)"),
    ("torch.view_as_complex", "torch.view_as_real(torch.view_as_complex(x) * y)", "(torch.randn(4, 2), torch.randn(4, 2)[:, 0])"),
    ("torch.nn.functional.grid_sample@opset15", "F.grid_sample(x, y, align_corners=False)",
     "(torch.randn(1, 2, 5, 5), torch.rand(1, 3, 3, 2) * 2 - 1)"),
]
#: cases linted/exported with an explicit opset (EXL402); everything else at the default
CASE_OPSET = {"torch.nn.functional.grid_sample@opset15": 15}


def model_source(expr: str, args: str) -> str:
    n = len(eval_args_names(args))
    params = ", ".join(["x", "y", "z"][:n])
    return textwrap.dedent(f"""\
        import torch
        import torch.nn.functional as F

        class Model(torch.nn.Module):
            def forward(self, {params}):
                return {expr}

        example_args = {args}
        """)


def eval_args_names(args: str) -> list[str]:
    # count top-level elements of the tuple literal
    depth = 0
    parts = 1
    body = args.strip()[1:-1].rstrip(", ")
    for ch in body:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts += 1
    return ["a"] * parts


# --------------------------------------------------------------------------------------
# 1. table sizes
# --------------------------------------------------------------------------------------


def table_sizes(tb) -> dict:
    reg = tb.registries
    apis = tb.apis
    fails = collections.Counter()
    for rec in apis.values():
        for e in rec.get("fail", {}):
            fails[e] += 1
    var = [v for rec in apis.values() for v in rec.get("variants", ())]
    vfails = collections.Counter(e for v in var for e in v.get("fail", {}))
    opsets = collections.Counter(e for rec in apis.values() for e in rec.get("opset", {}))
    opsets.update(e for v in var for e in v.get("opset", {}))
    kinds = collections.Counter(
        "nn module" if r.get("module") else ("Tensor method" if n.startswith("torch.Tensor.") else n.rsplit(".", 1)[0])
        for n, r in apis.items())
    aten = {op for r in apis.values() for op in r.get("aten", ())}
    return {
        "versions": tb.versions,
        "generated": tb.meta.get("generated"),
        "command": tb.meta.get("command"),
        "onnx-dynamo registry (aten overloads translated)": len(reg["onnx-dynamo"]["translated"]),
        "onnx-dynamo decomposition table (overloads decomposed first)": len(reg["onnx-dynamo"]["decomposed"]),
        "onnx-dynamo non-aten translations (torchvision::nms, ...)": len(reg["onnx-dynamo"]["external"]),
        "onnx-legacy symbolic registry (names)": len(reg["onnx-legacy"]["symbolics"]),
        "probed public APIs": len(apis),
        "  by namespace": dict(sorted(kinds.items(), key=lambda kv: -kv[1])),
        "aliases (Tensor methods, torch aliases)": len(tb.aliases),
        "keyword variants": len(var),
        "distinct aten overloads reached": len(aten),
        "APIs failing every sample, per exporter": dict(sorted(fails.items())),
        "APIs failing only some samples (mixed; never reported)": sum(1 for r in apis.values() if r.get("mixed")),
        "variants failing, per exporter": dict(sorted(vfails.items())),
        "min-opset records, per exporter": dict(sorted(opsets.items())),
        "onnx-dynamo baseline opset": reg["onnx-dynamo"].get("baseline_opset"),
        "skipped probes": len(tb.data.get("skipped", ())),
    }


# --------------------------------------------------------------------------------------
# 2. static vs real on common failing APIs
# --------------------------------------------------------------------------------------

_RUNNER = r'''
import io, json, sys, warnings, logging, importlib.util
warnings.simplefilter("ignore"); logging.disable(logging.CRITICAL)
import torch
src_path, opset = sys.argv[1], (int(sys.argv[2]) if sys.argv[2] != "None" else None)
spec = importlib.util.spec_from_file_location("case", src_path)
mod = importlib.util.module_from_spec(spec); sys.modules["case"] = mod; spec.loader.exec_module(mod)
m = mod.Model().eval(); args = mod.example_args
out = {}
for ex in ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"):
    try:
        torch.manual_seed(0)
        if ex == "export-strict": torch.export.export(m, args, strict=True)
        elif ex == "export-nonstrict": torch.export.export(m, args, strict=False)
        elif ex == "onnx-dynamo":
            p = torch.onnx.export(m, args, dynamo=True, opset_version=opset, verbose=False)
            got = [o.version for o in p.model_proto.opset_import if o.domain in ("", "ai.onnx")][0]
            if opset is not None and got != opset:
                raise RuntimeError(f"asked for opset {opset}, the file is opset {got}")
        else: torch.onnx.export(m, args, io.BytesIO(), dynamo=False, opset_version=opset)
        out[ex] = None
    except Exception as e:
        out[ex] = (type(e).__name__ + ": " + str(e).strip().splitlines()[0])[:160] if str(e).strip() else type(e).__name__
print("@@RESULT@@" + json.dumps(out))
'''


def static_vs_real(do_export: bool) -> tuple[list[dict], bool]:
    rows = []
    ok_all = True
    tmp = Path(tempfile.mkdtemp(prefix="exl4-"))
    runner = tmp / "runner.py"
    runner.write_text(_RUNNER)
    for name, expr, args in CASES:
        src = model_source(expr, args)
        opset = CASE_OPSET.get(name)
        cfg = Config(opset=opset)
        fs = [f for f in lint_source(src, "case.py", config=cfg, codes=CODES)]
        static = sorted({e for f in fs for e in f.exporters})
        row = {"api": name, "static": static, "codes": sorted({f.code for f in fs}), "opset": opset}
        if do_export:
            p = tmp / (name.replace("/", "_").replace("@", "_") + ".py")
            p.write_text(src)
            t0 = time.time()
            r = subprocess.run([sys.executable, str(runner), str(p), str(opset)], capture_output=True, text=True,
                               timeout=600)
            line = [ln for ln in r.stdout.splitlines() if ln.startswith("@@RESULT@@")]
            real = json.loads(line[0][len("@@RESULT@@"):]) if line else {e: "runner crashed" for e in EXPORTERS}
            failing = sorted(e for e, v in real.items() if v)
            row.update(real=failing, errors={e: v for e, v in real.items() if v}, seconds=round(time.time() - t0, 1))
            row["agree"] = failing == static
            ok_all &= row["agree"]
        rows.append(row)
    return rows, ok_all


# --------------------------------------------------------------------------------------
# 3. corpus
# --------------------------------------------------------------------------------------


def ensure_corpus() -> dict[str, Path]:
    """<pkg>/models from the PyPI wheels, extracted under bench/.corpus/ops/ (git-ignored).
    Wheels already in bench/.corpus/ are reused; otherwise `pip download --no-deps` fetches them."""
    out = {}
    for pkg in ("transformers", "timm"):
        d = CORPUS / "ops" / pkg
        if not (d / pkg / "models").is_dir():
            CORPUS.mkdir(parents=True, exist_ok=True)
            wheels = sorted(CORPUS.glob(f"{pkg}-*.whl"))
            if not wheels:
                subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                                "-d", str(CORPUS), pkg], check=True, stdout=subprocess.DEVNULL)
                wheels = sorted(CORPUS.glob(f"{pkg}-*.whl"))
            with zipfile.ZipFile(wheels[-1]) as z:
                members = [m for m in z.namelist() if m.startswith(f"{pkg}/models/")]
                z.extractall(d, members)
            (d / "WHEEL").write_text(wheels[-1].name + "\n")
        out[pkg] = d / pkg / "models"
    return out


def corpus_findings(paths: dict[str, Path], sample: int, seed: int = 0) -> dict:
    res = {}
    for pkg, root in paths.items():
        files = sorted(str(p) for p in root.rglob("*.py"))
        t0 = time.time()
        rr = lint_paths(files, Config(root=root), use_cache=False, codes=CODES)
        by_code = collections.Counter(f.code for f in rr.findings)
        by_api = collections.Counter()
        for f in rr.findings:
            api = f.message.split("`")[1] if "`" in f.message else "?"
            by_api[(f.code, api)] += 1
        rnd = random.Random(seed)
        pick = rnd.sample(rr.findings, min(sample, len(rr.findings)))
        wheel = (root.parent.parent / "WHEEL")
        res[pkg] = {
            "wheel": wheel.read_text().strip() if wheel.exists() else "?",
            "files": len(files),
            "seconds": round(time.time() - t0, 1),
            "findings": len(rr.findings),
            "by_code": dict(sorted(by_code.items())),
            "by_api": [f"{c} {a}: {n}" for (c, a), n in by_api.most_common()],
            "sample": [{"where": f"{os.path.relpath(f.path, root)}:{f.line}", "code": f.code,
                        "exporters": list(f.exporters), "message": f.message[:200]} for f in pick],
            "errors": rr.errors[:3],
        }
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-export", action="store_true", help="skip the real exports (no torch needed)")
    ap.add_argument("--no-corpus", action="store_true", help="skip timm/transformers")
    ap.add_argument("--sample", type=int, default=20, help="corpus findings to print for a hand check")
    ap.add_argument("--json", help="also write everything as JSON here")
    a = ap.parse_args(argv)
    tb = optable.load()
    if tb is None:
        print("rules/op_support.json is missing: run `exportlint ops generate`", file=sys.stderr)
        return 2
    report: dict = {}
    print("== 1. table sizes ==")
    sizes = table_sizes(tb)
    report["sizes"] = sizes
    for k, v in sizes.items():
        print(f"{k}: {v}")

    print("\n== 2. static finding vs real export (one-line models) ==")
    rows, ok = static_vs_real(not a.no_export)
    report["cases"] = rows
    w = max(len(r["api"]) for r in rows)
    for r in rows:
        real = r.get("real")
        mark = "" if real is None else ("agree" if r["agree"] else "DISAGREE")
        print(f"{r['api']:<{w}}  static {','.join(r['static']) or '-':<40} real "
              f"{(','.join(real) or '-') if real is not None else 'n/a':<40} {mark}")
        if real is not None and not r["agree"]:
            for e, v in r["errors"].items():
                print(f"    {e}: {v}")
    if not a.no_export:
        n_agree = sum(1 for r in rows if r["agree"])
        n_fail = sum(1 for r in rows if r.get("real"))
        print(f"agreement: {n_agree}/{len(rows)} ({n_fail} APIs fail with at least one exporter)")

    if not a.no_corpus:
        print("\n== 3. EXL4xx on timm/models and transformers/models ==")
        paths = ensure_corpus()
        cres = corpus_findings(paths, a.sample)
        report["corpus"] = cres
        for pkg, r in cres.items():
            print(f"{pkg}/models ({r['wheel']}): {r['files']} files, {r['findings']} findings {r['by_code']} ({r['seconds']}s)")
            for line in r["by_api"][:25]:
                print(f"    {line}")
        print("\nsample for a hand check:")
        for pkg, r in cres.items():
            for s in r["sample"]:
                print(f"  [{pkg}] {s['where']} {s['code']} {','.join(s['exporters'])}: {s['message']}")
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=1, sort_keys=True))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
