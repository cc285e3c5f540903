#!/usr/bin/env python3
"""Scoreboard: ``exportlint --confirm`` over ExportDB as shipped in the installed torch.

For every ExportDB example (``torch/_export/db/examples/*.py``) and exporter, prints the
real outcome (pass / fail / diverged / error / timeout), the line the failure was located
at, and the static prediction (codes of the static findings in that file that name the
exporter) with their verdicts. Then totals:

- failures (fail + diverged) located at a line in the example file, and how (which rule);
- static findings confirmed / refuted / not reached; EXL901 and EXL902 findings;
- the cost: wall time of confirm on ExportDB versus calling the same exporters directly in
  one process (overhead ratio).

Usage: python bench/confirm_exportdb.py [--exporter NAME ...] [--only NAME ...] [--json OUT]
       [--no-direct] [--timeout S] [-j N]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exportlint.config import Config  # noqa: E402
from exportlint.confirm.api import run_confirm  # noqa: E402
from exportlint.findings import EXPORTERS  # noqa: E402


def exportdb_dir() -> Path:
    spec = importlib.util.find_spec("torch")  # does not import torch
    if spec is None or not spec.submodule_search_locations:
        sys.exit("torch is not installed")
    d = Path(list(spec.submodule_search_locations)[0]) / "_export" / "db" / "examples"
    if not d.is_dir():
        sys.exit(f"no ExportDB examples in {d}")
    return d


def static_findings(d: Path, config: Config, only: list[str]):
    try:
        from exportlint.engine import lint_paths
    except Exception as e:  # noqa: BLE001 - the static engine is someone else's moving part
        print(f"(static lint unavailable: {e})", file=sys.stderr)
        return [], 0.0
    files = sorted(str(p) for p in d.glob("*.py") if p.name != "__init__.py" and (not only or p.stem in only))
    t0 = time.perf_counter()
    try:
        r = lint_paths(files, config, jobs=1, use_cache=False)
    except Exception as e:  # noqa: BLE001
        print(f"(static lint failed: {e})", file=sys.stderr)
        return [], 0.0
    return [f for f in r.findings if not f.code.startswith("EXL0")], time.perf_counter() - t0


_DIRECT = r'''
import contextlib, copy, importlib.util, io, json, sys, time, warnings
t0 = time.perf_counter()
import torch
files, exporters = json.loads(sys.argv[1]), json.loads(sys.argv[2])
t_import = time.perf_counter() - t0
out = {}
for f in files:
    spec = importlib.util.spec_from_file_location("_direct_" + f.rsplit("/", 1)[-1][:-3], f)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # torch.export strict (dynamo) looks the module up
    spec.loader.exec_module(mod)
    m = mod.model.eval()
    args, kw, ds = mod.example_args, getattr(mod, "example_kwargs", None), getattr(mod, "dynamic_shapes", None)
    for e in exporters:
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                mm = copy.deepcopy(m)
                if e.startswith("export"):
                    torch.export.export(mm, args, kw, dynamic_shapes=ds, strict=e == "export-strict")
                elif e == "onnx-dynamo":
                    torch.onnx.export(mm, args, kwargs=kw, dynamic_shapes=ds, dynamo=True, verbose=False)
                else:
                    torch.onnx.export(mm, args, io.BytesIO(), kwargs=kw, dynamo=False)
            out[f + "|" + e] = "pass"
        except Exception as ex:
            out[f + "|" + e] = "fail: " + type(ex).__name__ + ": " + str(ex).strip().split("\\n")[0][:100]
print(json.dumps({"import": t_import, "outcomes": out, "total": time.perf_counter() - t0}))
'''


def direct(files: list[str], exporters: list[str]) -> tuple[float, dict]:
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", _DIRECT, json.dumps(files), json.dumps(exporters)],
                       capture_output=True, text=True)
    wall = time.perf_counter() - t0
    try:
        data = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        print(p.stderr[-3000:], file=sys.stderr)
        data = {}
    return wall, data


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--exporter", action="append", choices=EXPORTERS)
    ap.add_argument("--only", action="append", default=[], help="example name (file stem); repeatable")
    ap.add_argument("--json")
    ap.add_argument("--no-direct", action="store_true", help="skip the direct-call baseline")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("-j", "--jobs", type=int, default=1)
    a = ap.parse_args()
    exporters = tuple(a.exporter or EXPORTERS)
    d = exportdb_dir()
    config = Config(root=d, target_exporters=exporters, confirm_timeout=a.timeout)
    findings, static_s = static_findings(d, config, a.only)
    paths = [d / f"{n}.py" for n in a.only] if a.only else [d]

    import resource

    def child_cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime

    c0 = child_cpu()
    t0 = time.perf_counter()
    res = run_confirm(config, findings, paths=paths, exporters=exporters, jobs=a.jobs,
                      progress=lambda s: print(s, file=sys.stderr, flush=True))
    confirm_wall = time.perf_counter() - t0
    confirm_cpu = child_cpu() - c0  # the workers and the fork server (waited-for descendants)

    by_file: dict[str, list] = {}
    for f in res.findings:
        by_file.setdefault(os.path.realpath(f.path if os.path.isabs(f.path) else d / f.path), []).append(f)

    rows = []
    print(f"ExportDB: {d}  ({len(res.targets)} examples x {len(exporters)} exporters)")
    print(f"{'example':34s} {'exporter':17s} {'outcome':9s} {'located':22s} static prediction [verdict]")
    located_how: Counter = Counter()
    failures = located = located_in_file = 0
    for t in res.targets:
        tpath = os.path.realpath(t.path) if t.path else ""
        for e, o in t.outcomes.items():
            loc = ""
            if o.status in ("fail", "diverged"):
                failures += 1
                if o.line:
                    located += 1
                    in_file = bool(o.path) and os.path.realpath(o.path) == tpath
                    located_in_file += in_file
                    located_how[o.how or "?"] += 1
                    loc = f"{Path(o.path).name}:{o.line}"
                else:
                    loc = "(target)"
                    located_how["not located"] += 1
            preds = [f for f in by_file.get(tpath, []) if not f.code.startswith("EXL9")
                     and (not f.exporters or e in f.exporters)]
            pred = ", ".join(f"{f.code}:{f.line}[{(f.details.get('confirm', {}).get('exporters', {}) or {}).get(e, f.verdict or '-')}]"
                             for f in preds) or "-"
            new = [f"{f.code}:{f.line}" for f in by_file.get(tpath, []) if f.code.startswith("EXL9") and e in f.exporters]
            if new:
                pred += "  +" + ",".join(new)
            print(f"{t.name:34s} {e:17s} {o.status:9s} {loc:22s} {pred}")
            rows.append({"example": t.name, "exporter": e, "outcome": o.status, "path": o.path, "line": o.line,
                         "located_by": o.how, "message": o.message, "static": [f.to_dict() for f in preds]})

    verdicts = Counter(f.verdict or "unchecked" for f in res.findings if not f.code.startswith("EXL9"))
    n901 = sum(1 for f in res.findings if f.code == "EXL901")
    n902 = sum(1 for f in res.findings if f.code == "EXL902")
    outcomes = Counter(o.status for t in res.targets for o in t.outcomes.values())
    print()
    print("outcomes:", ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    print(f"failures (fail+diverged): {failures}; located at a line: {located} "
          f"({located_in_file} in the example file itself); not located: {failures - located}")
    print("  located by:", ", ".join(f"{k} {v}" for k, v in located_how.most_common()))
    print(f"static findings: {sum(verdicts.values())} -> " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())))
    print(f"EXL901 (failures no static rule predicted): {n901}; EXL902 (silent divergences): {n902}")
    if res.errors:
        print(f"target errors: {len(res.errors)}")
        for err in res.errors:
            print("  " + err.splitlines()[0])

    print()
    print(f"cost: static lint {static_s:.1f}s; confirm {confirm_wall:.1f}s wall "
          f"({confirm_wall / max(1, len(res.targets)):.1f}s per example)")
    phases: Counter = Counter()
    for t in res.targets:
        phases["target processes (total)"] += t.seconds
        phases["build + eager reference"] += t.build_seconds
        phases["eager on other inputs"] += t.variant_seconds
        for o in t.outcomes.values():
            for k, v in (o.timing or {}).items():
                phases[f"{o.exporter}: {k}"] += v
    inside = phases["build + eager reference"] + phases["eager on other inputs"] + sum(
        v for k, v in phases.items() if ":" in k)
    print("where the time goes (seconds, summed over targets):")
    for k, v in sorted(phases.items(), key=lambda kv: -kv[1]):
        print(f"  {k:40s} {v:7.1f}")
    print(f"  {'process start/fork + event plumbing':40s} {phases['target processes (total)'] - inside:7.1f}")
    direct_wall = None
    agree = None
    if not a.no_direct:
        files = [t.path for t in res.targets if t.path]
        c1 = child_cpu()
        direct_wall, data = direct(files, list(exporters))
        direct_cpu = child_cpu() - c1
        outs = data.get("outcomes", {})
        same = sum(1 for t in res.targets for e, o in t.outcomes.items()
                   if (outs.get(f"{t.path}|{e}") or "").split(":")[0] == ("pass" if o.status in ("pass", "diverged") else "fail"))
        agree = f"{same}/{sum(len(t.outcomes) for t in res.targets)}"
        for t in res.targets:
            for e, o in t.outcomes.items():
                d_out = outs.get(f"{t.path}|{e}")
                if (d_out or "").split(":")[0] != ("pass" if o.status in ("pass", "diverged") else "fail"):
                    print(f"  differs: {t.name} {e}: confirm {o.status}, direct {d_out}: {o.message[:120]}")
        print(f"direct: the same exporters in one process: {direct_wall:.1f}s wall "
              f"(torch import {data.get('import', 0):.1f}s); export outcome agrees with confirm on {agree}")
        print(f"overhead ratio (confirm / direct): {confirm_wall / max(direct_wall, 1e-9):.2f}x wall, "
              f"{confirm_cpu / max(direct_cpu, 1e-9):.2f}x CPU time ({confirm_cpu:.1f}s vs {direct_cpu:.1f}s; "
              "CPU time is the steadier figure on a shared machine)")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as fh:
            json.dump({"rows": rows, "verdicts": dict(verdicts), "exl901": n901, "exl902": n902,
                       "failures": failures, "located": located, "located_in_file": located_in_file,
                       "confirm_seconds": confirm_wall, "direct_seconds": direct_wall, "agree": agree,
                       "confirm": res.to_dict()}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
