#!/usr/bin/env python3
"""Scoreboard: exportlint's static predictions versus real exporter outcomes on ExportDB.

ExportDB ships in torch (``torch/_export/db/examples/``): small nn.Modules, each with
``model``, ``example_args`` (optionally ``example_kwargs``, ``dynamic_shapes``,
``extra_inputs``), ``tags`` and a ``support_level`` that speaks of torch.export only. This
script scores exportlint against what really happens:

1. **lint** the folder of the installed torch (found with importlib, torch is not imported
   here) through the exportlint CLI (``--format json --no-cache``, all four exporters);
2. **export** every example with ``export-strict``, ``export-nonstrict``, ``onnx-dynamo``
   and ``onnx-legacy`` in one subprocess per example (at most 2 at a time, a timeout per
   example), then run the exported program / ONNX file (onnxruntime) on the example input,
   on ``extra_inputs``, on negated values and (for declared dynamic dimensions) on a
   larger size, and compare with eager: a mismatch or a rejected valid input is
   ``diverged``, which counts as a failure;
3. **score**: an exporter is *predicted to fail* when an error-severity finding names it.
   Per example and exporter: the real outcome (pass / fail: first line of the error /
   diverged) next to the prediction (code:line of the finding), disagreements marked;
   then agreement per exporter and in total, false alarms and misses (the latter split
   into causes inside exportlint's rule families and outside them), each explained.

Real outcomes are cached in ``bench/.corpus/exportdb_outcomes.json`` (git-ignored), keyed
by the torch / onnx / onnxscript / onnxruntime versions and each example's content hash;
``--refresh`` recomputes them. This is a report, not a test: the exit status is 0.

Usage: python bench/exportdb_scoreboard.py [--refresh] [--only NAME ...] [-j 2]
       [--timeout 240] [--json OUT] [-v]
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "bench" / ".corpus" / "exportdb_outcomes.json"
EXPORTERS = ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")
SHORT = {"export-strict": "strict", "export-nonstrict": "nonstrict", "onnx-dynamo": "dynamo",
         "onnx-legacy": "legacy"}
FAILED = ("fail", "diverged")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
#: bump when the worker's notion of an outcome changes (invalidates the cache)
WORKER_VERSION = 4

# ---------------------------------------------------------------------------------------
# Why the disagreements happen (hand-written after reading each one; keyed by example and
# exporter, "*" for all). "family": the cause is in exportlint's rule families (a rule
# should have caught it / should not have fired: there is a test in
# tests/test_rules_precision.py); "outside": the cause is not something a rule family
# covers (an input-structure issue, a higher-order op, an exporter limitation).
# ---------------------------------------------------------------------------------------
_COND_LEGACY = ("outside", "op table gap: torch.cond / functorch control_flow (higher-order ops) fail onnx-legacy "
                "('Detected that you are using FX to torch.jit.trace a dynamo-optimized function'); the EXL401 table "
                "does not probe higher-order ops (xfail test_exportdb_torch_cond_fails_onnx_legacy proposes it)")
EXPLAIN: dict[tuple[str, str], tuple[str, str]] = {
    # ----- false alarms
    ("assume_constant_result", "*"): (
        "family", "EXL102 names all four, but the `.item()` sits in a @torch._dynamo.assume_constant_result function: "
        "non-strict keeps an unbacked symbol, onnx-dynamo follows it, the legacy trace stays dynamic; only strict "
        "bakes the value (the decorator's contract)"),
    ("autograd_function", "onnx-legacy"): (
        "family", "EXL202 on a pure-torch autograd.Function: the legacy exporter inlines it "
        "(FP pattern P-PURE, test_exl202_pure_torch_forward)"),
    ("constrain_as_size_example", "*"): (
        "family", "EXL102 on `.item()` bounded by torch._check and used as a size: all four export it, the legacy "
        "trace keeps the size dynamic (test_exl102_item_names_only_exporters_that_fail)"),
    ("constrain_as_value_example", "*"): (
        "family", "EXL101 on `if a < 6` after torch._check(a <= 5) (always true) and EXL102 on the `.item()`: all "
        "four export correctly (test_exl101_branch_decided_by_torch_check_bounds)"),
    ("model_attr_mutation", "*"): (
        "family", "EXL203 on an attribute assigned before it is read in the same forward: recomputed every call, "
        "all four correct (FP pattern P-WBR, test_exl203_write_before_read_in_same_call)"),
    # ----- misses
    ("cond_branch_class_method", "onnx-legacy"): _COND_LEGACY,
    ("cond_branch_nested_function", "onnx-legacy"): _COND_LEGACY,
    ("cond_branch_nonlocal_variables", "onnx-legacy"): _COND_LEGACY,
    ("cond_closed_over_variable", "onnx-legacy"): _COND_LEGACY,
    ("cond_operands", "onnx-legacy"): _COND_LEGACY,
    ("cond_predicate", "onnx-legacy"): _COND_LEGACY,
    ("dynamic_shape_map", "onnx-legacy"): _COND_LEGACY,
    ("dynamic_shape_map", "onnx-dynamo"): (
        "outside", "op table gap: the functorch map higher-order op has no ONNX translation (step 3/3)"),
    ("dynamic_shape_round", "*"): (
        "family", "EXL111: round() of a dimension declared dynamic specialises it; the rule does not read the "
        "module-level `dynamic_shapes` and does not treat round(shape) as a specialisation "
        "(test_exportdb_dynamic_shape_round)"),
    ("fn_with_kwargs", "onnx-legacy"): (
        "outside", "input structure: the legacy exporter does not bind *args / keyword-only / **kwargs inputs"),
    ("unsupported_operator", "onnx-legacy"): (
        "outside", "op table gap: torch.sym_min on a size is not traceable by the legacy exporter (AssertionError "
        "in the tracer); the EXL401 table does not probe torch.sym_* functions"),
}


# ---------------------------------------------------------------------------------------
# discovery and metadata (no torch import)
# ---------------------------------------------------------------------------------------
def exportdb_dir() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("torch is not installed")
    d = Path(list(spec.submodule_search_locations)[0]) / "_export" / "db" / "examples"
    if not d.is_dir():
        sys.exit(f"no ExportDB examples in {d}")
    return d


def versions() -> str:
    out = []
    for p in ("torch", "onnx", "onnxscript", "onnxruntime"):
        try:
            out.append(f"{p}=={importlib.metadata.version(p)}")
        except importlib.metadata.PackageNotFoundError:
            out.append(f"{p}==absent")
    return " ".join(out) + f" worker={WORKER_VERSION}"


def example_meta(path: Path) -> dict:
    """support_level and tags read from the source (no import)."""
    meta = {"support_level": "SUPPORTED", "tags": []}
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError:
        return meta
    for st in tree.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            name = st.targets[0].id
            if name == "support_level" and isinstance(st.value, ast.Attribute):
                meta["support_level"] = st.value.attr
            elif name == "tags":
                try:
                    meta["tags"] = sorted(ast.literal_eval(st.value))
                except ValueError:
                    pass
    return meta


# ---------------------------------------------------------------------------------------
# lint (exportlint CLI in a subprocess)
# ---------------------------------------------------------------------------------------
def lint(files: list[Path]) -> list[dict]:
    cmd = [sys.executable, "-m", "exportlint", *map(str, files), "--format", "json", "--no-cache", "--exit-zero",
           "-j", "1", "--target-exporters", ",".join(EXPORTERS)]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=str(ROOT))
    try:
        data = json.loads(p.stdout)
    except ValueError:
        print(f"(exportlint failed: rc={p.returncode}\n{p.stderr[-2000:]})", file=sys.stderr)
        return []
    return data["findings"] if isinstance(data, dict) else data


# ---------------------------------------------------------------------------------------
# the worker: one example, four exporters, in its own process
# ---------------------------------------------------------------------------------------
def _first_line(msg: str) -> str:
    for ln in str(msg).splitlines():
        ln = ln.strip()
        if ln:
            return ln[:200]
    return ""


def worker(path: str, out_path: str) -> int:  # noqa: C901 - one linear recipe
    import contextlib
    import copy
    import io
    import traceback
    import warnings

    import torch
    from torch.utils import _pytree as pytree

    results: dict = {"outcomes": {}}

    def save() -> None:
        tmp = out_path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(results, fh)
        os.replace(tmp, out_path)

    try:
        from exportlint.confirm.locate import UserFiles, locate_direct
        users = UserFiles([os.path.dirname(path)], [path])
    except Exception:  # noqa: BLE001 - locating is a bonus
        users = None
        locate_direct = None

    real = os.path.realpath(path)

    def locate(exc: BaseException) -> tuple[int, list[int]]:
        lines: list[int] = []
        if locate_direct is not None:
            try:
                loc = locate_direct(exc, users)
            except Exception:  # noqa: BLE001
                loc = None
            if loc is not None:
                lines = [ln for p, ln in loc.stack if os.path.realpath(p) == real]
                if os.path.realpath(loc.path) == real and loc.line not in lines:
                    lines.insert(0, loc.line)
        if not lines:
            e = exc
            seen = set()
            while e is not None and id(e) not in seen:
                seen.add(id(e))
                for fs in reversed(traceback.extract_tb(e.__traceback__)):
                    if os.path.realpath(fs.filename) == real and fs.lineno not in lines:
                        lines.append(fs.lineno)
                e = e.__cause__ or e.__context__
        return (lines[0] if lines else 0), lines

    spec = importlib.util.spec_from_file_location("exportdb_" + Path(path).stem, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dynamo (strict) looks the module up by name
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            spec.loader.exec_module(mod)
        model = mod.model
        if isinstance(model, type):
            model = model()
        if isinstance(model, torch.nn.Module):
            model = model.eval()
        pristine = copy.deepcopy(model)
    except Exception as e:  # noqa: BLE001
        results["load_error"] = f"{type(e).__name__}: {_first_line(e)}"
        save()
        return 0
    args = tuple(getattr(mod, "example_args", ()))
    kwargs = dict(getattr(mod, "example_kwargs", None) or {})
    ds = getattr(mod, "dynamic_shapes", None)

    def clone(tree):
        return pytree.tree_map(lambda t: t.clone() if isinstance(t, torch.Tensor) else t, tree)

    def leaves(tree):
        out = []
        for x in pytree.tree_leaves(tree):
            if isinstance(x, torch.Tensor):
                out.append(x.detach())
            elif isinstance(x, (bool, int, float)):
                out.append(torch.tensor(x))
        return out

    def eager(a, k):
        m = copy.deepcopy(pristine)
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return leaves(m(*clone(a), **clone(k)))

    def same(ref, got) -> str:
        if len(ref) != len(got):
            return f"{len(got)} outputs, eager has {len(ref)}"
        for i, (r, g) in enumerate(zip(ref, got)):
            g = torch.as_tensor(g)
            if tuple(r.shape) != tuple(g.shape) and not (r.numel() == g.numel() == 1):
                return f"output {i}: shape {tuple(g.shape)}, eager {tuple(r.shape)}"
            g = g.reshape(r.shape)
            if r.dtype == torch.bool or not r.is_floating_point():
                if not torch.equal(r.to(torch.float64), g.to(torch.float64)):
                    return f"output {i}: values differ"
            elif not torch.allclose(r.double(), g.double(), rtol=1e-3, atol=1e-4, equal_nan=True):
                return f"output {i}: max abs diff {(r.double() - g.double()).abs().max().item():.3g}"
        return ""

    # inputs to compare on: (name, args, kwargs, is_dynamic_size_variant)
    variants = [("example input", args, kwargs, False)]
    extra = getattr(mod, "extra_inputs", None)
    if isinstance(extra, tuple):
        variants.append(("extra_inputs", extra, kwargs, True))

    def neg(t):
        return -t if isinstance(t, torch.Tensor) and t.is_floating_point() else t
    if any(isinstance(t, torch.Tensor) and t.is_floating_point() for t in pytree.tree_leaves((args, kwargs))):
        variants.append(("negated values", pytree.tree_map(neg, args), pytree.tree_map(neg, kwargs), False))

    def halve(t):  # integer inputs are often counts / sizes / indices: a smaller valid value
        if isinstance(t, torch.Tensor) and not t.is_floating_point() and t.dtype != torch.bool:
            return t // 2
        return t
    if any(isinstance(t, torch.Tensor) and not t.is_floating_point() and t.dtype != torch.bool
           for t in pytree.tree_leaves((args, kwargs))):
        variants.append(("integer values halved", pytree.tree_map(halve, args), pytree.tree_map(halve, kwargs), False))
    if isinstance(ds, dict):
        names = list(ds)
        grown = list(args)
        changed = False
        for i, name in enumerate(names[: len(grown)]):
            dims = ds[name]
            t = grown[i]
            if isinstance(dims, dict) and isinstance(t, torch.Tensor):
                for d in dims:
                    idx = torch.arange(t.shape[d] + 1) % t.shape[d]
                    t = t.index_select(d, idx)
                    changed = True
                grown[i] = t
        if changed:
            variants.append(("dynamic dims +1", tuple(grown), kwargs, True))
    refs = []
    for name, a, k, dyn in variants:
        try:
            refs.append((name, a, k, dyn, eager(a, k)))
        except Exception as e:  # noqa: BLE001
            if name == "example input":
                results["load_error"] = f"eager run failed: {type(e).__name__}: {_first_line(e)}"
                save()
                return 0
    results["checked_on"] = [r[0] for r in refs]

    def legacy_axes():
        if not isinstance(ds, dict):
            return None, None
        names = [f"in{i}" for i in range(len(leaves((args, kwargs))))]
        axes = {}
        for i, d in enumerate(list(ds.values())[: len(names)]):
            if isinstance(d, dict) and d:
                axes[names[i]] = [int(x) for x in d]
        return names, axes or None

    def ort_runner(proto):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        opts.intra_op_num_threads = 1
        sess = ort.InferenceSession(proto.SerializeToString(), opts, providers=["CPUExecutionProvider"])
        names = [i.name for i in sess.get_inputs()]

        def run(a, k):
            ins = [t for t in pytree.tree_leaves((a, k)) if isinstance(t, torch.Tensor)]
            if len(ins) != len(names):
                raise LookupError(f"the ONNX model has {len(names)} inputs, the example has {len(ins)} tensors")
            outs = sess.run(None, {n: t.detach().numpy() for n, t in zip(names, ins)})
            return [torch.from_numpy(o) if hasattr(o, "dtype") else torch.tensor(o) for o in outs]
        return run

    for exporter in EXPORTERS:
        o: dict = {"status": "pass"}
        t0 = time.perf_counter()
        caught: list = []
        try:
            m = copy.deepcopy(pristine)
            a, k = clone(args), clone(kwargs)
            with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()):
                warnings.simplefilter("always")
                if exporter.startswith("export-"):
                    ep = torch.export.export(m, a, k or None, dynamic_shapes=ds, strict=exporter == "export-strict")
                    gm = ep.module()

                    def run(a2, k2, gm=gm):
                        with torch.no_grad():
                            return leaves(gm(*clone(a2), **clone(k2)))
                elif exporter == "onnx-dynamo":
                    prog = torch.onnx.export(m, a, kwargs=k or None, dynamic_shapes=ds, dynamo=True, verbose=False)
                    run = ort_runner(prog.model_proto)
                else:
                    import onnx

                    names, axes = legacy_axes()
                    buf = io.BytesIO()
                    torch.onnx.export(m, a, buf, kwargs=k or None, dynamo=False, verbose=False,
                                      input_names=names, dynamic_axes=axes)
                    run = ort_runner(onnx.load_from_string(buf.getvalue()))
        except Exception as e:  # noqa: BLE001
            line, lines = locate(e)
            o = {"status": "fail", "error": f"{type(e).__name__}: {_first_line(e)}", "line": line, "lines": lines}
        else:
            for name, a2, k2, dyn, ref in refs:
                try:
                    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                        warnings.simplefilter("ignore")
                        got = run(a2, k2)
                except LookupError as e:
                    o.setdefault("not_compared", f"{e}")
                    break
                except Exception as e:  # noqa: BLE001
                    if name == "example input" or dyn:
                        o = {"status": "diverged",
                             "error": f"on {name}: the exported program raised {type(e).__name__}: {_first_line(e)}"}
                        break
                    continue
                diff = same(ref, got)
                if diff:
                    o = {"status": "diverged", "error": f"on {name}: {diff}"}
                    break
        tw = []
        for w in caught or ():
            if os.path.realpath(getattr(w, "filename", "")) == real and "Tracer" in type(w.message).__name__:
                tw.append(w.lineno)
        if tw:
            o["tracer_warning_lines"] = sorted(set(tw))
            if o["status"] == "diverged":  # a trace that baked a value: the TracerWarning names the line
                o["lines"] = o["tracer_warning_lines"]
                o["line"] = o["lines"][0]
        o["seconds"] = round(time.perf_counter() - t0, 2)
        results["outcomes"][exporter] = o
        save()
    return 0


def run_example(path: Path, timeout: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="exportdb-") as tmp:
        out = os.path.join(tmp, "out.json")
        env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
                   PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        t0 = time.perf_counter()
        try:
            p = subprocess.run([sys.executable, __file__, "--worker", str(path), out], capture_output=True,
                               text=True, timeout=timeout, env=env, cwd=tmp)
            rc, tail = p.returncode, (p.stderr or "")[-1500:]
        except subprocess.TimeoutExpired:
            rc, tail = "timeout", ""
        res = {"outcomes": {}}
        if os.path.exists(out):
            with open(out, encoding="utf-8") as fh:
                res = json.load(fh)
        for e in EXPORTERS:
            if e not in res["outcomes"] and "load_error" not in res:
                res["outcomes"][e] = ({"status": "timeout", "error": f"example timed out after {timeout:.0f}s"}
                                      if rc == "timeout" else
                                      {"status": "error", "error": f"worker died (rc={rc}): {_first_line(tail[-300:])}"})
        res["wall"] = round(time.perf_counter() - t0, 1)
        return res


# ---------------------------------------------------------------------------------------
# scoring and report
# ---------------------------------------------------------------------------------------
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--refresh", action="store_true", help="recompute the real outcomes (ignore the cache)")
    ap.add_argument("--only", action="append", default=[], help="example name (file stem); repeatable")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="worker processes (at most 2)")
    ap.add_argument("--timeout", type=float, default=240.0, help="seconds per example (all four exporters)")
    ap.add_argument("--json", help="write rows and totals to this file")
    ap.add_argument("-v", "--verbose", action="store_true", help="also print the agreeing rows' messages")
    ap.add_argument("--worker", nargs=2, metavar=("EXAMPLE", "OUT"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        return worker(*a.worker)

    d = exportdb_dir()
    files = sorted(p for p in d.glob("*.py") if p.name != "__init__.py" and (not a.only or p.stem in a.only))
    t0 = time.perf_counter()
    findings = lint(files)
    lint_s = time.perf_counter() - t0
    by_file: dict[str, list[dict]] = {}
    for f in findings:
        by_file.setdefault(Path(f["path"]).stem, []).append(f)

    # real outcomes, cached per versions and content hash
    key = versions()
    cache: dict = {}
    if CACHE.exists() and not a.refresh:
        try:
            cache = json.loads(CACHE.read_text(encoding="utf-8"))
        except ValueError:
            cache = {}
    store = cache.setdefault(key, {})
    todo = []
    for p in files:
        sha = hashlib.sha256(p.read_bytes()).hexdigest()[:16]
        if a.refresh or store.get(p.stem, {}).get("sha") != sha:
            todo.append((p, sha))
    if todo:
        jobs = max(1, min(2, a.jobs))
        print(f"exporting {len(todo)} examples x 4 exporters ({jobs} workers, {a.timeout:.0f}s each)...",
              file=sys.stderr, flush=True)
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            futs = {pool.submit(run_example, p, a.timeout): (p, sha) for p, sha in todo}
            for fut in concurrent.futures.as_completed(futs):
                p, sha = futs[fut]
                res = fut.result()
                res["sha"] = sha
                store[p.stem] = res
                print(f"  {p.stem}: {res['wall']}s", file=sys.stderr, flush=True)
                CACHE.parent.mkdir(parents=True, exist_ok=True)
                CACHE.write_text(json.dumps({key: store}, indent=1, sort_keys=True), encoding="utf-8")

    print(f"ExportDB  {d}")
    print(f"versions  {key}")
    print(f"lint      {len(files)} files, {len(findings)} findings, {lint_s:.1f}s (exportlint CLI, all four exporters)")
    print("prediction: an error finding that names the exporter = 'predicted to fail'; "
          "warnings are shown in (parentheses) and do not count")
    print("outcome: pass | fail (export raised; @N = the example's line it was located at) | "
          "diverged (exported program != eager, or rejected a valid input)")
    print()

    rows = []
    agree = {e: [0, 0] for e in EXPORTERS}
    agree_w = {e: [0, 0] for e in EXPORTERS}
    false_alarms, misses, at_line, off_line, not_located, unscored = [], [], [], [], [], []
    for p in files:
        name = p.stem
        meta = example_meta(p)
        res = store.get(name, {})
        fs = [f for f in by_file.get(name, []) if not f["code"].startswith("EXL9")]
        print(f"{name}  [{meta['support_level']}; {', '.join(meta['tags']) or 'no tags'}]")
        if res.get("load_error"):
            print(f"    (not scored: {res['load_error']})")
            unscored.append(name)
            continue
        for e in EXPORTERS:
            o = res.get("outcomes", {}).get(e, {"status": "error", "error": "no result"})
            errs = [f for f in fs if f["severity"] == "error" and e in f["exporters"]]
            warns = [f for f in fs if f["severity"] != "error" and e in f["exporters"]]
            st = o["status"]
            real_fail = st in FAILED
            pred_fail = bool(errs)
            outcome = st
            if st in FAILED and o.get("line"):
                outcome = f"{st}@{o['line']}"
            msg = _ANSI.sub("", o.get("error", ""))
            pred = ", ".join(f"{f['code']}:{f['line']}" for f in errs) or "-"
            if warns:
                pred += "  (" + ", ".join(f"{f['code']}:{f['line']}" for f in warns) + ")"
            mark = "  "
            note = ""
            if st not in ("pass",) + FAILED:
                mark = "? "
                unscored.append(f"{name}/{e}")
            else:
                agree[e][1] += 1
                agree_w[e][1] += 1
                agree[e][0] += real_fail == pred_fail
                agree_w[e][0] += real_fail == bool(errs or warns)
                if real_fail != pred_fail:
                    mark = "✗ "
                    why = EXPLAIN.get((name, e)) or EXPLAIN.get((name, "*"))
                    where, text = why if why else ("unexplained", "no explanation recorded yet")
                    entry = {"example": name, "exporter": e, "where": where, "why": text, "error": msg,
                             "finding": pred}
                    if pred_fail:
                        false_alarms.append(entry)
                    else:
                        misses.append(entry)
                    note = f"  <- {'false alarm' if pred_fail else 'miss'} [{where}] (explained below)"
                elif real_fail and pred_fail:
                    lines = set(o.get("lines") or ([o["line"]] if o.get("line") else []))
                    hit = [f for f in errs if f["line"] in lines]
                    (at_line if hit else off_line if lines else not_located).append(f"{name}/{e}")
                    if lines and not hit:
                        note = f"  <- predicted, but not at the failing line(s) {sorted(lines)}"
            print(f"  {mark}{SHORT[e]:9s} {outcome:12s} pred: {pred:24s}"
                  + (f" | {msg[:110]}" if msg and (real_fail or a.verbose or mark != '  ') else "") + note)
            rows.append({"example": name, "exporter": e, "outcome": st, "message": msg, "line": o.get("line"),
                         "lines": o.get("lines"), "predicted": pred_fail, "errors": errs, "warnings": warns,
                         "support_level": meta["support_level"], "tags": meta["tags"]})

    print()
    print("agreement (real fail/diverged == error finding names the exporter):")
    tot = [0, 0]
    for e in EXPORTERS:
        n, m = agree[e]
        tot[0] += n
        tot[1] += m
        w = agree_w[e]
        print(f"  {e:17s} {n:3d}/{m:<3d} {100 * n / max(m, 1):5.1f}%   (counting warnings too: {w[0]}/{w[1]})")
    print(f"  {'total':17s} {tot[0]:3d}/{tot[1]:<3d} {100 * tot[0] / max(tot[1], 1):5.1f}%")
    real_failures = sum(1 for r in rows if r["outcome"] in FAILED)
    print(f"real failures: {real_failures} (fail {sum(r['outcome'] == 'fail' for r in rows)}, "
          f"diverged {sum(r['outcome'] == 'diverged' for r in rows)}); predicted and located at the "
          f"predicted line: {len(at_line)}; predicted elsewhere: {len(off_line)}"
          + (f" ({', '.join(off_line)})" if off_line else "")
          + f"; predicted, failure not located in the file: {len(not_located)}"
          + (f" ({', '.join(not_located)})" if not_located else ""))
    if unscored:
        print(f"not scored (timeout / worker error / example does not load): {', '.join(unscored)}")
    print()
    def grouped(items: list[dict], indent: str) -> None:
        groups: dict[tuple[str, str], list[str]] = {}
        for x in items:
            groups.setdefault((x["where"], x["why"]), []).append(f"{x['example']}/{SHORT[x['exporter']]}")
        for (where, why), who in groups.items():
            print(f"{indent}{len(who)} x [{where}] {why}")
            print(f"{indent}    {', '.join(who)}")

    print(f"false alarms (error predicted, the exporter passed): {len(false_alarms)}")
    grouped(false_alarms, "  ")
    fam = [x for x in misses if x["where"] == "family"]
    out = [x for x in misses if x["where"] != "family"]
    print(f"misses (the exporter failed, no error predicted): {len(misses)}")
    print(f"  cause in exportlint's rule families: {len(fam)}")
    grouped(fam, "    ")
    print(f"  cause outside them: {len(out)}")
    grouped(out, "    ")
    if a.json:
        Path(a.json).write_text(json.dumps({"versions": key, "rows": rows, "false_alarms": false_alarms,
                                            "misses": misses, "agreement": agree}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
