"""Speed and memory of the static path, each figure next to its floor measured in the same run.

    python bench/speed.py            # full corpus (~2,500 files, ~1 M lines), about 10-20 min
    python bench/speed.py --quick    # every 8th file, fewer repeats
    python bench/speed.py --jobs 2   # only 2 processes (default: 1 and 2)
    python bench/speed.py --timm     # issue 9's goals on the installed timm's models+layers, one run:
                                     # cold -j1 / libcst floor (<= 0.5), warm / ruff E,F no-cache (<= 1.0)
    python bench/speed.py --timm --code /work/main   # the same for another checkout (before/after)
    python bench/speed.py --one-file [FILE]   # only the one-file call (issue 13's goal): import libcst,
                                     # exportlint FILE cold and warm, ratio, median of --one-file-runs;
                                     # also a pre-commit-style call on a few files (--hook-files)
    python bench/speed.py --one-file --code /tmp/before   # the same for another checkout

Corpus: the ``transformers/models`` tree of the transformers wheel from PyPI, fetched with
``pip download --no-deps transformers`` into ``bench/.corpus/`` (git-ignored) when absent.

What is measured (every exportlint figure is the real CLI in a subprocess):

- floor: ``libcst.parse_module`` of every corpus file, in a fresh interpreter, with a fork
  pool of N processes (N = 1, 2): what any libcst-based linter must pay at least;
- exportlint cold: ``exportlint --no-cache -j N <files>``; ratio cold / floor (target <= 1.0);
- exportlint warm: the same with a fresh cache folder per round, filled by the run just
  before (itself shown as "cold, writing cache"); ratio cold / warm (target >= 20). The cache
  key includes exportlint's own code, so a warm run that misses because someone edited
  exportlint/ meanwhile is detected (the cache file changed) and not counted;
- one pre-commit-style call on one file (``modeling_bert.py``) with a cold and a warm cache,
  next to ``python -c "import libcst"`` (target <= 1.5x) and to
  ``python -c "import libcst; libcst.parse_module(<that file>)"``;
- peak memory of the exportlint process tree: the largest process (``ru_maxrss`` from
  ``wait4``) and the sum over the parent and its pool workers (RSS and PSS, sampled from
  /proc every 0.1 s); target < 300 MB;
- where the time goes: parse / semantic model / rules+positions on a sample of files, and
  with ``--profile`` the top functions under cProfile.

Noise: this machine is shared. Floor and measured runs are interleaved round by round (a
load spike hits both), each is repeated, and the best (minimum) wall time is compared with
the best; the median and the CPU time (user+sys of the whole process tree, which contention
inflates far less than wall time) are printed too, and the load average at start and end.
Not a test: it prints, it asserts nothing, and exits 0.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORPUS = HERE / ".corpus"
EXPORTLINT = [sys.executable, "-m", "exportlint"]
ONE_FILE = "transformers/models/bert/modeling_bert.py"

# ---------------------------------------------------------------------------------------
# corpus
# ---------------------------------------------------------------------------------------


def fetch_corpus() -> tuple[Path, str]:
    CORPUS.mkdir(parents=True, exist_ok=True)
    wheels = sorted(CORPUS.glob("transformers-*.whl"))
    if not wheels:
        print("fetching the transformers wheel (pip download --no-deps transformers) ...", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                        "-q", "-d", str(CORPUS), "transformers"], check=True)
        wheels = sorted(CORPUS.glob("transformers-*.whl"))
    wheel = wheels[-1]
    version = wheel.name.split("-")[1]
    root = CORPUS / "transformers" / "models"
    stamp = CORPUS / ".extracted"
    if not root.is_dir() or not stamp.exists() or stamp.read_text() != wheel.name:
        with zipfile.ZipFile(wheel) as z:
            z.extractall(CORPUS, members=[n for n in z.namelist() if n.startswith("transformers/models/")])
        stamp.write_text(wheel.name)
    return root, version


# ---------------------------------------------------------------------------------------
# running and measuring a subprocess tree
# ---------------------------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out.extend(int(c) for c in fh.read().split())
    except OSError:
        pass
    return out


def _mem_kb(pid: int) -> tuple[int, int]:
    rss = pss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
    except OSError:
        pass
    return rss, pss


class Sampler(threading.Thread):
    """Sum of RSS / PSS over a process and its descendants, polled."""

    def __init__(self, pid: int, interval: float = 0.1) -> None:
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.peak_rss = self.peak_pss = 0
        self.peak_procs = 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            pids, todo = [], [self.pid]
            while todo:
                p = todo.pop()
                pids.append(p)
                todo.extend(_children(p))
            rss = pss = 0
            for p in pids:
                r, s = _mem_kb(p)
                rss, pss = rss + r, pss + s
            self.peak_rss = max(self.peak_rss, rss)
            self.peak_pss = max(self.peak_pss, pss)
            self.peak_procs = max(self.peak_procs, len(pids))
            self.stop.wait(self.interval)


class Run:
    __slots__ = ("wall", "cpu", "maxrss_mb", "rc", "sum_rss_mb", "sum_pss_mb", "procs")


def run(cmd: list[str], *, sample_memory: bool = False, cwd: Path = ROOT) -> Run:
    """Wall time, CPU time (user+sys, whole waited-for tree) and max RSS of one command."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL)
    sampler = Sampler(p.pid) if sample_memory else None
    if sampler:
        sampler.start()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    r = Run()
    r.wall, r.cpu, r.maxrss_mb, r.rc = wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, p.returncode
    r.sum_rss_mb = r.sum_pss_mb = r.procs = 0
    if sampler:
        sampler.stop.set()
        sampler.join()
        r.sum_rss_mb, r.sum_pss_mb, r.procs = sampler.peak_rss / 1024, sampler.peak_pss / 1024, sampler.peak_procs
    return r


# ---------------------------------------------------------------------------------------
# the floor: libcst.parse_module alone, same files, same number of processes
# ---------------------------------------------------------------------------------------


def _floor_parse(path: str) -> int:
    import libcst

    with open(path, "rb") as fh:
        data = fh.read()
    try:
        libcst.parse_module(data)  # bytes: libcst detects the encoding like the linter does
    except Exception:
        return 0
    return 1


def floor_main(jobs: int, listfile: str) -> None:
    import libcst  # noqa: F401  (the import is part of the floor, as in the linter)

    files = Path(listfile).read_text().split("\n")
    if jobs > 1:
        import multiprocessing as mp

        chunk = max(1, min(16, len(files) // (jobs * 8) or 1))
        with mp.get_context("fork").Pool(jobs) as pool:
            list(pool.imap_unordered(_floor_parse, files, chunksize=chunk))
    else:
        for f in files:
            _floor_parse(f)


# ---------------------------------------------------------------------------------------
# where the time goes (in-process, one core)
# ---------------------------------------------------------------------------------------


def phases(files: list[str], n: int, profile: bool) -> None:
    import random

    from exportlint.config import Config
    from exportlint.engine import _EXPORT_RE, _MODEL_RE, Linter, parse_module
    from exportlint.semantics.model import SemanticModel

    texts = {f: Path(f).read_text(encoding="utf-8") for f in files}
    passing = [f for f in files if _MODEL_RE.search(texts[f]) or _EXPORT_RE.search(texts[f])]
    lines_all = sum(t.count("\n") for t in texts.values())
    lines_pass = sum(texts[f].count("\n") for f in passing)
    print(f"\nwhere the time goes (one process, CPU seconds, {n} random files that pass the text prefilter)")
    print(f"  prefilter: {len(passing)}/{len(files)} files ({lines_pass / max(lines_all, 1):.0%} of the lines) "
          "define a forward or call an exporter; the rest are never parsed")
    random.seed(0)
    sample = random.sample(passing, min(n, len(passing)))
    import libcst

    linter = Linter(Config())
    best = {}
    for _ in range(2):
        t = {"libcst.parse_module (floor)": 0.0, "parse (engine)": 0.0, "semantic model": 0.0, "lint_text total": 0.0}
        for f in sample:
            s = texts[f]
            a = time.process_time()
            libcst.parse_module(s)
            b = time.process_time()
            m = parse_module(s)
            c = time.process_time()
            SemanticModel(m, scan_export_calls=bool(_EXPORT_RE.search(s)))
            d = time.process_time()
            linter.lint_text(s, f)
            e = time.process_time()
            t["libcst.parse_module (floor)"] += b - a
            t["parse (engine)"] += c - b
            t["semantic model"] += d - c
            t["lint_text total"] += e - d
        best = {k: min(v, best.get(k, v)) for k, v in t.items()}
    best["rules + positions + suppressions"] = best["lint_text total"] - best["parse (engine)"] - best["semantic model"]
    fl = best["libcst.parse_module (floor)"]
    for k, v in best.items():
        print(f"  {k:34s} {v:7.2f} s  {v / fl:5.2f} x floor")
    if profile:
        import cProfile
        import pstats

        pr = cProfile.Profile()
        pr.enable()
        for f in sample:
            linter.lint_text(texts[f], f)
        pr.disable()
        st = pstats.Stats(pr)
        rows = []
        for (fn, line, name), (cc, nc, tt, ct, callers) in st.stats.items():
            if "/exportlint/" in fn:
                rows.append((ct, tt, nc, f"{fn.split('/exportlint/')[-1]}:{line}({name})"))
        rows.sort(reverse=True)
        total = st.total_tt
        print(f"\n  cProfile of lint_text on the sample (profiled total {total:.1f} s; cumulative / own seconds)")
        for ct, tt, nc, name in rows[:25]:
            print(f"    {ct:7.2f} {tt:7.2f} {nc:8d}  {name}")


# ---------------------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------------------


def fmt_ratio(x: float, target: str, ok: bool) -> str:
    return f"{x:6.2f}  (target {target}: {'MET' if ok else 'NOT met'})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="every 8th file and fewer repeats")
    ap.add_argument("--jobs", type=int, action="append", help="process counts to measure (default: 1 and 2)")
    ap.add_argument("--repeat", type=int, default=None, help="rounds of interleaved runs (default: 2, quick: 3)")
    ap.add_argument("--one-file-runs", type=int, default=7, help="runs of each one-file command (median)")
    ap.add_argument("--profile", action="store_true", help="also cProfile the engine on a sample")
    ap.add_argument("--_floor", nargs=2, metavar=("JOBS", "LISTFILE"), help=argparse.SUPPRESS)
    ap.add_argument("--timm", action="store_true",
                    help="the whole-project goals on timm's models+layers (installed timm): cold -j1 / floor "
                         "(target <= 0.5) and warm / ruff --select E,F --no-cache (target <= 1.0)")
    ap.add_argument("--code", default=None,
                    help="with --timm or --one-file: the exportlint checkout to measure (default: this one), for before/after")
    ap.add_argument("--also", action="append", default=[], metavar="CODE",
                    help="with --timm: also time the cold -j1 run of this checkout in every round (interleaved A/B); "
                         "prints per-round wall and CPU ratios to the floor and their medians for each checkout")
    ap.add_argument("--one-file", nargs="?", const="", default=None, metavar="FILE",
                    help="only the one-file call: FILE (default: the installed transformers' modeling_bert.py) "
                         "cold and warm, next to `python -c 'import libcst'` (target <= 1.5x, better 1.2x)")
    ap.add_argument("--hook-files", type=int, default=5,
                    help="with --one-file: also a pre-commit-style call on this many sibling files (0: skip)")
    args = ap.parse_args(argv)
    if args._floor:
        floor_main(int(args._floor[0]), args._floor[1])
        return 0
    if args.timm:
        return timm_main(args)
    if args.one_file is not None:
        return one_file_main(args)

    root, version = fetch_corpus()
    files = sorted(glob.glob(str(root / "**" / "*.py"), recursive=True))
    if args.quick:
        files = files[::8]
    jobs_list = args.jobs or [1, 2]
    repeat = args.repeat or (3 if args.quick else 2)
    lines = sum(Path(f).read_bytes().count(b"\n") for f in files)
    rel = [os.path.relpath(f, ROOT) for f in files]

    # the CLI must lint exactly these files (the corpus sits in a git-ignored folder)
    from exportlint.config import load_config
    from exportlint.discovery import discover

    found = discover(rel, load_config(start=ROOT / rel[0]))
    assert len(found.files) == len(files), (len(found.files), len(files))

    tmp = Path(tempfile.mkdtemp(prefix="exl-speed-"))
    listfile = tmp / "files.txt"
    listfile.write_text("\n".join(files))
    out = tmp / "out.txt"
    load0 = os.getloadavg()
    ncpu = os.cpu_count()
    print(f"exportlint speed benchmark — corpus: transformers {version} transformers/models"
          f"{' (--quick: every 8th file)' if args.quick else ''}: {len(files)} files, {lines:,} lines")
    print(f"python {sys.version.split()[0]}, {ncpu} CPUs, load average at start {load0[0]:.1f} {load0[1]:.1f} {load0[2]:.1f}")
    print(f"noise: {repeat} interleaved rounds (floor, cold, warm per process count in each round); "
          "best wall compared with best wall; median and CPU (user+sys of the process tree) shown too\n")

    # warm the page cache for everyone (not measured)
    run([sys.executable, str(Path(__file__).resolve()), "--_floor", str(max(jobs_list)), str(listfile)])

    def cache_state(d: Path) -> set:
        return {(p.name, p.stat().st_mtime_ns) for p in d.glob("c/*.json")} if (d / "c").is_dir() else set()

    res: dict[tuple[str, int], list[Run]] = {}
    misses = 0
    for rnd in range(repeat):
        for j in jobs_list:
            # a fresh cache folder per round: the "fill" run writes it, the "warm" run reads it
            d = tmp / f"cache{j}-{rnd}"
            d.mkdir()
            cfg = d / "pyproject.toml"
            cfg.write_text(f'[tool.exportlint]\ncache-dir = "{(d / "c").as_posix()}"\n')
            for kind in ("floor", "cold", "fill", "warm"):
                if kind == "floor":
                    cmd = [sys.executable, str(Path(__file__).resolve()), "--_floor", str(j), str(listfile)]
                elif kind == "cold":
                    cmd = EXPORTLINT + ["-j", str(j), "--no-cache", "--format", "concise", "-o", str(out)] + rel
                else:
                    cmd = EXPORTLINT + ["-j", str(j), "--config", str(cfg), "--format", "concise", "-o", str(out)] + rel
                before = cache_state(d)
                r = run(cmd, sample_memory=(kind == "cold"))
                note = ""
                if kind != "floor":
                    assert r.rc in (0, 1), f"exportlint {kind} failed with exit status {r.rc}"
                if kind == "warm" and cache_state(d) != before:
                    # the cache key includes exportlint's own code: someone edited it meanwhile
                    note = "  cache MISS (exportlint's code changed during the run): not counted"
                    misses += 1
                else:
                    res.setdefault((kind, j), []).append(r)
                print(f"  round {rnd + 1}/{repeat}  -j {j}  {kind:5s}  wall {r.wall:7.2f} s  cpu {r.cpu:7.2f} s{note}",
                      flush=True)
    for j in jobs_list:
        res.setdefault(("warm", j), [])
        if not res[("warm", j)]:
            print(f"  no valid warm run for -j {j}: rerun when nobody edits exportlint/")
            r = Run()
            r.wall = r.cpu = float("nan")
            res[("warm", j)].append(r)

    def best(kind: str, j: int) -> float:
        return min(r.wall for r in res[(kind, j)])

    def med(kind: str, j: int) -> float:
        return statistics.median(r.wall for r in res[(kind, j)])

    def cpu(kind: str, j: int) -> float:
        return min(r.cpu for r in res[(kind, j)])

    print("\nfull corpus (wall seconds: best of rounds / median; CPU: best)")
    print(f"  {'run':34s} {'best':>8s} {'median':>8s} {'cpu':>8s} {'files/s':>9s} {'lines/s':>10s}")
    for j in jobs_list:
        for kind, label in (("floor", f"floor: libcst.parse_module -j {j}"), ("cold", f"exportlint cold -j {j}"),
                            ("fill", f"exportlint cold, writing cache -j {j}"), ("warm", f"exportlint warm cache -j {j}")):
            b = best(kind, j)
            print(f"  {label:34s} {b:8.2f} {med(kind, j):8.2f} {cpu(kind, j):8.2f} {len(files) / b:9.0f} {lines / b:10,.0f}")
    print("\nratios")
    for j in jobs_list:
        r1 = best("cold", j) / best("floor", j)
        print(f"  -j {j}  cold / floor (wall, best)        {fmt_ratio(r1, '<= 1.0', r1 <= 1.0)}")
        print(f"  -j {j}  cold / floor (wall, median)      {med('cold', j) / med('floor', j):6.2f}")
        print(f"  -j {j}  cold / floor (CPU)               {cpu('cold', j) / cpu('floor', j):6.2f}")
        r2 = best("cold", j) / best("warm", j)
        print(f"  -j {j}  cold / warm  (wall, best)        {fmt_ratio(r2, '>= 20', r2 >= 20)}")
    if 1 in jobs_list and len(jobs_list) > 1:
        jm = max(jobs_list)
        print(f"  using the cores: speed-up -j 1 -> -j {jm}: exportlint {best('cold', 1) / best('cold', jm):.2f}x, "
              f"floor {best('floor', 1) / best('floor', jm):.2f}x; CPU/wall of exportlint -j {jm}: "
              f"{min(r.cpu / r.wall for r in res[('cold', jm)]):.2f}-{max(r.cpu / r.wall for r in res[('cold', jm)]):.2f} "
              f"(of {jm} possible)")

    # ---- memory
    print("\npeak memory of a cold exportlint run (MB)")
    for j in jobs_list:
        rs = res[("cold", j)]
        big = max(r.maxrss_mb for r in rs)
        srss = max(r.sum_rss_mb for r in rs)
        spss = max(r.sum_pss_mb for r in rs)
        print(f"  -j {j}: largest process {big:6.1f}  (target < 300: {'MET' if big < 300 else 'NOT met'});  "
              f"tree of {max(r.procs for r in rs)} processes: sum RSS {srss:6.1f}, sum PSS {spss:6.1f} "
              f"(target < 300: {'MET' if spss < 300 else 'NOT met'})")

    # ---- one file
    one = str(root.parent.parent / ONE_FILE)
    one_rel = os.path.relpath(one, ROOT)
    n_lines = Path(one).read_bytes().count(b"\n")
    d = tmp / "onefile"
    d.mkdir()
    (d / "pyproject.toml").write_text(f'[tool.exportlint]\ncache-dir = "{(d / "c").as_posix()}"\n')
    run(EXPORTLINT + ["--config", str(d / "pyproject.toml"), one_rel])  # fill
    cmds = {
        'python -c "import libcst"  (floor)': [sys.executable, "-c", "import libcst"],
        "python -c import libcst + parse_module(file)": [sys.executable, "-c",
            f"import libcst; libcst.parse_module(open({one!r}, 'rb').read())"],
        "exportlint FILE  (cold: --no-cache)": EXPORTLINT + ["--no-cache", one_rel],
        "exportlint FILE  (warm cache)": EXPORTLINT + ["--config", str(d / "pyproject.toml"), one_rel],
    }
    times: dict[str, list[float]] = {k: [] for k in cmds}
    for _ in range(args.one_file_runs):
        for k, c in cmds.items():
            times[k].append(run(c).wall)
    print(f"\none pre-commit-style call on one file: {ONE_FILE} ({n_lines} lines), "
          f"{args.one_file_runs} interleaved runs each (median / best wall seconds)")
    fl_med = statistics.median(times['python -c "import libcst"  (floor)'])
    fl_min = min(times['python -c "import libcst"  (floor)'])
    for k, v in times.items():
        m = statistics.median(v)
        line = f"  {k:46s} {m:6.3f} / {min(v):6.3f}   {m / fl_med:5.2f}x import libcst (best {min(v) / fl_min:4.2f}x)"
        if k.startswith("exportlint"):
            line += f"  target <= 1.5x: {'MET' if m / fl_med <= 1.5 else 'NOT met'}"
        print(line)
    pf = statistics.median(times["python -c import libcst + parse_module(file)"])
    print(f"  cold call vs its own floor (import libcst + parse that file): "
          f"{statistics.median(times['exportlint FILE  (cold: --no-cache)']) / pf:.2f}x")

    phases(files, 40 if args.quick else 100, args.profile)
    load1 = os.getloadavg()
    print(f"\nload average at end {load1[0]:.1f} {load1[1]:.1f} {load1[2]:.1f}")
    return 0


def one_file_main(args: argparse.Namespace) -> int:
    """Issue 13's goal alone: ``exportlint FILE`` (cold: --no-cache; warm: cache hit) next to
    ``python -c "import libcst"``, interleaved, median of N runs; and a pre-commit-style call on a
    few files of the same folder. No corpus download."""
    import importlib.util

    if args.one_file:
        one = Path(args.one_file).resolve()
    else:
        spec = importlib.util.find_spec("transformers")
        if spec is None or not spec.submodule_search_locations:
            print("transformers is not installed: name a file (--one-file FILE)")
            return 0
        one = Path(list(spec.submodule_search_locations)[0]) / "models" / "bert" / "modeling_bert.py"
    code = Path(args.code).resolve() if args.code else ROOT
    env = dict(os.environ, PYTHONPATH=str(code))
    tmp = Path(tempfile.mkdtemp(prefix="exl-onefile-"))
    cfg = tmp / "pyproject.toml"
    cfg.write_text(f'[tool.exportlint]\ncache-dir = "{(tmp / "c").as_posix()}"\n')
    (tmp / "e").mkdir()
    cfg2 = tmp / "e" / "pyproject.toml"
    cfg2.write_text(f'[tool.exportlint]\ncache-dir = "{(tmp / "e" / "c").as_posix()}"\n')
    EDITED = "exportlint FILE  cold, edited (index stored)"
    # pre-commit passes the changed files: here, that file and the model files that follow it
    # in the folder tree (for bert: the next models' modeling_*.py, alphabetically)
    sib = sorted(one.parent.parent.glob(f"*/{one.name.split('_')[0]}_*.py"))
    sib = sib[sib.index(one) + 1:] if one in sib else sib
    hook = [str(one)] + [str(p) for p in sib[: max(args.hook_files - 1, 0)]] if args.hook_files > 1 else []
    el = [sys.executable, "-m", "exportlint", "--format", "json"]

    cpu: dict[str, list[float]] = {}

    def timed(cmd: list[str], key: str = "") -> float:
        """Wall seconds; the CPU seconds (user+sys of the process and its workers, which a
        loaded machine inflates far less) go to cpu[key]."""
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=tmp)
        err = p.stderr.read() if p.stderr else b""
        _, status, ru = os.wait4(p.pid, 0)
        w = time.perf_counter() - t
        rc = os.waitstatus_to_exitcode(status)
        p.returncode = rc
        if rc not in (0, 1):
            raise SystemExit(f"{cmd[:5]} failed ({rc}): {err.decode()[-2000:]}")
        cpu.setdefault(key, []).append(ru.ru_utime + ru.ru_stime)
        return w

    floor = 'python -c "import libcst"'
    cmds = {
        floor: [sys.executable, "-c", "import libcst"],
        "python -c import libcst + parse_module(FILE)": [sys.executable, "-c",
            f"import libcst; libcst.parse_module(open({str(one)!r}, 'rb').read())"],
        "exportlint FILE  cold (--no-cache)": el + ["--no-cache", str(one)],
        "exportlint FILE  warm (cache hit)": el + ["--config", str(cfg), str(one)],
        # the file changed since the last run, the files it imports did not (the editor and
        # pre-commit case): the findings cache misses, the stored index of imports hits
        EDITED: el + ["--config", str(cfg2), str(one)],
    }
    # a file of the same folder that needs no parse (a config, a tokenizer): most of what a
    # pre-commit hook on a model repo is handed (engine._light_findings)
    plain = next((q for q in sorted(one.parent.glob("*.py"), key=lambda q: -q.stat().st_size) if q != one
                  and not re.search(r"\bdef\s+forward\b|\b(?:export|trace)\s*\(|quantiz", q.read_text("utf-8", "replace"))), None)
    if plain is not None:
        cmds[f"exportlint {plain.name} (no model) cold"] = el + ["--no-cache", str(plain)]
    if hook:
        cmds[f"exportlint {len(hook)} files cold (hook)"] = el + ["--no-cache"] + hook
        cmds[f"exportlint {len(hook)} files warm (hook)"] = el + ["--config", str(cfg)] + hook
    # an installed exportlint has its bytecode compiled (pip does it); a checkout run with
    # PYTHONDONTWRITEBYTECODE=1 would recompile ~40 modules per call (~0.13 s): not what users feel
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(code / "exportlint")], check=False,
                   stdout=subprocess.DEVNULL, env=dict(env, PYTHONDONTWRITEBYTECODE=""))
    # likewise the compiled dataclass methods of libcst's import (exportlint/lightcst.py), which
    # a user's first run writes beside that bytecode (a checkout without lightcst: nothing)
    subprocess.run([sys.executable, "-c", "from exportlint.lightcst import prepare; prepare()"], check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp,
                   env=dict(env, PYTHONDONTWRITEBYTECODE=""))
    timed(cmds["exportlint FILE  warm (cache hit)"])  # fills the cache and the page cache
    timed(cmds[EDITED])
    if hook:
        timed(cmds[f"exportlint {len(hook)} files warm (hook)"])
    load0 = os.getloadavg()
    n = args.one_file_runs
    times: dict[str, list[float]] = {k: [] for k in cmds}
    for _ in range(n):
        for k, c in cmds.items():
            if k == EDITED:  # forget the findings, keep the stored index of the imported files
                for f in (tmp / "e" / "c").glob("v*.json"):
                    f.unlink()
            times[k].append(timed(c, k))
    n_lines = one.read_bytes().count(b"\n")
    print(f"one-file call: {one} ({n_lines} lines); exportlint code: {code}")
    if hook:
        hook_lines = sum(Path(h).read_bytes().count(b"\n") for h in hook)
        print(f"hook call: that file and {', '.join(Path(h).name for h in hook[1:])} ({hook_lines} lines in all)")
    print(f"{n} interleaved runs of each, wall seconds median / best, and the median CPU seconds (user+sys "
          f"of the process tree); load average at start {load0[0]:.1f}, at end {os.getloadavg()[0]:.1f}")
    fm, fb = statistics.median(times[floor]), min(times[floor])
    fc = statistics.median(cpu[floor])
    print(f"  {'':46s} {'wall':>15s}   {'wall ratio':>34s}  {'cpu':>6s} {'cpu ratio':>9s}")
    for k, v in times.items():
        m = statistics.median(v)
        c = statistics.median(cpu[k])
        line = (f"  {k:46s} {m:6.3f} / {min(v):6.3f}   {m / fm:5.2f}x import libcst (best {min(v) / fb:4.2f}x)"
                f"  {c:6.3f} {c / fc:8.2f}x")
        if k.startswith("exportlint FILE"):
            line += f"  target <= 1.5x (wall median): {'MET' if m / fm <= 1.5 else 'NOT met'}"
        print(line)
    pf = statistics.median(cpu["python -c import libcst + parse_module(FILE)"])
    print("  against this file's own floor (import libcst + parse it whole), CPU: "
          + ", ".join(f"{k.split('  ')[1]} {statistics.median(cpu[k]) / pf:.2f}x"
                      for k in cmds if k.startswith("exportlint FILE")))
    return 0


def timm_main(args: argparse.Namespace) -> int:
    """Cold -j1 vs the libcst floor and warm vs ruff, on timm/models + timm/layers, one run."""
    import importlib.util

    spec = importlib.util.find_spec("timm")
    if spec is None or not spec.submodule_search_locations:
        print("timm is not installed")
        return 0
    troot = Path(list(spec.submodule_search_locations)[0])
    files = sorted(str(p) for d in ("models", "layers") for p in (troot / d).rglob("*.py"))
    lines = sum(Path(f).read_bytes().count(b"\n") for f in files)
    code = Path(args.code).resolve() if args.code else ROOT
    env = dict(os.environ, PYTHONPATH=str(code))
    tmp = Path(tempfile.mkdtemp(prefix="exl-timm-"))
    listfile = tmp / "files.txt"
    listfile.write_text("\n".join(files))
    cfg = tmp / "pyproject.toml"
    cfg.write_text(f'[tool.exportlint]\ncache-dir = "{(tmp / "c").as_posix()}"\n')
    ruff = Path(sys.executable).parent / "ruff"
    repeat = args.repeat or 3
    print(f"timm {troot.parent.name}: models+layers, {len(files)} files, {lines:,} lines; exportlint code: {code}")

    cpu_s: dict[str, list[float]] = {}
    wall_s: dict[str, list[float]] = {}

    def timed(cmd: list[str], key: str = "", run_env: dict | None = None) -> float:
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=run_env or env, cwd=tmp)
        err = p.stderr.read() if p.stderr else b""
        _, status, ru = os.wait4(p.pid, 0)
        w = time.perf_counter() - t
        rc = os.waitstatus_to_exitcode(status)
        if rc not in (0, 1):
            raise SystemExit(f"{cmd[:4]} failed ({rc}): {err.decode()[-2000:]}")
        if key:
            wall_s.setdefault(key, []).append(w)
            cpu_s.setdefault(key, []).append(ru.ru_utime + ru.ru_stime)
        return w

    el = [sys.executable, "-m", "exportlint", "-j", "1", "--format", "concise"]
    cmds = {
        "floor: libcst.parse_module -j1": [sys.executable, str(Path(__file__).resolve()), "--_floor", "1", str(listfile)],
        "exportlint cold -j1 --no-cache": el + ["--no-cache"] + files,
        "exportlint warm cache -j1": el + ["--config", str(cfg)] + files,
        "ruff check --select E,F --no-cache": [str(ruff), "check", "--select", "E,F", "--no-cache", "--quiet",
                                               "--exit-zero"] + files,
    }
    envs: dict[str, dict] = {}
    for other in args.also:
        k = f"cold -j1 of {Path(other).resolve()}"
        cmds[k] = el + ["--no-cache"] + files
        envs[k] = dict(os.environ, PYTHONPATH=str(Path(other).resolve()))
    timed(cmds["exportlint warm cache -j1"])  # fills the cache (and the page cache)
    best: dict[str, float] = {}
    for rnd in range(repeat):
        for k, c in cmds.items():
            w = timed(c, k, envs.get(k))
            best[k] = min(w, best.get(k, w))
            print(f"  round {rnd + 1}/{repeat}  {k:36s} {w:7.2f} s  cpu {cpu_s[k][-1]:7.2f} s", flush=True)
    print("\nbest wall seconds")
    for k, v in best.items():
        print(f"  {k:36s} {v:7.2f}")
    r1 = best["exportlint cold -j1 --no-cache"] / best["floor: libcst.parse_module -j1"]
    r2 = best["exportlint warm cache -j1"] / best["ruff check --select E,F --no-cache"]
    print(f"  cold -j1 / libcst floor   {fmt_ratio(r1, '<= 0.5', r1 <= 0.5)}")
    fl = "floor: libcst.parse_module -j1"
    print("\ncold -j1 / floor per round (same round's floor), wall and CPU, and their medians")
    for k in ["exportlint cold -j1 --no-cache"] + [k for k in cmds if k.startswith("cold -j1 of ")]:
        rw = [a / b for a, b in zip(wall_s[k], wall_s[fl])]
        rc = [a / b for a, b in zip(cpu_s[k], cpu_s[fl])]
        name = str(code) if k == "exportlint cold -j1 --no-cache" else k[len("cold -j1 of "):]
        print(f"  {name}")
        print(f"    wall {' '.join(f'{x:.3f}' for x in rw)}  median {statistics.median(rw):.3f}")
        print(f"    cpu  {' '.join(f'{x:.3f}' for x in rc)}  median {statistics.median(rc):.3f}")
    print(f"  warm / ruff E,F no-cache  {fmt_ratio(r2, '<= 1.0', r2 <= 1.0)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
