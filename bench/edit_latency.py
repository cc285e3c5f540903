"""One-file latency after a real edit (issue 13: what an editor or a pre-commit hook feels).

For a few real model files (transformers' modeling_bert.py and files drawn like
bench/one_file_sample.py does), three kinds of edit, each made N times with a different
number so every run sees new text:

- ``line``: a statement added inside the body of the file's first ``forward``;
- ``stmt``: a top-level statement added after the imports;
- ``method``: a method added to the first class that defines a ``forward``.

The file is linted in place in its package (a temporary mirror: every directory on its path
is real, every other entry a symlink, the edited file a copy), with the cache on: before the
first timed run the unedited file is linted once (the cache then holds its findings, the
index of the files it imports and, with the parse cache, its parsed statements). Each timed
run is ``exportlint -q FILE`` right after the edit: the findings cache misses, the rest may
hit. Shown: the median CPU time (user+sys of the process and its workers; a loaded machine
inflates wall time far more) and wall time, each divided by the median of
``python -c "import libcst"`` measured interleaved. A detached writer process (the parse
cache's) is not the caller's time: it is not waited for, and the script sleeps briefly
between runs so it is not measured in the next one either.

    python bench/edit_latency.py                          # this checkout
    python bench/edit_latency.py --code /work/main        # also another checkout, interleaved
    python bench/edit_latency.py --runs 5 --files 3

Prints, asserts nothing.
"""

from __future__ import annotations

import argparse
import ast
import glob
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def sample_files(n: int) -> list[Path]:
    import importlib.util
    import site

    sp = site.getsitepackages()[0]
    out = []
    spec = importlib.util.find_spec("transformers")
    if spec is not None and spec.submodule_search_locations:
        bert = Path(list(spec.submodule_search_locations)[0]) / "models" / "bert" / "modeling_bert.py"
        if bert.exists():
            out.append(bert)
    random.seed(0)
    for pat in ("transformers/models/*/modeling_*.py", "timm/models/*.py", "torchvision/models/*.py"):
        fs = sorted(glob.glob(os.path.join(sp, pat)))
        fs = [f for f in fs if "def forward" in Path(f).read_text("utf-8", "replace")]
        if fs:
            out.append(Path(random.choice(fs)))
    return out[: max(n, 1)]


def mirror(src: Path, tmp: Path) -> Path:
    """A copy of ``src`` at the same place in a mirror of its top-level package: the
    directories on its path are real, everything else in them is a symlink."""
    top = src.parent
    while (top.parent / "__init__.py").exists():
        top = top.parent
    base = top.parent
    rel = src.relative_to(base)
    cur_src, cur_dst = base, tmp
    for k, name in enumerate(rel.parts[:-1]):
        cur_src, cur_dst = cur_src / name, cur_dst / name
        cur_dst.mkdir(parents=True)
        keep = rel.parts[k + 1]  # the next directory on the path, or the file
        for e in cur_src.iterdir():
            if e.name not in (keep, "__pycache__"):
                os.symlink(e, cur_dst / e.name)
    dst = tmp / rel
    shutil.copyfile(src, dst)
    return dst


def edits(text: str) -> dict[str, callable]:
    """kind -> f(i) giving the text with the i-th variant of that edit."""
    tree = ast.parse(text)
    lines = text.splitlines(True)
    out = {}
    fwd_cls = next((c for c in tree.body if isinstance(c, ast.ClassDef)
                    and any(isinstance(f, ast.FunctionDef) and f.name == "forward" for f in c.body)), None)
    if fwd_cls is not None:
        fwd = next(f for f in fwd_cls.body if isinstance(f, ast.FunctionDef) and f.name == "forward")
        last = fwd.body[-1]
        ind = " " * last.col_offset

        def line(i: int, last=last, ind=ind) -> str:  # before the forward's last statement
            return "".join(lines[: last.lineno - 1] + [f"{ind}_edit_{i} = {i}\n"] + lines[last.lineno - 1:])

        out["line"] = line
        mind = " " * fwd.col_offset
        at = min([fwd.lineno] + [d.lineno for d in fwd.decorator_list])

        def method(i: int, at=at, mind=mind) -> str:
            return "".join(lines[: at - 1] + [f"{mind}def _edit_method_{i}(self):\n", f"{mind}    return {i}\n", "\n"]
                           + lines[at - 1:])

        out["method"] = method
    imports = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
    after = imports[-1].end_lineno if imports else 0

    def stmt(i: int, after=after) -> str:
        return "".join(lines[:after] + [f"_EDIT_CONSTANT = {i}\n"] + lines[after:])

    out["stmt"] = stmt
    return out


def cpu_wall(cmd: list[str], env: dict, cwd: Path) -> tuple[float, float]:
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    err = p.stderr.read() if p.stderr else b""
    _, status, ru = os.wait4(p.pid, 0)
    w = time.perf_counter() - t
    rc = os.waitstatus_to_exitcode(status)
    if rc not in (0, 1):
        raise SystemExit(f"{cmd} failed ({rc}): {err.decode()[-2000:]}")
    return ru.ru_utime + ru.ru_stime, w


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--code", action="append", default=[], help="another checkout to measure too (repeatable)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--files", type=int, default=4)
    ap.add_argument("--pause", type=float, default=0.4, help="seconds between runs (the background writer)")
    args = ap.parse_args()
    codes = [ROOT] + [Path(c).resolve() for c in args.code]
    for c in codes:  # installed exportlint has its bytecode compiled (and lightcst's methods: speed.py)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(c / "exportlint")], check=False,
                       stdout=subprocess.DEVNULL, env=dict(os.environ, PYTHONDONTWRITEBYTECODE=""))
        subprocess.run([sys.executable, "-c", "from exportlint.lightcst import prepare; prepare()"], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tempfile.gettempdir(),
                       env=dict(os.environ, PYTHONDONTWRITEBYTECODE="", PYTHONPATH=str(c)))
    files = sample_files(args.files)
    floor: list[tuple[float, float]] = []
    rows = []
    load0 = os.getloadavg()
    for src in files:
        text = src.read_text(encoding="utf-8")
        kinds = edits(text)
        setups = {}
        for c in codes:
            tmp = Path(tempfile.mkdtemp(prefix="exl-edit-"))
            dst = mirror(src, tmp / "site")
            cfg = tmp / "exportlint.toml"
            cfg.write_text(f'cache-dir = "{(tmp / "cache").as_posix()}"\n')
            env = dict(os.environ, PYTHONPATH=str(c))
            cmd = [sys.executable, "-m", "exportlint", "-q", "--config", str(cfg), str(dst)]
            setups[c] = (tmp, dst, env, cmd)
        for kind, make in kinds.items():
            for c in codes:  # the unedited file, linted once: the cache holds it
                tmp, dst, env, cmd = setups[c]
                dst.write_text(text, encoding="utf-8")
                cpu_wall(cmd, env, tmp)
                time.sleep(args.pause)
            res: dict[Path, list[tuple[float, float]]] = {c: [] for c in codes}
            for i in range(1, args.runs + 1):
                new = make(i)
                for c in codes:
                    tmp, dst, env, cmd = setups[c]
                    dst.write_text(new, encoding="utf-8")
                    res[c].append(cpu_wall(cmd, env, tmp))
                    time.sleep(args.pause)
                floor.append(cpu_wall([sys.executable, "-c", "import libcst"], dict(os.environ), Path(tempfile.gettempdir())))
            rows.append((src, kind, res))
        for c in codes:
            shutil.rmtree(setups[c][0], ignore_errors=True)
    fc = statistics.median(x[0] for x in floor)
    fw = statistics.median(x[1] for x in floor)
    print(f"edit latency: {args.runs} runs per file and edit; python -c 'import libcst': cpu {fc:.3f} s, wall {fw:.3f} s "
          f"(median of {len(floor)}); load average at start {load0[0]:.1f}, at end {os.getloadavg()[0]:.1f}")
    print(f"  {'file':44s} {'edit':7s} " + " ".join(f"{'cpu / wall x  ' + (c.name or str(c)):>28s}" for c in codes))
    per: dict[Path, list[float]] = {c: [] for c in codes}
    perw: dict[Path, list[float]] = {c: [] for c in codes}
    for src, kind, res in rows:
        cells = []
        for c in codes:
            mc = statistics.median(x[0] for x in res[c]) / fc
            mw = statistics.median(x[1] for x in res[c]) / fw
            per[c].append(mc)
            perw[c].append(mw)
            cells.append(f"{mc:13.2f} / {mw:4.2f}x")
        name = "/".join(src.parts[-3:])
        print(f"  {name[-44:]:44s} {kind:7s} " + " ".join(f"{x:>28s}" for x in cells))
    for c in codes:
        print(f"  {str(c):50s} median over files and edits: cpu {statistics.median(per[c]):.2f}x, "
              f"wall {statistics.median(perw[c]):.2f}x import libcst; cpu <= 1.5x: "
              f"{sum(r <= 1.5 for r in per[c])}/{len(per[c])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
