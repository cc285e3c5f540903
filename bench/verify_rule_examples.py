#!/usr/bin/env python3
"""Run every example in ``rules/EXL*.md`` through the real exporters and check its label.

For each rule page (EXL4xx / EXL9xx pages are owned elsewhere and skipped) the fenced
```python blocks under "## Bad example" and "## Good example" are extracted.

* Model examples (every family except EXL5xx) are modules defining ``class Model`` and
  ``example_args`` (optionally ``example_kwargs``, ``dynamic_shapes`` in torch.export form,
  and ``check_args``: a list of argument tuples to compare on). Each one runs in its own
  subprocess through the four exporters -- torch.export strict / non-strict,
  torch.onnx.export(dynamo=True) and torch.onnx.export(dynamo=False) -- and the exported
  program (``ep.module()``) or ONNX file (onnxruntime) is then run on the example input
  and on second inputs (negated / re-drawn values, or ``check_args``) and compared with
  eager.  Result per exporter: ``pass``, ``fail`` (export raised), ``run-error`` (the
  exported artifact raised on a check input), ``diverged`` (numbers differ from eager).
* Script examples (EXL5xx) are export scripts; each runs in a subprocess with
  torch.onnx.export / torch.export.export wrapped so that every export call is recorded.
  A successful ONNX export is run in onnxruntime and compared with the model in eval mode
  (what the exported file is for).  Reported: exception, warnings, divergence.

Labels checked:
* a bad example must fail / run-error / diverge with at least one exporter its page lists
  (``Exporters:`` line under the title); a bad script must raise, warn (beyond the legacy
  exporter's standing DeprecationWarning) or diverge;
* a good example must pass with all four exporters (a page may narrow this with a
  ``Good example exporters:`` line); a good script must run clean.

Usage:  python bench/verify_rule_examples.py [CODE ...] [-v] [--json OUT] [-j 2]
Prints per example one line per exporter, then ``N passed, M failed``.
Exit status 0 when every example behaves as labelled, 1 otherwise.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES_DIR = ROOT / "rules"
EXPORTERS = ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")
SENTINEL = "@@VERIFY-RESULT@@"
SKIP_PAGE = re.compile(r"^EXL[49]\d\d$")
BAD_STATUSES = ("fail", "run-error", "diverged", "device")
DEVICE_ERROR = re.compile(
    r"not on the expected device|Expected all tensors to be on the same device|device mismatch"
    r"|found at least two devices|not compiled with CUDA|not linked with support for cuda",
    re.I,
)
#: warnings that every legacy export prints; they do not count as "the script warned"
BASELINE_WARNINGS = (
    "You are using the legacy TorchScript-based ONNX export",
    "legacy TorchScript-based ONNX export",
)


# --------------------------------------------------------------------------------------
# page parsing
# --------------------------------------------------------------------------------------
@dataclass
class Example:
    code: str
    kind: str  # "bad" | "good"
    index: int
    source: str
    md_line: int  # line of the opening fence in the page
    is_script: bool
    exporters: tuple[str, ...]  # exporters the label is checked against

    @property
    def expect_exports(self) -> bool:
        """A bad example marked ``# verify: exports`` documents a pattern that exports
        everywhere (its harm is a dropped side effect); it must pass all exporters."""
        return "# verify: exports" in self.source
    @property
    def label(self) -> str:
        return f"{self.code} {self.kind}#{self.index} (line {self.md_line})"


@dataclass
class Page:
    code: str
    name: str
    path: Path
    severity: str = ""
    exporters: tuple[str, ...] = ()
    good_exporters: tuple[str, ...] = EXPORTERS
    examples: list[Example] = field(default_factory=list)


def _exporter_list(text: str) -> tuple[str, ...]:
    names = tuple(n for n in re.findall(r"[a-z]+-[a-z]+", text) if n in EXPORTERS)
    return names


def parse_page(path: Path) -> Page:
    lines = path.read_text(encoding="utf-8").splitlines()
    m = re.match(r"^# (EXL\d{3}): ([a-z0-9-]+)\s*$", lines[0]) if lines else None
    if not m:
        raise ValueError(f"{path}: first line must be '# EXLnnn: kebab-name'")
    page = Page(code=m.group(1), name=m.group(2), path=path)
    section = ""
    counters = {"bad": 0, "good": 0}
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            section = line[3:].strip().lower()
        elif not section:
            sm = re.match(r"^Severity:\s*\**(\w+)", line)
            if sm:
                page.severity = sm.group(1).lower()
            em = re.match(r"^Exporters:\s*(.*)$", line)
            if em:
                page.exporters = _exporter_list(em.group(1))
            gm = re.match(r"^Good example exporters:\s*(.*)$", line)
            if gm:
                page.good_exporters = _exporter_list(gm.group(1))
        if line.strip() == "```python" and section in ("bad example", "good example"):
            start = i + 1
            j = start
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            kind = section.split()[0]
            counters[kind] += 1
            page.examples.append(
                Example(
                    code=page.code,
                    kind=kind,
                    index=counters[kind],
                    source="\n".join(lines[start:j]) + "\n",
                    md_line=i + 1,
                    is_script=page.code.startswith("EXL5"),
                    exporters=page.exporters if kind == "bad" else page.good_exporters,
                )
            )
            i = j
        i += 1
    return page


def load_pages(codes: list[str], rules_dir: Path = RULES_DIR) -> list[Page]:
    pages = []
    for path in sorted(Path(rules_dir).glob("EXL*.md")):
        code = path.stem
        if SKIP_PAGE.match(code):
            continue
        if codes and code not in codes:
            continue
        pages.append(parse_page(path))
    return pages


# --------------------------------------------------------------------------------------
# child: model examples
# --------------------------------------------------------------------------------------
ANSI = re.compile(r"\x1b\[[0-9;]*m")
#: warnings torch prints on every run; never informative for a rule
NOISE_WARNINGS = (
    "The feature will be removed. Please remove usage of this function",
    "isinstance(treespec, LeafSpec)",
)


def _clean(text: str) -> str:
    return ANSI.sub("", text)


class _LoadError(Exception):
    """The export succeeded but onnxruntime cannot create a session for the file."""


def _first_line(exc: BaseException) -> str:
    text = _clean(str(exc)).strip()
    first = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {first}"[:300]


def _child_model(path: str) -> dict:
    import contextlib
    import importlib.util
    import io
    import warnings

    import numpy as np
    import torch
    from torch.utils import _pytree as pytree

    warnings.filterwarnings("ignore", category=FutureWarning, module="onnxscript")
    spec = importlib.util.spec_from_file_location("rule_example", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["rule_example"] = mod
    try:
        spec.loader.exec_module(mod)  # type: ignore[union-attr]
    except Exception as exc:  # noqa: BLE001 - e.g. the EXL001 examples do not even import
        err = {"status": "fail", "error": "import: " + _first_line(exc), "message": _clean(str(exc))}
        return {e: dict(err, warnings=[]) for e in EXPORTERS}
    Model = mod.Model
    args = tuple(mod.example_args)
    kwargs = dict(getattr(mod, "example_kwargs", {}) or {})
    dyn = getattr(mod, "dynamic_shapes", None)

    def alt(t):
        if not isinstance(t, torch.Tensor):
            return t
        if t.dtype == torch.bool:
            return ~t
        if t.is_floating_point():
            return -t
        return t + 1

    def redraw(t):
        if isinstance(t, torch.Tensor) and t.is_floating_point():
            g = torch.Generator().manual_seed(1234)
            return torch.randn(t.shape, generator=g, dtype=t.dtype) * 3
        return t

    check_sets = [(args, kwargs)]
    if getattr(mod, "check_args", None) is not None:
        for ca in mod.check_args:
            if isinstance(ca, dict):
                check_sets.append((tuple(ca.get("args", ())), dict(ca.get("kwargs", {}))))
            else:
                check_sets.append((tuple(ca), kwargs))
    else:
        check_sets.append((pytree.tree_map(alt, args), pytree.tree_map(alt, kwargs)))
        check_sets.append((pytree.tree_map(redraw, args), pytree.tree_map(redraw, kwargs)))

    def fresh():
        torch.manual_seed(0)
        m = Model()
        m.eval()
        return m

    def tensors(obj):
        return [t for t in pytree.tree_leaves(obj) if isinstance(t, torch.Tensor)]

    def compare(ref, got) -> str | None:
        def as_np(t):
            if isinstance(t, torch.Tensor):
                t = t.detach().cpu()
                return (t.float() if t.dtype in (torch.bfloat16, torch.float16) else t).numpy()
            return np.asarray(t)

        ref_t = [as_np(t) for t in tensors(ref)]
        got_t = [as_np(g) for g in got]
        if len(ref_t) != len(got_t):
            return f"{len(got_t)} outputs, eager has {len(ref_t)}"
        for k, (r, g) in enumerate(zip(ref_t, got_t)):
            if r.shape != g.shape:
                return f"output {k} shape {tuple(g.shape)}, eager {tuple(r.shape)}"
            if r.dtype == np.bool_ or np.issubdtype(r.dtype, np.integer):
                if not np.array_equal(r, g.astype(r.dtype)):
                    return f"output {k} values differ"
            elif not np.allclose(r, g.astype(r.dtype), rtol=1e-3, atol=1e-4, equal_nan=True):
                err = float(np.nanmax(np.abs(r - g.astype(r.dtype)))) if r.size else 0.0
                return f"output {k} differs (max abs err {err:.3g})"
        return None

    def _other_device_check():
        """Proxy for "model.to(device); export with inputs on that device".

        There is no GPU here, so the other device is ``meta``.  Only device errors count:
        data-dependent ops (``.item()``, ``nonzero``) cannot run on meta at all and say
        nothing about devices.  Every exporter runs forward (for real or with fake tensors
        carrying the device), so a module that mixes devices there fails all four.
        """
        to_meta = lambda t: t.to("meta") if isinstance(t, torch.Tensor) else t  # noqa: E731
        try:
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fresh().to("meta")(*pytree.tree_map(to_meta, args), **pytree.tree_map(to_meta, kwargs))
        except Exception as exc:  # noqa: BLE001
            msg = _first_line(exc)
            if DEVICE_ERROR.search(msg):
                return f"after model.to(other device): {msg}"
        return None

    def dynamic_axes_from(dyn_shapes, n_inputs):
        if dyn_shapes is None:
            return None, None
        names = [f"input_{k}" for k in range(n_inputs)]
        axes = {}
        specs = list(dyn_shapes.values()) if isinstance(dyn_shapes, dict) else list(dyn_shapes)
        for name, spec in zip(names, specs):
            if isinstance(spec, dict) and spec:
                axes[name] = {int(d): f"{name}_d{d}" for d in spec}
        return names, axes

    tmp = tempfile.mkdtemp(prefix="exl-verify-")
    device_problem = _other_device_check()
    results: dict[str, dict] = {}
    for exporter in EXPORTERS:
        res: dict = {"status": "pass"}
        out_buf, err_buf = io.StringIO(), io.StringIO()
        runner = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warnings.filterwarnings("ignore", category=FutureWarning, module="onnxscript")
            try:
                torch._dynamo.reset()
                model = fresh()
                with contextlib.redirect_stdout(out_buf), contextlib.redirect_stderr(err_buf):
                    if exporter.startswith("export-"):
                        ep = torch.export.export(
                            model, args, kwargs or None, dynamic_shapes=dyn, strict=exporter == "export-strict"
                        )
                        gm = ep.module()

                        def runner(a, kw, gm=gm):
                            return tensors(gm(*a, **kw))

                    elif exporter == "onnx-dynamo":
                        onnx_path = os.path.join(tmp, "dynamo.onnx")
                        prog = torch.onnx.export(model, args, kwargs=kwargs or None, dynamic_shapes=dyn, dynamo=True)
                        prog.save(onnx_path)
                    else:
                        onnx_path = os.path.join(tmp, "legacy.onnx")
                        flat_in = tensors((args, kwargs))
                        names, axes = dynamic_axes_from(dyn, len(flat_in))
                        torch.onnx.export(
                            model, args, onnx_path, kwargs=kwargs or None, dynamo=False,
                            input_names=names, dynamic_axes=axes,
                        )
                    if exporter.startswith("onnx-"):
                        import onnxruntime as ort

                        try:
                            sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
                        except Exception as exc:  # noqa: BLE001 - exported, but the runtime refuses it
                            raise _LoadError(exc) from exc

                        def runner(a, kw, sess=sess):
                            feeds = {}
                            ins = sess.get_inputs()
                            flat = [t.detach().numpy() for t in tensors((a, kw))]
                            if len(ins) != len(flat):
                                # inputs the exporter dropped (unused) or folded: match by order
                                flat = flat[: len(ins)]
                            for i_meta, v in zip(ins, flat):
                                feeds[i_meta.name] = v
                            return sess.run(None, feeds)

            except _LoadError as exc:
                inner = exc.args[0]
                res = {"status": "run-error", "error": "exported; onnxruntime cannot load it: " + _first_line(inner),
                       "message": _clean(str(inner))[:3000]}
            except Exception as exc:  # noqa: BLE001 - we report every exporter failure
                res = {"status": "fail", "error": _first_line(exc), "type": type(exc).__name__,
                       "message": _clean(str(exc))[:6000]}
            if runner is not None:
                ref_model = fresh()
                with torch.no_grad():
                    try:
                        ref_model(*args, **kwargs)  # export ran forward once; so does eager here
                    except Exception:
                        pass
                for n, (a, kw) in enumerate(check_sets):
                    try:
                        with torch.no_grad():
                            ref = ref_model(*a, **kw)
                    except Exception as exc:  # eager itself rejects this input
                        res.setdefault("notes", []).append(f"check {n}: eager raised {_first_line(exc)}")
                        continue
                    try:
                        with torch.no_grad(), contextlib.redirect_stdout(out_buf), contextlib.redirect_stderr(err_buf):
                            got = runner(a, kw)
                    except Exception as exc:  # noqa: BLE001
                        res = {"status": "run-error", "error": f"check input {n}: {_first_line(exc)}",
                               "message": str(exc)[:3000]}
                        break
                    diff = compare(ref, got)
                    if diff:
                        res = {"status": "diverged", "error": f"check input {n}: {diff}"}
                        break
                if res["status"] == "pass" and device_problem:
                    res = {"status": "device", "error": device_problem}
            res["warnings"] = sorted(
                {
                    f"{w.category.__name__}: {str(w.message).strip().splitlines()[0][:240]}"
                    + (f" ({os.path.basename(w.filename)}:{w.lineno})" if w.filename == path else "")
                    for w in caught
                    if not any(b in str(w.message) for b in BASELINE_WARNINGS + NOISE_WARNINGS)
                }
            )
        res["stdout"] = out_buf.getvalue()[-4000:]
        res["stderr"] = err_buf.getvalue()[-4000:]
        results[exporter] = res
    return results


# --------------------------------------------------------------------------------------
# child: export scripts (EXL5xx)
# --------------------------------------------------------------------------------------
def _child_script(path: str) -> dict:
    import contextlib
    import copy
    import io
    import runpy
    import traceback
    import warnings

    import numpy as np
    import torch
    from torch.utils import _pytree as pytree

    calls: list[dict] = []
    opset_notes: list[str] = []
    export_divergence: list[str] = []
    orig_onnx = torch.onnx.export
    orig_export = torch.export.export

    def snapshot(model):
        try:
            return copy.deepcopy(model)
        except Exception:  # noqa: BLE001
            return None

    depth = [0]

    def onnx_wrapper(model, args=(), f=None, *a, **kw):
        rec = {"api": "torch.onnx.export", "dynamo": kw.get("dynamo", True), "f": None if f is None else str(f),
               "training_mode_model": bool(getattr(model, "training", False)),
               "model_type": type(model).__name__}
        calls.append(rec)
        rec["_model"] = snapshot(model)
        rec["_args"] = args
        rec["_kwargs"] = kw.get("kwargs")
        depth[0] += 1
        try:
            out = orig_onnx(model, args, f, *a, **kw)
        except Exception as exc:
            rec["error"] = _first_line(exc)
            raise
        finally:
            depth[0] -= 1
        rec["_program"] = out
        want = kw.get("opset_version")
        if want is not None:
            try:
                import onnx

                proto = out.model_proto if out is not None else onnx.load(str(f), load_external_data=False)
                got = max(o.version for o in proto.opset_import if o.domain in ("", "ai.onnx"))
                rec["opset_written"] = got
                if got != want:
                    opset_notes.append(f"opset_version={want} requested, the ONNX file declares opset {got}")
            except Exception as exc:  # noqa: BLE001
                rec["opset_written"] = f"unreadable: {_first_line(exc)}"
        return out

    def export_wrapper(model, args, *a, **kw):
        if depth[0]:  # torch.onnx.export(dynamo=True) calls torch.export.export itself
            return orig_export(model, args, *a, **kw)
        rec = {"api": "torch.export.export", "strict": kw.get("strict", False),
               "training_mode_model": bool(getattr(model, "training", False)),
               "model_type": type(model).__name__}
        calls.append(rec)
        snap = snapshot(model)
        try:
            out = orig_export(model, args, *a, **kw)
        except Exception as exc:
            rec["error"] = _first_line(exc)
            raise
        try:  # compare the program with the model in eval mode, on the example input
            kwargs_ = a[0] if a and isinstance(a[0], dict) else kw.get("kwargs") or {}
            with torch.no_grad():
                ref = [t for t in pytree.tree_leaves(snap.eval()(*args, **kwargs_)) if isinstance(t, torch.Tensor)]
                got = [t for t in pytree.tree_leaves(out.module()(*args, **kwargs_)) if isinstance(t, torch.Tensor)]
            ok = len(ref) == len(got) and all(
                r.shape == g.shape and torch.allclose(r, g, rtol=1e-3, atol=1e-4) for r, g in zip(ref, got)
            )
            rec["program"] = "matches eval-mode eager" if ok else "DIVERGES from eval-mode eager"
            if not ok:
                export_divergence.append("torch.export program differs from the model in eval mode")
        except Exception as exc:  # noqa: BLE001
            rec["program"] = f"not compared: {_first_line(exc)}"
        return out

    torch.onnx.export = onnx_wrapper
    torch.export.export = export_wrapper
    res: dict = {"status": "pass"}
    out_buf, err_buf = io.StringIO(), io.StringIO()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with contextlib.redirect_stdout(out_buf), contextlib.redirect_stderr(err_buf):
                runpy.run_path(path, run_name="__main__")
        except BaseException as exc:  # noqa: BLE001
            tb = traceback.extract_tb(exc.__traceback__)
            user = [fr for fr in tb if fr.filename == path]
            res = {"status": "fail", "error": _first_line(exc), "type": type(exc).__name__,
                   "message": str(exc)[:4000], "line": user[-1].lineno if user else None}
    res["warnings"] = sorted(
        {
            f"{w.category.__name__}: {str(w.message).strip().splitlines()[0][:240]}"
            + (f" (line {w.lineno})" if w.filename == path else "")
            for w in caught
            if not any(b in str(w.message) for b in BASELINE_WARNINGS + NOISE_WARNINGS)
            and not (w.category is FutureWarning and "onnxscript" in w.filename)
        }
    )
    # compare successful ONNX exports with the model in eval mode
    import onnxruntime as ort

    for rec in calls:
        if rec["api"] != "torch.onnx.export" or "error" in rec or rec.get("_model") is None:
            continue
        onnx_path = rec.get("f")
        prog = rec.get("_program")
        if prog is not None and hasattr(prog, "save"):
            onnx_path = os.path.join(tempfile.mkdtemp(), "m.onnx")
            prog.save(onnx_path)
        if not onnx_path or not os.path.exists(onnx_path):
            continue
        try:
            model = rec["_model"].eval()
            a = rec["_args"] if isinstance(rec["_args"], tuple) else (rec["_args"],)
            kw = rec["_kwargs"] or {}
            with torch.no_grad():
                ref = [t.numpy() for t in pytree.tree_leaves(model(*a, **kw)) if isinstance(t, torch.Tensor)]
            sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
            flat = [t.numpy() for t in pytree.tree_leaves((a, kw)) if isinstance(t, torch.Tensor)]
            feeds = {m.name: v for m, v in zip(sess.get_inputs(), flat)}
            got = sess.run(None, feeds)
            ok = len(got) == len(ref) and all(
                r.shape == g.shape and np.allclose(r, g, rtol=1e-3, atol=1e-4) for r, g in zip(ref, got)
            )
            rec["ort"] = "matches eval-mode eager" if ok else "DIVERGES from eval-mode eager"
            if not ok and res["status"] == "pass":
                res = {**res, "status": "diverged", "error": "ONNX output differs from the model in eval mode"}
        except Exception as exc:  # noqa: BLE001
            rec["ort"] = f"onnxruntime: {_first_line(exc)}"
    res["warnings"] = res["warnings"] + opset_notes
    if export_divergence and res["status"] == "pass":
        res = {**res, "status": "diverged", "error": export_divergence[0]}
    res["calls"] = [{k: v for k, v in rec.items() if not k.startswith("_")} for rec in calls]
    res["stdout"] = out_buf.getvalue()[-4000:]
    res["stderr"] = err_buf.getvalue()[-4000:]
    return res


# --------------------------------------------------------------------------------------
# parent
# --------------------------------------------------------------------------------------
def run_example(ex: Example, timeout: int) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"exl-{ex.code}-") as tmp:
        path = os.path.join(tmp, f"{ex.code.lower()}_{ex.kind}{ex.index}.py")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(ex.source)
        cmd = [sys.executable, os.path.abspath(__file__), "--child", "script" if ex.is_script else "model", path]
        env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONWARNINGS="")
        try:
            proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return {"_error": f"timed out after {timeout}s"}
        for line in reversed(proc.stdout.splitlines()):
            if line.startswith(SENTINEL):
                result = json.loads(line[len(SENTINEL):])
                if ex.is_script:  # torch's logger warnings (glog style) go to the real stderr
                    logged = [
                        "log: " + m.group(1)[:240]
                        for m in re.finditer(r"^W\d{4} [^\]]*\] (.*)$", proc.stderr, re.M)
                        if "torchvision is not installed" not in m.group(1)
                    ]
                    result["warnings"] = result.get("warnings", []) + sorted(set(logged))
                return result
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"_error": f"child exited {proc.returncode}: " + " | ".join(tail)}


def judge(ex: Example, result: dict) -> tuple[bool, str]:
    if "_error" in result:
        return False, result["_error"]
    if ex.is_script:
        warned = bool(result.get("warnings"))
        bad_behaviour = result["status"] in ("fail", "diverged") or warned
        if ex.kind == "bad":
            return bad_behaviour, "raised/warned/diverged" if bad_behaviour else "script ran clean"
        return not bad_behaviour, "clean" if not bad_behaviour else "script raised, warned or diverged"
    if ex.kind == "bad" and ex.expect_exports:
        broken = [e for e in EXPORTERS if result[e]["status"] != "pass"]
        if broken:
            return False, "marked '# verify: exports' but breaks " + ", ".join(broken)
        return True, "exports everywhere, as documented (side effect dropped)"
    if ex.kind == "bad":
        hit = [e for e in ex.exporters if result[e]["status"] in BAD_STATUSES]
        if hit:
            return True, "breaks " + ", ".join(hit)
        return False, "no listed exporter (" + ", ".join(ex.exporters) + ") fails or diverges"
    broken = [e for e in ex.exporters if result[e]["status"] != "pass"]
    if broken:
        return False, "good example breaks " + ", ".join(broken)
    return True, "passes " + ", ".join(ex.exporters)


def format_result(ex: Example, result: dict, ok: bool, why: str, verbose: bool) -> str:
    out = [f"{'ok  ' if ok else 'FAIL'} {ex.label}: {why}"]
    if "_error" in result:
        return "\n".join(out)
    if ex.is_script:
        out.append(f"      script: {result['status']}" + (f" -- {result['error']}" if result.get("error") else ""))
        for c in result.get("calls", []):
            out.append("      call: " + ", ".join(f"{k}={v}" for k, v in c.items()))
        for w in result.get("warnings", []):
            out.append(f"      warning: {w}")
        if verbose and result.get("message"):
            out.append("      --- message ---\n" + _indent(result["message"]))
        return "\n".join(out)
    for e in EXPORTERS:
        r = result[e]
        line = f"      {e:17s} {r['status']}"
        if r.get("error"):
            line += f" -- {r['error']}"
        out.append(line)
        ws = r.get("warnings") or []
        for w in ws[: (20 if verbose else 2)]:
            out.append(f"      {'':17s} warning: {w}")
        if verbose and r.get("message"):
            out.append("      --- message ---\n" + _indent(r["message"]))
    return "\n".join(out)


def _indent(text: str) -> str:
    return "\n".join("        " + ln for ln in text.splitlines())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("codes", nargs="*", help="only these rule codes (e.g. EXL101)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print full exporter messages")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="worker processes (at most 2)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per example")
    ap.add_argument("--json", help="write all results to this JSON file")
    ap.add_argument("--rules-dir", default=str(RULES_DIR), help="directory holding the pages")
    ap.add_argument("--kind", choices=("bad", "good"), help="only bad or only good examples")
    ap.add_argument("--child", nargs=2, metavar=("MODE", "PATH"), help=argparse.SUPPRESS)
    ns = ap.parse_args(argv)

    if ns.child:
        mode, path = ns.child
        result = _child_model(path) if mode == "model" else _child_script(path)
        sys.stdout.write("\n" + SENTINEL + json.dumps(result, default=str) + "\n")
        sys.stdout.flush()
        os._exit(0)  # skip slow interpreter teardown of torch

    pages = load_pages([c.upper() for c in ns.codes], Path(ns.rules_dir))
    examples = [ex for p in pages for ex in p.examples if not ns.kind or ex.kind == ns.kind]
    for p in pages:
        if not p.exporters and "Exporters:" not in p.path.read_text(encoding="utf-8"):
            print(f"warning: {p.code} has no 'Exporters:' line", file=sys.stderr)
        if not any(ex.kind == "bad" for ex in p.examples) or not any(ex.kind == "good" for ex in p.examples):
            print(f"warning: {p.code} lacks a bad or a good example", file=sys.stderr)
    jobs = max(1, min(2, ns.jobs))
    passed = failed = 0
    records = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_example, ex, ns.timeout): ex for ex in examples}
        done = {}
        for fut in concurrent.futures.as_completed(futures):
            done[id(futures[fut])] = fut.result()
    for ex in examples:  # print in page order
        result = done[id(ex)]
        ok, why = judge(ex, result)
        passed += ok
        failed += not ok
        print(format_result(ex, result, ok, why, ns.verbose), flush=True)
        records.append({"code": ex.code, "kind": ex.kind, "index": ex.index, "md_line": ex.md_line,
                        "ok": ok, "why": why, "result": result})
    if ns.json:
        Path(ns.json).write_text(json.dumps(records, indent=1, default=str), encoding="utf-8")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
