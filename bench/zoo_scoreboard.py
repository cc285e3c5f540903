#!/usr/bin/env python3
"""Zoo scoreboard: exportlint's static findings against REAL exports of real model zoos.

Ground truth (``bench/data/zoo_truth.json``, committed measurement data) comes from building
real models of torchvision, timm and transformers (random weights, tiny configs) and exporting
each with each exporter in its own process (``bench/zoo_worker.py``, see its docstring for how
outcomes, failing lines, TracerWarning lines and ran-lines are recorded). The zoos are the
PyPI wheels installed in the environment; nothing of them is committed. Install them with torch
pinned first, e.g. ``pip install torch==2.13.0 timm==1.0.31 transformers==5.23.0
torchvision==0.28.0`` (the pins the committed truth was measured with).

Scoring needs no torch: exportlint lints the zoos' model source in site-packages (timm/models
+ timm/layers; torchvision/models + torchvision/ops; transformers/models/<arch> of the
architectures measured + the shared transformers modules the truth names) and per zoo:

- RECALL: failing user lines (per exporter; an exporter's failure located at a zoo line) that
  have an error or warning finding naming that exporter within +-1 line. Recall of the
  legacy exporter's TracerWarning lines ("warns") is reported separately.
- ERROR PRECISION: each error finding is judged per exporter it names: true if that exporter
  failed within +-1 line of it (or warned there in an export that diverged from eager);
  false if its line ran in a passing, eager-matching export of an exporter it names (and that
  exporter did not warn there); otherwise unjudged. A finding is true if true for any named
  exporter, else false if false for any, else unjudged. precision = true / (true + false).

Usage:
  python bench/zoo_scoreboard.py                       # score today's exportlint vs the truth
  python bench/zoo_scoreboard.py --refresh [-j 1] [--only NAME ...] [--timeout 240]
  python bench/zoo_scoreboard.py --json OUT.json --findings-out lint.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import sysconfig
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor, as_completed
from importlib import metadata
from itertools import zip_longest
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TRUTH = HERE / "data" / "zoo_truth.json"
EXPORTERS = ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")
ZOOS = ("torchvision", "timm", "transformers")
#: folders linted whole, per zoo (relative to site-packages)
LINT_DIRS = {"torchvision": ["torchvision/models", "torchvision/ops"], "timm": ["timm/models", "timm/layers"],
             "transformers": []}
VERSIONED = ("torch", "torchvision", "timm", "transformers", "onnx", "onnxscript", "onnxruntime")


def versions() -> dict:
    out = {}
    for d in VERSIONED:
        try:
            out[d] = metadata.version(d)
        except metadata.PackageNotFoundError:
            out[d] = None
    return out


def site_packages() -> Path:
    return Path(sysconfig.get_paths()["purelib"]).resolve()


# --------------------------------------------------------------------------- refresh (runs workers)
def refresh(names: list[str], jobs: int, timeout: float, mem_gb: float, keep_order: bool = False,
            exporters: list[str] | None = None) -> dict:
    sys.path.insert(0, str(HERE))
    import zoo_worker  # torch-free at top level

    truth = load_truth() if TRUTH.exists() else {"models": {}}
    vers = versions()
    if truth.get("versions") and truth["versions"] != vers and set(names) != set(zoo_worker.MODELS):
        print(f"note: the truth was measured with {truth['versions']}, now {vers}: run a full --refresh",
              file=sys.stderr)
    tmp = Path(os.environ.get("ZOO_TMP", "/tmp")) / f"zoo-scoreboard-{os.getpid()}"
    tmp.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), ZOO_TMP=str(tmp),
               PYTHONWARNINGS="ignore", TORCHINDUCTOR_CACHE_DIR=str(tmp / "inductor"))
    t_all = time.perf_counter()

    def one(name: str):
        out = tmp / (name.replace("/", "_") + ".json")
        t0 = time.perf_counter()
        cmd = ["nice", "-n", "10", sys.executable, str(HERE / "zoo_worker.py"), name, str(out),
               "--timeout", str(timeout), "--mem-gb", str(mem_gb)] + (["--exporters", *exporters] if exporters else [])
        try:
            p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout * len(EXPORTERS) + 120)
            log = p.stderr
        except subprocess.TimeoutExpired:
            log = "worker timed out"
        wall = time.perf_counter() - t0
        if out.exists():
            rec = json.loads(out.read_text(encoding="utf-8"))
        else:
            rec = {"model": name, "zoo": zoo_worker.MODELS[name][0], "exporters": {},
                   "error": log.strip().splitlines()[-1][:300] if log.strip() else "worker produced nothing"}
        rec["wall_s"] = round(wall, 1)
        lines = [ln for ln in log.splitlines() if ln.startswith("  ")]
        print(f"[{time.perf_counter() - t_all:6.0f}s] {name}: {wall:.0f}s\n" + "\n".join(lines), flush=True)
        return name, rec

    done: dict[str, dict] = {}

    def save():  # after every model, so an interrupted refresh keeps what it measured
        nonlocal truth
        if TRUTH.exists():  # another refresh may have saved meanwhile: keep its models, put ours over them
            truth = load_truth()
            truth.setdefault("models", {}).update(done)
        truth["versions"] = vers
        truth["method"] = ("bench/zoo_worker.py: tiny configs, random weights, seed 0; per exporter a forked child "
                           "with timeout and RLIMIT_AS; paths relative to site-packages")
        truth["models"] = dict(sorted(truth["models"].items()))
        compact(truth)
        TRUTH.parent.mkdir(parents=True, exist_ok=True)
        TRUTH.write_text(json.dumps(truth, indent=1, sort_keys=False) + "\n", encoding="utf-8")

    # round-robin over the zoos, so a partial run covers all of them (--only: in the order given)
    by_zoo: dict[str, list[str]] = defaultdict(list)
    for n in names:
        by_zoo[zoo_worker.MODELS[n][0]].append(n)
    order = names if keep_order else [n for group in zip_longest(*by_zoo.values()) for n in group if n]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        for fut in as_completed([ex.submit(one, n) for n in order]):
            name, rec = fut.result()
            old = (load_truth() if TRUTH.exists() else truth)["models"].get(name)
            if exporters and old and rec.get("exporters"):  # some exporters re-measured: keep the others' records
                rec["exporters"] = {**old.get("exporters", {}), **rec["exporters"]}
                rec["exporters"] = {e: rec["exporters"][e] for e in EXPORTERS if e in rec["exporters"]}
            truth["models"][name] = done[name] = rec
            save()
    print(f"refresh: {len(names)} models in {time.perf_counter() - t_all:.0f}s -> {TRUTH.relative_to(ROOT)}")
    return truth


def compact(truth: dict) -> None:
    """Ran-lines as '3-7,9' strings (older records: lists of [a, b] / n)."""
    for m in truth.get("models", {}).values():
        for r in m.get("exporters", {}).values():
            for f, rg in list((r.get("ran") or {}).items()):
                if not isinstance(rg, str):
                    lines = sorted(_expand(rg))
                    out: list[list[int]] = []
                    for n in lines:
                        if out and n == out[-1][1] + 1:
                            out[-1][1] = n
                        else:
                            out.append([n, n])
                    r["ran"][f] = ",".join(str(a) if a == b else f"{a}-{b}" for a, b in out)


def load_truth(path: Path = TRUTH) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- the truth, indexed
def _expand(ranges) -> set[int]:
    """Lines of '3-7,9' (or [[3, 7], 9])."""
    out: set[int] = set()
    if isinstance(ranges, str):
        ranges = [[int(x) for x in r.split("-")] if "-" in r else int(r) for r in ranges.split(",") if r]
    for r in ranges:
        if isinstance(r, int):
            out.add(r)
        else:
            out.update(range(r[0], r[1] + 1))
    return out


class ZooTruth:
    """Per exporter: failing lines, TracerWarning lines (all, and in diverged exports), ran lines."""

    def __init__(self, models: dict, zoo: str):
        self.zoo = zoo
        self.models = {n: m for n, m in models.items() if m.get("zoo") == zoo}
        self.fail: dict[str, dict[tuple[str, int], list[str]]] = {e: defaultdict(list) for e in EXPORTERS}
        self.fail_msg: dict[tuple[str, str, int], str] = {}
        #: per exporter, failing line -> the models whose failure there is a spec failure (a constraint
        #: violation of the declared dynamic_shapes) that torch's suggested fix resolves (the retry passed)
        self.fail_resolved: dict[str, dict[tuple[str, int], set[str]]] = {e: defaultdict(set) for e in EXPORTERS}
        self.spec: dict[str, Counter] = {e: Counter() for e in EXPORTERS}
        self.warns: dict[str, dict[tuple[str, int], list[str]]] = {e: defaultdict(list) for e in EXPORTERS}
        self.warn_div: dict[str, set[tuple[str, int]]] = {e: set() for e in EXPORTERS}
        self.ran: dict[str, dict[str, set[int]]] = {e: defaultdict(set) for e in EXPORTERS}
        self.outcomes: dict[str, Counter] = {e: Counter() for e in EXPORTERS}
        self.unlocated: list[tuple[str, str, str]] = []
        for name, m in sorted(self.models.items()):
            for e, r in m.get("exporters", {}).items():
                if e not in self.outcomes:
                    continue
                oc = r.get("outcome")
                self.outcomes[e][oc] += 1
                if oc == "fail":
                    retry = r.get("retry") or {}
                    resolved = "spec" in r and retry.get("outcome") == "pass"
                    if "spec" in r:
                        self.spec[e][retry.get("outcome", "none")] += 1
                    if r.get("fail_at"):
                        key = (r["fail_at"][0], int(r["fail_at"][1]))
                        self.fail[e][key].append(name)
                        self.fail_msg.setdefault((e,) + key, r.get("message", ""))
                        if resolved:
                            self.fail_resolved[e][key].add(name)
                    else:
                        self.unlocated.append((name + (" (spec, fix resolves)" if resolved else ""), e,
                                               r.get("message", "")))
                    if retry.get("outcome") == "fail" and retry.get("fail_at"):
                        # the export with torch's suggested fix applied failed again: a failing line too
                        key = (retry["fail_at"][0], int(retry["fail_at"][1]))
                        self.fail[e][key].append(name + " (after fix)")
                        self.fail_msg.setdefault((e,) + key, "after the suggested fix: " + retry.get("message", ""))
                    elif retry.get("outcome") == "fail":
                        self.unlocated.append((name + " (after fix)", e, retry.get("message", "")))
                for w in r.get("warns", []) or []:
                    key = (w[0], int(w[1]))
                    self.warns[e][key].append(name)
                    if oc == "diverged":
                        self.warn_div[e].add(key)
                if oc == "pass":
                    for f, rg in (r.get("ran") or {}).items():
                        self.ran[e][f] |= _expand(rg)

    def model_failures(self, e: str, key: tuple[str, int]) -> bool:
        """Whether a failing line stays once spec failures that the suggested fix resolves are set aside."""
        return any(m not in self.fail_resolved[e].get(key, ()) for m in self.fail[e][key])

    def files(self) -> set[str]:
        out = set()
        for e in EXPORTERS:
            out |= {p for p, _ in self.fail[e]} | {p for p, _ in self.warns[e]} | set(self.ran[e])
        return out


# --------------------------------------------------------------------------- scoring (pure)
def _named(f: dict) -> tuple[str, ...]:
    return tuple(f.get("exporters") or EXPORTERS)


def _near(index: dict, path: str, line: int) -> bool:
    return any((path, line + d) in index for d in (-1, 0, 1))


def score(truth: ZooTruth, findings: list[dict]) -> dict:
    """Recall of failing (and warned) lines, precision of error findings. findings: exportlint JSON
    findings with paths relative to site-packages."""
    by_file: dict[str, list[dict]] = defaultdict(list)
    for f in findings:
        by_file[f["path"]].append(f)

    def found(e: str, path: str, line: int, severities=("error", "warning")) -> list[dict]:
        return [f for f in by_file.get(path, ()) if f["severity"] in severities and e in _named(f)
                and abs(int(f["line"]) - line) <= 1]

    res: dict = {"zoo": truth.zoo, "models": len(truth.models),
                 "outcomes": {e: dict(truth.outcomes[e]) for e in EXPORTERS}}
    hits = misses = hits_adj = misses_adj = 0
    miss_list, per_exp = [], {}
    for e in EXPORTERS:
        h = m = 0
        for (path, line), models in sorted(truth.fail[e].items()):
            model_line = truth.model_failures(e, (path, line))
            if found(e, path, line):
                h += 1
                hits_adj += model_line
            else:
                m += 1
                misses_adj += model_line
                miss_list.append({"exporter": e, "path": path, "line": line, "models": sorted(set(models)),
                                  "message": truth.fail_msg.get((e, path, line), "")[:160],
                                  "spec_resolved": not model_line})
        per_exp[e] = {"failing_lines": h + m, "found": h}
        hits, misses = hits + h, misses + m
    res["failing_lines"] = hits + misses
    res["recall"] = round(hits / (hits + misses), 3) if hits + misses else None
    # the same, without the failing lines whose every failure is a spec failure (constraint violation of the
    # declared dynamic_shapes) that torch's own suggested fix resolves: those measure the export call, not the model
    res["failing_lines_adj"], res["found_adj"] = hits_adj + misses_adj, hits_adj
    res["recall_adj"] = round(hits_adj / (hits_adj + misses_adj), 3) if hits_adj + misses_adj else None
    res["spec_failures"] = {e: dict(truth.spec[e]) for e in EXPORTERS if truth.spec[e]}
    res["recall_per_exporter"] = per_exp
    res["misses"] = miss_list
    res["unlocated_failures"] = [{"model": n, "exporter": e, "message": msg[:160]} for n, e, msg in truth.unlocated]
    wh = wm = 0
    warn_misses = []
    for e in EXPORTERS:
        for (path, line), models in sorted(truth.warns[e].items()):
            if found(e, path, line):
                wh += 1
            else:
                wm += 1
                warn_misses.append({"exporter": e, "path": path, "line": line, "models": sorted(set(models))})
    res["warn_lines"] = wh + wm
    res["warn_recall"] = round(wh / (wh + wm), 3) if wh + wm else None
    res["warn_misses"] = warn_misses
    true_n = false_n = unjudged = 0
    false_list, true_list = [], []
    for f in findings:
        if f["severity"] != "error":
            continue
        path, line = f["path"], int(f["line"])
        named = _named(f)
        t = [e for e in named if _near(truth.fail[e], path, line) or _near(dict.fromkeys(truth.warn_div[e]), path, line)]
        if t:
            true_n += 1
            true_list.append({"path": path, "line": line, "code": f["code"], "exporters": t})
            continue
        fl = [e for e in named if line in truth.ran[e].get(path, ()) and (path, line) not in truth.warns[e]]
        if fl:
            false_n += 1
            false_list.append({"path": path, "line": line, "code": f["code"], "ran_with": fl,
                               "message": f.get("message", "")[:160]})
        else:
            unjudged += 1
    res["errors"] = true_n + false_n + unjudged
    res["errors_true"], res["errors_false"], res["errors_unjudged"] = true_n, false_n, unjudged
    res["error_precision"] = round(true_n / (true_n + false_n), 3) if true_n + false_n else None
    res["false_errors"] = false_list
    res["true_errors"] = true_list
    res["findings"] = len(findings)
    res["findings_in_ran_lines"] = sum(1 for f in findings if any(int(f["line"]) in truth.ran[e].get(f["path"], ())
                                                                  for e in _named(f)))
    return res


# --------------------------------------------------------------------------- linting
def lint_paths(truth: ZooTruth, site: Path) -> list[str]:
    paths = list(LINT_DIRS[truth.zoo])
    if truth.zoo == "transformers":
        archs, shared = set(), set()
        for p in truth.files():
            parts = p.split("/")
            if len(parts) > 3 and parts[1] == "models":
                archs.add("/".join(parts[:3]))
            elif parts[0] == "transformers":
                shared.add(p)
        paths += sorted(archs) + sorted(shared)
    return [p for p in paths if (site / p).exists()]


def lint(paths: list[str], site: Path, jobs: int, src: Path = ROOT) -> tuple[list[dict], float]:
    out = Path(os.environ.get("ZOO_TMP", "/tmp")) / f"zoo-lint-{os.getpid()}.json"
    cmd = [sys.executable, "-m", "exportlint", "--format", "json", "--no-cache", "--exit-zero", "-q", "-j", str(jobs),
           "-o", str(out)] + paths
    env = dict(os.environ, PYTHONPATH=str(src) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=str(site), env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if not out.exists():
        sys.exit(f"exportlint failed (rc={p.returncode}):\n{p.stderr[-3000:]}")
    data = json.loads(out.read_text(encoding="utf-8"))
    out.unlink()
    findings = data["findings"] if isinstance(data, dict) else data
    for f in findings:
        if os.path.isabs(f["path"]):
            f["path"] = os.path.relpath(f["path"], site)
        f["path"] = f["path"].replace(os.sep, "/")
    return findings, wall


# --------------------------------------------------------------------------- printing
def print_zoo(res: dict, top: int) -> None:
    z = res["zoo"]
    print(f"\n== {z}: {res['models']} models")
    print(f"   {'exporter':17s} " + " ".join(f"{k:>9s}" for k in ("pass", "diverged", "fail", "timeout", "crash",
                                                                     "build-err")))
    for e in EXPORTERS:
        oc = res["outcomes"][e]
        print(f"   {e:17s} " + " ".join(f"{oc.get(k, 0):9d}" for k in ("pass", "diverged", "fail", "timeout", "crash",
                                                                          "build-error")))
    rec = res["recall"]
    print(f"   recall (failing lines found +-1): {res['failing_lines'] - len(res['misses'])}/{res['failing_lines']}"
          + (f" = {rec:.2f}" if rec is not None else "") + "   per exporter: "
          + ", ".join(f"{e} {v['found']}/{v['failing_lines']}" for e, v in res["recall_per_exporter"].items()))
    ra = res["recall_adj"]
    print(f"   recall without spec failures torch's suggested fix resolves: {res['found_adj']}/{res['failing_lines_adj']}"
          + (f" = {ra:.2f}" if ra is not None else ""))
    if res["spec_failures"]:
        print("   spec failures (constraint violations), outcome of the retry with torch's suggested fixes: "
              + "; ".join(f"{e} " + ", ".join(f"{k} {v}" for k, v in sorted(c.items()))
                          for e, c in res["spec_failures"].items()))
    if res["unlocated_failures"]:
        print(f"   failures with no zoo line (not scored): {len(res['unlocated_failures'])}")
        for u in res["unlocated_failures"][:top]:
            print(f"     {u['exporter']:17s} [{u['model']}]  {u['message'][:110]}")
    wr = res["warn_recall"]
    print(f"   legacy TracerWarning lines found: {res['warn_lines'] - len(res['warn_misses'])}/{res['warn_lines']}"
          + (f" = {wr:.2f}" if wr is not None else ""))
    pr = res["error_precision"]
    print(f"   error precision: {res['errors_true']} true / {res['errors_false']} false"
          + (f" = {pr:.2f}" if pr is not None else " (none judged)")
          + f"; {res['errors_unjudged']} unjudged of {res['errors']} errors ({res['findings']} findings)")
    print(f"   findings (any severity) on a line that ran in a passing export of an exporter they name: "
          f"{res['findings_in_ran_lines']}")
    if res["misses"]:
        print("   misses:")
        for m in res["misses"][:top]:
            tag = " (spec, fix resolves)" if m.get("spec_resolved") else ""
            print(f"     {m['exporter']:17s} {m['path']}:{m['line']}{tag}  [{', '.join(m['models'][:3])}]  "
                  f"{m['message'][:110]}")
    if res["false_errors"]:
        print("   false errors:")
        for f in res["false_errors"][:top]:
            print(f"     {f['path']}:{f['line']} {f['code']} (ran with {','.join(f['ran_with'])})  {f['message'][:100]}")
    if res["warn_misses"]:
        print(f"   TracerWarning lines missed: {len(res['warn_misses'])} (first {min(top, len(res['warn_misses']))})")
        for m in res["warn_misses"][:top]:
            print(f"     {m['path']}:{m['line']}  [{', '.join(m['models'][:3])}]")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--refresh", action="store_true", help="re-run the real exports (needs torch and the zoos)")
    ap.add_argument("--only", nargs="*", default=[], help="with --refresh: these models (default: all)")
    ap.add_argument("--missing", action="store_true", help="with --refresh: only models not in the truth yet")
    ap.add_argument("--exporters", nargs="*", choices=EXPORTERS, default=None,
                    help="with --refresh: re-measure only these exporters (the others' records are kept)")
    ap.add_argument("--list", action="store_true", help="list the models and exit")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="models exported in parallel (default 1)")
    ap.add_argument("--timeout", type=float, default=240, help="seconds per (model, exporter)")
    ap.add_argument("--mem-gb", type=float, default=6, help="address-space limit per exporter process, GB")
    ap.add_argument("--zoo", action="append", choices=ZOOS, help="score these zoos (default: all)")
    ap.add_argument("--lint-jobs", type=int, default=1)
    ap.add_argument("--exportlint", default=str(ROOT), help="checkout whose exportlint package lints (default: this one)")
    ap.add_argument("--findings", help="score these exportlint JSON findings (paths relative to site-packages) "
                                       "instead of linting")
    ap.add_argument("--findings-out", help="write the lint's findings here")
    ap.add_argument("--top", type=int, default=40, help="misses / false errors listed per zoo")
    ap.add_argument("--json", help="write the numbers here")
    ap.add_argument("--truth", help="score this truth file instead of bench/data/zoo_truth.json")
    a = ap.parse_args()
    if a.list or a.refresh:
        sys.path.insert(0, str(HERE))
        import zoo_worker

        if a.list:
            for n, (z, _) in zoo_worker.MODELS.items():
                print(f"{z:13s} {n}")
            return 0
        bad = [n for n in a.only if n not in zoo_worker.MODELS]
        if bad:
            sys.exit(f"unknown models {bad}; --list shows them")
        names = a.only or list(zoo_worker.MODELS)
        if a.missing and TRUTH.exists():
            have = load_truth()["models"]
            names = [n for n in names if n not in have]
        refresh(names, a.jobs, a.timeout, a.mem_gb, keep_order=bool(a.only), exporters=a.exporters)
    truth = load_truth(Path(a.truth)) if a.truth else load_truth()
    now = versions()
    diff = {k: (v, now.get(k)) for k, v in truth.get("versions", {}).items() if now.get(k) != v}
    if diff:
        print(f"WARNING: truth measured with other versions {diff}; line numbers may not match", file=sys.stderr)
    site = site_packages()
    given = json.loads(Path(a.findings).read_text(encoding="utf-8")) if a.findings else None
    if isinstance(given, dict):
        given = given["findings"]
    allf, summary = [], {"versions": truth.get("versions"), "zoos": {}}
    for zoo in a.zoo or ZOOS:
        zt = ZooTruth(truth["models"], zoo)
        if not zt.models:
            continue
        paths = lint_paths(zt, site)
        if given is not None:
            findings = [f for f in given if any(f["path"] == p or f["path"].startswith(p + "/") for p in paths)]
            wall = 0.0
        else:
            findings, wall = lint(paths, site, a.lint_jobs, Path(a.exportlint).resolve())
        allf += findings
        res = score(zt, findings)
        res["lint_paths"], res["lint_s"] = paths, round(wall, 1)
        print_zoo(res, a.top)
        if wall:
            print(f"   (lint of {len(paths)} paths: {wall:.0f}s)")
        summary["zoos"][zoo] = res
    if summary["zoos"]:
        print("\n== summary")
        print(f"   {'zoo':13s} {'models':>6s} {'fail-lines':>10s} {'recall':>7s} {'adj-lines':>9s} {'adj-rec':>7s} "
              f"{'warn-rec':>8s} {'err-true':>8s} {'err-false':>9s} {'unjudged':>8s} {'precision':>9s}")
        for z, r in summary["zoos"].items():
            f = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
            print(f"   {z:13s} {r['models']:6d} {r['failing_lines']:10d} {f(r['recall']):>7s} "
                  f"{r['failing_lines_adj']:9d} {f(r['recall_adj']):>7s} {f(r['warn_recall']):>8s} "
                  f"{r['errors_true']:8d} {r['errors_false']:9d} {r['errors_unjudged']:8d} {f(r['error_precision']):>9s}")
    if a.findings_out:
        Path(a.findings_out).write_text(json.dumps(allf, indent=1), encoding="utf-8")
    if a.json:
        Path(a.json).write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
