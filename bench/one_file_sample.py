#!/usr/bin/env python3
"""One-file cold latency over a sample of real model files (issue 13's pre-commit figure).

For 8 files drawn (seed 0) from each of transformers' modeling files, timm's models,
torchvision's models and its detection models, the median CPU time (user+sys) of 3 runs of
`exportlint --no-cache -q FILE` divided by the median of 7 runs of `python -c "import libcst"`.
CPU time, not wall: a loaded 2-core machine inflates wall times far more. Prints the ratio per
file (sorted), the median and how many files are within the 1.5x goal.

Usage: python bench/one_file_sample.py [SITE_PACKAGES] [--code CHECKOUT ...]
  (default: this interpreter's site-packages, this checkout; each --code checkout is measured
  too, interleaved file by file, from a neutral working directory with PYTHONPATH=CHECKOUT)
"""
import os, random, statistics, subprocess, sys, glob, tempfile
from pathlib import Path
ROOT = Path(__file__).resolve().parent.parent
args = sys.argv[1:]
codes = [ROOT]
while "--code" in args:
    i = args.index("--code")
    codes.append(Path(args[i + 1]).resolve())
    del args[i:i + 2]
SP = args[0] if args else __import__("site").getsitepackages()[0]
random.seed(0)
files = []
for pat in ("transformers/models/*/modeling_*.py", "timm/models/*.py", "torchvision/models/*.py", "torchvision/models/detection/*.py"):
    fs = sorted(glob.glob(os.path.join(SP, pat)))
    files += random.sample(fs, min(8, len(fs)))
CWD = tempfile.gettempdir()
for c in codes:  # as installed: bytecode compiled, and lightcst's compiled dataclass methods (speed.py)
    e = dict(os.environ, PYTHONDONTWRITEBYTECODE="", PYTHONPATH=str(c))
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(c / "exportlint")], stdout=subprocess.DEVNULL, env=e)
    subprocess.run([sys.executable, "-c", "from exportlint.lightcst import prepare; prepare()"], cwd=CWD,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=e)
def cpu(cmd, env=None):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=CWD)
    _, _, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime
env_py = sys.executable
load0 = os.getloadavg()[0]
base_runs = [cpu([env_py, "-c", "import libcst"]) for _ in range(7)]
rows = {c: [] for c in codes}
for f in files:
    n = sum(1 for _ in open(f, encoding="utf-8", errors="replace"))
    for _ in range(3):
        for c in codes:
            rows[c].append((f, cpu([env_py, "-m", "exportlint", "--no-cache", "-q", f], dict(os.environ, PYTHONPATH=str(c)))))
    base_runs.append(cpu([env_py, "-c", "import libcst"]))
base = statistics.median(base_runs)
for c in codes:
    per = {}
    for f, t in rows[c]:
        per.setdefault(f, []).append(t)
    rs = sorted((statistics.median(v) / base, sum(1 for _ in open(f, encoding="utf-8", errors="replace")),
                 f.split("site-packages/")[-1]) for f, v in per.items())
    print(f"== exportlint code: {c}")
    for r in rs: print(f"{r[0]:5.2f}x {r[1]:6d} lines  {r[2]}")
    x = [r[0] for r in rs]
    print(f"import libcst CPU {base:.3f}s; files {len(x)}; median {statistics.median(x):.2f}x; <=1.5x: {sum(r <= 1.5 for r in x)}/{len(x)}; max {max(x):.2f}x")
print(f"load average at start {load0:.1f}, at end {os.getloadavg()[0]:.1f}")
