#!/usr/bin/env python3
"""``--confirm`` on real zoo models (bench/zoo_targets.py): outcome and reported line per exporter.

The model library is the project being checked (its package folder is the root, as when
exportlint runs in that repository), so failures are placed in the library's source. Prints
each failure with the source line it was placed on, for checking by eye whether that line is
the cause, then the summary and the wall time.

Usage: python bench/confirm_zoo.py [NAME ...] [--exporter E ...] [--exporter-timeout S] [--json OUT]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import linecache
import os
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--exporter", action="append", choices=EXPORTERS)
    ap.add_argument("--exporter-timeout", type=float, default=180.0)
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--json")
    a = ap.parse_args()
    names = a.names or list(TARGETS)
    exporters = tuple(a.exporter or EXPORTERS)
    by_lib: dict = {}
    for n in names:
        by_lib.setdefault(TARGETS[n], []).append(n)
    results = []
    t0 = time.perf_counter()
    for lib, ns in by_lib.items():
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
    wall = time.perf_counter() - t0
    print(f"wall {wall:.1f}s for {len(names)} models x {len(exporters)} exporters")
    if a.json:
        Path(a.json).write_text(json.dumps([r.to_dict() for r in results], indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
