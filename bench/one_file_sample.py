#!/usr/bin/env python3
"""One-file cold latency over a sample of real model files (issue 13's pre-commit figure).

For 8 files drawn (seed 0) from each of transformers' modeling files, timm's models,
torchvision's models and its detection models, the median CPU time (user+sys) of 3 runs of
`exportlint --no-cache -q FILE` divided by the median of 7 runs of `python -c "import libcst"`.
CPU time, not wall: a loaded 2-core machine inflates wall times far more. Prints the ratio per
file (sorted), the median and how many files are within the 1.5x goal.

Usage: python bench/one_file_sample.py [SITE_PACKAGES]   (default: this interpreter's)
"""
import os, random, resource, statistics, subprocess, sys, glob
SP = sys.argv[1] if len(sys.argv) > 1 else __import__("site").getsitepackages()[0]
random.seed(0)
files = []
for pat in ("transformers/models/*/modeling_*.py", "timm/models/*.py", "torchvision/models/*.py", "torchvision/models/detection/*.py"):
    fs = sorted(glob.glob(os.path.join(SP, pat)))
    files += random.sample(fs, min(8, len(fs)))
def cpu(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
env_py = sys.executable
base = statistics.median(cpu([env_py, "-c", "import libcst"]) for _ in range(7))
rows = []
for f in files:
    t = statistics.median(cpu(["exportlint", "--no-cache", "-q", f]) for _ in range(3))
    n = sum(1 for _ in open(f, encoding="utf-8", errors="replace"))
    rows.append((t / base, n, f.split("site-packages/")[-1]))
rows.sort()
for r in rows: print(f"{r[0]:5.2f}x {r[1]:6d} lines  {r[2]}")
rs = [r[0] for r in rows]
print(f"import libcst CPU {base:.3f}s; files {len(rs)}; median {statistics.median(rs):.2f}x; <=1.5x: {sum(r <= 1.5 for r in rs)}/{len(rs)}; max {max(rs):.2f}x")
