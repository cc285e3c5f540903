"""Long fuzz run of the static engine: generated and mutated programs through ``Linter.lint_text``
in worker processes; counts crashes (a worker that dies), exceptions escaping the engine and
internal errors (``FileResult.errors``). Not a test: it prints figures and exits 0.

    nice -n 10 python bench/fuzz.py                 # 10,000 programs (default), 2 processes
    python bench/fuzz.py -n 2000 --hypothesmith 200 -j 1

Programs: mutations of real model code (the bundled examples/ and every bad/good example of
rules/*.md): delete, duplicate or swap lines, wrap an expression in deep parentheses (up to 400
levels), insert a long `x + ... + x` (50 to 12,000 terms: past CPython's ~3,000 limit), nest the
forward body in up to 120 `if` levels, a long elif chain (up to 1,200 branches); plus programs
from hypothesmith's grammar-based generator (``--hypothesmith N``, slow to generate).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def corpus() -> list[str]:
    from exportlint.ruledocs import load_doc, rules_dir

    out = [p.read_text() for p in sorted((ROOT / "examples").rglob("*.py"))]
    for page in sorted(rules_dir().glob("EXL*.md")):
        doc = load_doc(page.stem)
        out += list(doc.bad_examples) + list(doc.good_examples)
    return [s for s in out if s.strip()]


def mutate(src: str, rng: random.Random) -> str:
    lines = src.splitlines()
    for _ in range(rng.randint(1, 4)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        ind = " " * (len(lines[i]) - len(lines[i].lstrip()))
        op = rng.randrange(8)
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[i])
        elif op == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3 and "=" in lines[i]:
            n = rng.choice([10, 100, 199, 250, 400])
            lhs, _, rhs = lines[i].partition("=")
            lines[i] = f"{lhs}= {'(' * n}{rhs.strip() or 'x'}{')' * n}"
        elif op == 4:
            n = rng.choice([50, 500, 3100, 12000])
            lines.insert(i, f"{ind}y = " + " + ".join(["x"] * n))
        elif op == 5:
            n = rng.choice([5, 30, 90, 120])
            block = [f"{ind}{'    ' * k}if x.shape[0] > {k}:" for k in range(n)]
            lines[i:i + 1] = block + [f"{ind}{'    ' * n}{lines[i].strip() or 'pass'}"]
        elif op == 6:
            n = rng.choice([10, 300, 1200])
            chain = [f"{ind}if x.sum() > 0:", f"{ind}    y = x"]
            for k in range(n):
                chain += [f"{ind}elif x.sum() > {k}:", f"{ind}    y = x * {k}"]
            lines[i:i] = chain
        else:
            cut = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:cut]
    return "\n".join(lines) + "\n"


_CORPUS: list[str] = []
_LINTER = None


def _init() -> None:
    global _CORPUS, _LINTER
    from exportlint.config import Config
    from exportlint.engine import Linter

    _CORPUS = corpus()
    _LINTER = Linter(Config())


def _hypo(seed: int) -> str:
    import warnings

    import hypothesmith
    from hypothesis import HealthCheck, given, settings

    box = []

    @settings(max_examples=1, database=None, derandomize=False, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(hypothesmith.from_grammar())
    def grab(src):
        box.append(src)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        random.seed(seed)
        grab()
    return box[-1] + "\n\ndef forward(self, x):\n    return x\n"


def run_batch(args: tuple[int, int, bool]) -> tuple[int, list[str], list[str], float]:
    """(programs, exceptions, internal errors, seconds) for programs start..start+count."""
    start, count, hypo = args
    exc, internal = [], []
    t0 = time.perf_counter()
    for k in range(start, start + count):
        rng = random.Random(k)
        src = _hypo(k) if hypo else mutate(rng.choice(_CORPUS), rng)
        try:
            r = _LINTER.lint_text(src, f"fuzz{k}.py")
        except BaseException:  # noqa: BLE001
            exc.append(f"program {k}: {traceback.format_exc(limit=3)}")
            continue
        internal += [f"program {k}: {e[:300]}" for e in r.errors]
    return count, exc, internal, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=10_000, help="mutated programs")
    ap.add_argument("--hypothesmith", type=int, default=500, help="hypothesmith programs (on top of -n)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=50)
    a = ap.parse_args()
    batches = [(s, min(a.batch, a.n - s), False) for s in range(0, a.n, a.batch)]
    batches += [(10**7 + s, min(a.batch, a.hypothesmith - s), True) for s in range(0, a.hypothesmith, a.batch)]
    done = crashes = 0
    exc: list[str] = []
    internal: list[str] = []
    t0 = time.perf_counter()
    pending = list(batches)
    while pending:
        try:
            with ProcessPoolExecutor(a.jobs, initializer=_init) as pool:
                futs = {pool.submit(run_batch, b): b for b in pending}
                for f, b in list(futs.items()):
                    n, e, i, _ = f.result()
                    done += n
                    exc += e
                    internal += i
                    pending.remove(b)
                    if done % 1000 < a.batch:
                        print(f"{done} programs, {len(exc)} exceptions, {len(internal)} internal errors, "
                              f"{crashes} crashed batches, {time.perf_counter() - t0:.0f} s", flush=True)
        except BrokenProcessPool:
            crashes += 1  # a worker died (a native crash): blame the first unfinished batch
            bad = pending.pop(0)
            print(f"worker died in batch {bad}", flush=True)
    print(f"\nTOTAL: {done} programs linted ({a.n} mutated, {a.hypothesmith} hypothesmith) in "
          f"{time.perf_counter() - t0:.0f} s: {crashes} crashed batches, {len(exc)} exceptions, "
          f"{len(internal)} internal errors")
    for s in (exc + internal)[:20]:
        print("---\n" + s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
