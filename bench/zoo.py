#!/usr/bin/env python3
"""Lint real model zoos from PyPI and count what exportlint reports on them.

The corpora are the model folders of two wheels: ``timm/models`` and
``transformers/models``. The wheels are fetched at run time with
``pip download --no-deps`` into ``bench/.corpus/`` (git-ignored; nothing of them is
committed) and only the model folder is extracted. The versions are pinned to the ones the
numbers in ``bench/labels/zoo_sample.md`` were measured on; ``--version NAME==VER`` (or
``NAME==latest``) picks another.

Per corpus: files, lines, findings per rule and per severity, findings per 1,000 lines.
``--sample N --seed S`` then prints N random findings per rule (all if fewer) with 3 lines
of context on each side, for labelling by hand (``bench/labels/zoo_sample.md``).

The lint runs through the exportlint CLI in a subprocess (``--format json --no-cache``);
its JSON is kept in ``bench/.corpus/zoo-<corpus>.json`` and ``--reuse`` samples from that
file without linting again.

Usage: python bench/zoo.py [--corpus timm|transformers ...] [-j 2] [--sample N --seed S]
       [--rule CODE ...] [--reuse] [--version transformers==5.23.0] [--json OUT]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import subprocess
import sys
import time
import zipfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "bench" / ".corpus"
#: corpus -> (distribution, folder inside the wheel, pinned version)
CORPORA = {
    "timm": ("timm", "timm/models", "1.0.31"),
    "transformers": ("transformers", "transformers/models", "5.23.0"),
}


def fetch(dist: str, version: str) -> Path:
    """The wheel of dist==version in bench/.corpus/wheels, downloaded when absent."""
    wheels = CORPUS / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    pattern = f"{dist}-*.whl" if version == "latest" else f"{dist}-{version}-*.whl"
    found = sorted(glob.glob(str(wheels / pattern)))
    if found and version != "latest":
        return Path(found[-1])
    spec = dist if version == "latest" else f"{dist}=={version}"
    print(f"pip download --no-deps {spec} ...", file=sys.stderr, flush=True)
    before = set(glob.glob(str(wheels / f"{dist}-*.whl")))
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", str(wheels),
                    spec], check=True, stdout=subprocess.DEVNULL)
    after = sorted(set(glob.glob(str(wheels / f"{dist}-*.whl"))) - before) or sorted(glob.glob(str(wheels / pattern)))
    if not after:
        sys.exit(f"pip download produced no wheel for {spec}")
    return Path(after[-1])


def extract(wheel: Path, folder: str) -> Path:
    """Extract ``folder`` of the wheel into bench/.corpus/<wheel stem>/; returns that folder."""
    dest = CORPUS / wheel.name[: -len(".whl")]
    target = dest / folder
    marker = dest / ".complete"
    if marker.exists():
        return target
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            if info.filename.startswith(folder + "/") and not info.is_dir():
                z.extract(info, dest)
    marker.write_text(wheel.name)
    return target


def count_lines(root: Path) -> tuple[int, int]:
    files = lines = 0
    for p in root.rglob("*.py"):
        files += 1
        with open(p, "rb") as fh:
            lines += sum(1 for _ in fh)
    return files, lines


def lint(root: Path, jobs: int, out: Path) -> tuple[list[dict], float]:
    cmd = [sys.executable, "-m", "exportlint", str(root), "--format", "json", "--no-cache", "--exit-zero",
           "-j", str(jobs), "-q", "-o", str(out)]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=str(CORPUS))
    wall = time.perf_counter() - t0
    if p.returncode not in (0, 1) or not out.exists():
        sys.exit(f"exportlint failed (rc={p.returncode}):\n{p.stderr[-3000:]}")
    data = json.loads(out.read_text(encoding="utf-8"))
    return (data["findings"] if isinstance(data, dict) else data), wall


def context(path: str, line: int, n: int = 3) -> str:
    try:
        src = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return "    (source not readable)"
    lo, hi = max(1, line - n), min(len(src), line + n)
    return "\n".join(f"  {'>' if i == line else ' '}{i:5d} | {src[i - 1]}" for i in range(lo, hi + 1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", action="append", choices=sorted(CORPORA), help="default: all")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="exportlint processes (at most 2 on shared machines)")
    ap.add_argument("--version", action="append", default=[], help="DIST==VERSION (or DIST==latest)")
    ap.add_argument("--reuse", action="store_true", help="use the last lint output in bench/.corpus/ if present")
    ap.add_argument("--sample", type=int, default=0, help="print N random findings per rule with context")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rule", action="append", default=[], help="only sample these rule codes")
    ap.add_argument("--json", help="write the counts to this file")
    a = ap.parse_args()
    pins = {k: v[2] for k, v in CORPORA.items()}
    for v in a.version:
        dist, _, ver = v.partition("==")
        if dist not in pins or not ver:
            sys.exit(f"--version wants DIST==VERSION with DIST in {sorted(pins)}")
        pins[dist] = ver

    summary = {}
    for name in a.corpus or sorted(CORPORA):
        dist, folder, _ = CORPORA[name]
        wheel = fetch(dist, pins[name])
        root = extract(wheel, folder)
        out = CORPUS / f"zoo-{name}.json"
        if a.reuse and out.exists():
            data = json.loads(out.read_text(encoding="utf-8"))
            findings, wall = (data["findings"] if isinstance(data, dict) else data), 0.0
        else:
            findings, wall = lint(root, max(1, min(2, a.jobs)), out)
        files, lines = count_lines(root)
        for f in findings:  # paths are relative to the lint's working directory unless absolute
            if not os.path.isabs(f["path"]):
                f["path"] = str(CORPUS / f["path"])
        by_rule = Counter(f["code"] for f in findings)
        by_sev = Counter(f["severity"] for f in findings)
        by_rule_sev = Counter((f["code"], f["severity"]) for f in findings)
        kloc = lines / 1000.0
        print(f"== {name}: {wheel.name} :: {folder}")
        print(f"   {files} files, {lines} lines; {len(findings)} findings = {len(findings) / kloc:.2f} per 1,000 lines"
              + (f"; lint {wall:.0f}s wall" if wall else " (reused lint output)"))
        print("   per severity: " + ", ".join(f"{s} {by_sev.get(s, 0)} ({by_sev.get(s, 0) / kloc:.2f}/kloc)"
                                            for s in ("error", "warning", "info")))
        print("   per rule:")
        for code, n in sorted(by_rule.items()):
            sev = ", ".join(f"{s} {by_rule_sev[(code, s)]}" for s in ("error", "warning", "info")
                            if by_rule_sev[(code, s)])
            print(f"     {code}  {n:5d}  {n / kloc:6.3f}/kloc   ({sev})")
        summary[name] = {"wheel": wheel.name, "files": files, "lines": lines, "findings": len(findings),
                         "per_kloc": round(len(findings) / kloc, 3), "by_rule": dict(by_rule),
                         "by_severity": dict(by_sev)}
        if a.sample:
            rng = random.Random(a.seed)
            for code in sorted(by_rule):
                if a.rule and code not in a.rule:
                    continue
                pool = sorted((f for f in findings if f["code"] == code),
                              key=lambda f: (f["path"], f["line"], f["column"]))
                pick = pool if len(pool) <= a.sample else rng.sample(pool, a.sample)
                print(f"\n--- {name} {code}: {len(pick)} of {len(pool)} (seed {a.seed})")
                for i, f in enumerate(pick, 1):
                    rel = os.path.relpath(f["path"], root.parent.parent) if os.path.isabs(f["path"]) else f["path"]
                    print(f"[{code}-{name[:2]}-{i}] {rel}:{f['line']}:{f['column']} {f['severity']} "
                          f"({','.join(f.get('exporters', []))})")
                    print(f"   {f['message'][:220]}")
                    print(context(f["path"], f["line"]))
        print()
    total_lines = sum(s["lines"] for s in summary.values())
    total = sum(s["findings"] for s in summary.values())
    if len(summary) > 1:
        print(f"== all: {total} findings in {total_lines} lines = {1000 * total / max(total_lines, 1):.2f} per 1,000 lines")
    if a.json:
        Path(a.json).write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
