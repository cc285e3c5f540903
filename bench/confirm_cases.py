#!/usr/bin/env python3
"""Scoreboard: ``--confirm`` on labelled cases: is every real failure reported at its line?

A case is an ExportDB-style module (an ``nn.Module`` class or ``model``, ``example_args``,
optional ``dynamic_shapes``). The true line of each failure carries a label comment::

    y = int(x.shape[0] / 2)  # confirm-expect: export-nonstrict fail; onnx-dynamo diverged

(exporters separated by ``,``, outcomes ``fail`` or ``diverged``, several groups by ``;``).
An exporter without a label on any line of the case must pass.

Prints, per case and exporter, the expected and the reported outcome and line, then:

- recall: labelled failures reported (fail or diverged) at their labelled line (±1, same file);
- located precision: reported failures whose line is a labelled line for that exporter;
- missed: labelled failures reported as pass (a silent divergence or failure missed);
- false: failures/divergences reported where the label says pass;
- confirmed findings: static findings confirmed by the run, and how many sit on a labelled
  line of an exporter that confirmed them (precision of confirmed findings).

Usage: python bench/confirm_cases.py [DIR ...] [--exporter NAME ...] [--json OUT] [--timeout S]
       (default DIR: tests/fixtures/confirm/cases and bench/cases when present)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from exportlint.config import Config  # noqa: E402
from exportlint.confirm.api import run_confirm  # noqa: E402
from exportlint.confirm.targets import is_exportdb_module  # noqa: E402
from exportlint.findings import EXPORTERS  # noqa: E402

_LABEL = re.compile(r"#\s*confirm-expect:\s*(.+)$")


def labels(path: Path) -> dict[str, dict[int, str]]:
    """exporter -> {line: outcome}"""
    out: dict[str, dict[int, str]] = {}
    for i, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = _LABEL.search(text)
        if not m:
            continue
        for group in m.group(1).split(";"):
            parts = group.split()
            if len(parts) != 2:
                continue
            for e in parts[0].split(","):
                out.setdefault(e.strip(), {})[i] = parts[1].strip()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="*")
    ap.add_argument("--exporter", action="append", choices=EXPORTERS)
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--json")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--no-static", action="store_true")
    a = ap.parse_args()
    dirs = [Path(d) for d in a.dirs] or [p for p in (ROOT / "tests/fixtures/confirm/cases", ROOT / "bench/cases")
                                         if p.is_dir()]
    files = sorted(f for d in dirs for f in d.glob("*.py") if is_exportdb_module(f)
                   and (not a.only or f.stem in a.only))
    exporters = tuple(a.exporter or EXPORTERS)
    config = Config(root=ROOT, target_exporters=exporters, confirm_timeout=a.timeout)
    findings = []
    if not a.no_static:
        from exportlint.engine import lint_paths

        findings = [f for f in lint_paths([str(f) for f in files], config, jobs=1, use_cache=False).findings
                    if not f.code.startswith("EXL0")]
    t0 = time.perf_counter()
    res = run_confirm(config, findings, paths=files, exporters=exporters)
    wall = time.perf_counter() - t0
    by_path = {os.path.realpath(f): labels(f) for f in files}
    c: Counter = Counter()
    rows = []
    print(f"{'case':28s} {'exporter':17s} {'expected':16s} {'reported':22s} ok")
    for t in res.targets:
        tp = os.path.realpath(t.path)
        lab = by_path.get(tp, {})
        for e in exporters:
            o = t.outcomes.get(e)
            exp = lab.get(e, {})
            want = ", ".join(f"{v}:{ln}" for ln, v in sorted(exp.items())) or "pass"
            got = o.status if o else "-"
            where = o.line if o and o.status in ("fail", "diverged") else None
            at_file = o is not None and o.path and os.path.realpath(o.path) == tp
            if o and o.status in ("fail", "diverged") and o.line:
                got += f":{o.line}" + ("" if at_file else f" ({Path(o.path).name})")
            verdict = ""
            if exp:
                c["labelled"] += 1
                hit = o is not None and o.status in ("fail", "diverged") and at_file and \
                    any(abs(where - ln) <= 1 for ln in exp) if where else False
                if hit:
                    c["recall_hit"] += 1
                    verdict = "ok"
                elif o is not None and o.status in ("fail", "diverged"):
                    verdict = "WRONG LINE"
                elif o is not None and o.status == "pass":
                    c["missed"] += 1
                    verdict = "MISSED"
                else:
                    verdict = o.status if o else "?"
            elif o is not None and o.status in ("fail", "diverged"):
                c["false"] += 1
                verdict = "FALSE"
            else:
                verdict = "ok" if o is not None and o.status == "pass" else (o.status if o else "?")
            if o is not None and o.status in ("fail", "diverged"):
                c["reported"] += 1
                if at_file and where and any(abs(where - ln) <= 1 for ln in exp):
                    c["reported_right"] += 1
            print(f"{t.name[-28:]:28s} {e:17s} {want:16s} {got:22s} {verdict}")
            rows.append({"case": t.name, "exporter": e, "expected": exp, "status": got, "verdict": verdict,
                         "message": o.message if o else ""})
    conf = [f for f in res.findings if f.verdict == "confirmed" and not f.code.startswith("EXL9")]
    conf_true = 0
    for f in conf:
        lab = by_path.get(os.path.realpath(f.path), {})
        exps = [e for e, v in (f.details.get("confirm", {}).get("exporters") or {}).items() if v == "confirmed"]
        if any(abs(f.line - ln) <= 1 for e in exps for ln in lab.get(e, {})):
            conf_true += 1
        else:
            print(f"  confirmed but not on a labelled line: {f.code} {Path(f.path).name}:{f.line} {exps}")
    n901 = sum(1 for f in res.findings if f.code == "EXL901")
    n902 = sum(1 for f in res.findings if f.code == "EXL902")
    print()
    print(f"cases {len(res.targets)}, labelled failures {c['labelled']}: at the right line {c['recall_hit']} "
          f"({c['recall_hit'] / max(1, c['labelled']):.2f}); missed (reported pass) {c['missed']}")
    print(f"reported failures {c['reported']}: at a labelled line {c['reported_right']} "
          f"({c['reported_right'] / max(1, c['reported']):.2f}); on unlabelled exporters {c['false']}")
    print(f"confirmed static findings {len(conf)}: on a labelled line {conf_true} "
          f"({conf_true / max(1, len(conf)):.2f}); EXL901 {n901}, EXL902 {n902}")
    print(f"confirm wall {wall:.1f}s")
    if res.errors:
        for err in res.errors:
            print("error:", err.splitlines()[0])
    if a.json:
        Path(a.json).write_text(json.dumps({"rows": rows, "counts": dict(c), "confirmed": len(conf),
                                            "confirmed_true": conf_true, "wall": wall}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
