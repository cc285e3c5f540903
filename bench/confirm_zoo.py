#!/usr/bin/env python3
"""``--confirm`` on real zoo models (bench/zoo_targets.py): outcome and reported line per exporter.

The model library is the project being checked (its package folder is the root, as when
exportlint runs in that repository), so failures are placed in the library's source. Prints
each failure with the source line it was placed on, for checking by eye whether that line is
the cause, then the summary and the wall time.

Usage: python bench/confirm_zoo.py [NAME ...] [--exporter E ...] [--exporter-timeout S] [--json OUT] [--direct]
       [--direct-threads N] [--interleave]

``--direct`` then calls the same exporters on the same models directly, in one process per
project (library) as confirm runs once per project, as a user's script would (build each model, export it with the same dynamic shapes; no eager
reference, no parity check), and prints confirm's cost relative to that: wall and CPU time.
confirm's CPU counts its workers and this process (its part of the run: project dims, polling).
The confirm worker runs torch on one intra-op thread (``EXPORTLINT_CONFIRM_THREADS``); the
direct calls use torch's default, as a user's script would, or ``--direct-threads N``.
``--interleave`` calls a project's exporters directly right after confirming it (not all
confirm runs first), so both sides of each project's ratio see about the same machine load.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import linecache
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from exportlint.config import Config  # noqa: E402
from exportlint.confirm.api import run_confirm  # noqa: E402
from exportlint.findings import EXPORTERS  # noqa: E402

#: target -> the library whose source is "the project"
TARGETS = {
    "tv_resnet18": "torchvision", "tv_raft_small": "torchvision", "tv_quantized_mobilenet_v3": "torchvision",
    "tv_ssdlite": "torchvision",
    "timm_resnet": "timm", "timm_mobilenetv3": "timm", "timm_vit": "timm", "timm_efficientnet": "timm",
    "hf_bert": "transformers", "hf_gpt2": "transformers", "hf_llama": "transformers",
    "quantized_mlp": None,
}


_DIRECT = r'''
import contextlib, io, json, signal, sys, time, warnings
t0 = time.perf_counter()
import torch
from exportlint.confirm.worker import _legacy_dynamic_axes
sys.path.insert(0, sys.argv[1])
import zoo_targets
names, exporters, limit = json.loads(sys.argv[2]), json.loads(sys.argv[3]), float(sys.argv[4])
if int(sys.argv[5]) > 0:
    torch.set_num_threads(int(sys.argv[5]))
out = {"import": time.perf_counter() - t0, "build": {}, "outcomes": {}, "seconds": {}}
def alarm(*a):
    raise TimeoutError(f"timed out after {limit:.0f} s")
signal.signal(signal.SIGALRM, alarm)
for n in names:
    tb = time.perf_counter()
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        spec = getattr(zoo_targets, n)()
    out["build"][n] = time.perf_counter() - tb
    m, args, kw, ds = spec["model"], tuple(spec["args"]), spec.get("kwargs") or None, spec.get("dynamic_shapes")
    for e in exporters:
        te = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                if e.startswith("export"):
                    torch.export.export(m, args, kw, dynamic_shapes=ds, strict=e == "export-strict")
                elif e == "onnx-dynamo":
                    torch.onnx.export(m, args, kwargs=kw, dynamic_shapes=ds, dynamo=True, verbose=False)
                else:
                    names_, axes = _legacy_dynamic_axes({"args": args, "kwargs": kw or {}, "dynamic_shapes": ds})
                    torch.onnx.export(m, args, io.BytesIO(), kwargs=kw, dynamo=False, input_names=names_,
                                      dynamic_axes=axes)
            out["outcomes"][n + "|" + e] = "pass"
        except BaseException as ex:
            out["outcomes"][n + "|" + e] = "fail: " + type(ex).__name__ + ": " + str(ex).strip().split("\n")[0][:100]
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        out["seconds"][n + "|" + e] = time.perf_counter() - te
out["total"] = time.perf_counter() - t0
print(json.dumps(out))
'''


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def self_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def direct(names: list[str], exporters: tuple, limit: float, threads: int = 0) -> tuple[float, float, dict]:
    """(wall, CPU seconds, data) of the exporters called directly in one process."""
    c0, t0 = child_cpu(), time.perf_counter()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    p = subprocess.run([sys.executable, "-c", _DIRECT, str(ROOT / "bench"), json.dumps(names), json.dumps(list(exporters)),
                        str(limit), str(threads)], capture_output=True, text=True, env=env)
    wall, cpu = time.perf_counter() - t0, child_cpu() - c0
    try:
        data = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        print(p.stderr[-3000:], file=sys.stderr)
        data = {}
    return wall, cpu, data


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--exporter", action="append", choices=EXPORTERS)
    ap.add_argument("--exporter-timeout", type=float, default=180.0)
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--json")
    ap.add_argument("--direct", action="store_true", help="also time the exporters called directly (the baseline)")
    ap.add_argument("--direct-threads", type=int, default=0,
                    help="torch intra-op threads of the direct calls (0: torch's default)")
    ap.add_argument("--interleave", action="store_true",
                    help="with --direct: each project's direct calls right after its confirm run")
    a = ap.parse_args()
    names = a.names or list(TARGETS)
    exporters = tuple(a.exporter or EXPORTERS)
    by_lib: dict = {}
    for n in names:
        by_lib.setdefault(TARGETS[n], []).append(n)
    results = []
    wall = cpu = 0.0
    early: list = []  # (wall, cpu, data) of direct calls made right after their project (--interleave)
    for lib, ns in by_lib.items():
        c0 = child_cpu() + self_cpu()
        t0 = time.perf_counter()
        root = ROOT
        if lib:
            spec = importlib.util.find_spec(lib)
            root = Path(list(spec.submodule_search_locations)[0])
        cfg = Config(root=root, target_exporters=exporters, confirm_timeout=a.timeout,
                     confirm_exporter_timeout=a.exporter_timeout, confirm_memory_mb=8192)
        res = run_confirm(cfg, [], targets=[f"{ROOT / 'bench' / 'zoo_targets.py'}:{n}" for n in ns],
                          exporters=exporters, progress=lambda s: print(s, file=sys.stderr, flush=True))
        results.append(res)
        for t in res.targets:
            name = t.name.rsplit(":", 1)[-1]
            if t.error:
                print(f"{name}: ERROR {t.error.splitlines()[0][:200]}")
            for e, o in t.outcomes.items():
                line = ""
                if o.status in ("fail", "diverged", "timeout"):
                    if o.path and o.line:
                        src = linecache.getline(o.path, o.line).strip()
                        line = f"{os.path.relpath(o.path, root.parent)}:{o.line} [{o.how}]  `{src[:90]}`"
                    else:
                        line = "(no line)"
                print(f"{name:28s} {e:17s} {o.status:8s} {o.seconds or 0:6.1f}s  {line}")
                if o.status in ("fail", "diverged", "timeout") or o.message:
                    print(f"{'':28s}   {o.message[:220]}")
        print(res.summary_line())
        p_wall, p_cpu = time.perf_counter() - t0, child_cpu() + self_cpu() - c0
        wall, cpu = wall + p_wall, cpu + p_cpu
        if a.direct and a.interleave:
            early.append(direct(ns, exporters, a.exporter_timeout, a.direct_threads))
            print(f"project {lib or 'bench'}: confirm {p_wall:.1f}s wall, CPU {p_cpu:.1f}s; direct {early[-1][0]:.1f}s "
                  f"wall, CPU {early[-1][1]:.1f}s: {p_wall / max(early[-1][0], 1e-9):.2f}x wall, "
                  f"{p_cpu / max(early[-1][1], 1e-9):.2f}x CPU")
    print(f"wall {wall:.1f}s for {len(names)} models x {len(exporters)} exporters (CPU {cpu:.1f}s, workers and this "
          "process)")
    phases: dict = {}
    for r in results:
        for t in r.targets:
            phases["build + eager + variants"] = phases.get("build + eager + variants", 0.0) + \
                (t.build_seconds or 0.0) + (getattr(t, "variant_seconds", 0.0) or 0.0)
            for o in t.outcomes.values():
                for k, v in (o.timing or {}).items():
                    phases[k] = phases.get(k, 0.0) + v
    print("confirm phases (s, summed): " + ", ".join(f"{k} {v:.1f}" for k, v in phases.items()))
    if a.direct:
        # one process per project, as confirm runs once per project (one fork server each)
        d_wall = d_cpu = 0.0
        data = {"outcomes": {}, "seconds": {}, "build": {}, "import": 0.0}
        for i, ns in enumerate(by_lib.values()):
            w, c, dd = early[i] if early else direct(ns, exporters, a.exporter_timeout, a.direct_threads)
            d_wall, d_cpu = d_wall + w, d_cpu + c
            for key in ("outcomes", "seconds", "build"):
                data[key].update(dd.get(key, {}))
            data["import"] += dd.get("import", 0.0)
        outs = data.get("outcomes", {})
        agree = total = 0
        for r in results:
            for t in r.targets:
                n = t.name.rsplit(":", 1)[-1]
                for e, o in t.outcomes.items():
                    total += 1
                    d = (outs.get(f"{n}|{e}") or "?").split(":")[0]
                    mine = "pass" if o.status in ("pass", "diverged") else "fail"
                    if d == mine:
                        agree += 1
                    else:
                        print(f"  differs: {n} {e}: confirm {o.status}, direct {outs.get(f'{n}|{e}')}")
        exp_s = sum(data.get("seconds", {}).values())
        print(f"direct: {d_wall:.1f}s wall, CPU {d_cpu:.1f}s (torch import {data.get('import', 0):.1f}s, "
              f"building models {sum(data.get('build', {}).values()):.1f}s, exporting {exp_s:.1f}s; "
              f"torch threads {a.direct_threads or 'default'}{'; interleaved' if early else ''}); "
              f"export outcome agrees with confirm on {agree}/{total}")
        print(f"cost ratio (confirm / direct): {wall / max(d_wall, 1e-9):.2f}x wall, {cpu / max(d_cpu, 1e-9):.2f}x CPU")
    if a.json:
        Path(a.json).write_text(json.dumps([r.to_dict() for r in results], indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
