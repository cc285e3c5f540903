"""Verified fixes (``--confirm`` with ``--fix`` / ``--diff``): each candidate rewrite is applied
to a scratch copy of the project, the target is exported with each target exporter, and the
exported program is run against the ORIGINAL eager model on the example inputs and on
perturbed inputs that take the other way through the rewritten branch.

Parent side (no torch here); the work runs in ``verify_worker`` subprocesses, one per stage:
probe (which inputs take which branch), reference (the original model in eager), check
(export the rewritten copy and compare). A rewrite is marked ``verified`` when every exporter
exported it and matched on every input and both ways of the branch were covered; it is
dropped (and reported) when an export fails or an output differs.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, Optional

from exportlint.findings import EXPORTERS, Finding
from exportlint.fixes.apply import Edit, apply_edits, fix_edit, parses, read_source

REWRITE_KINDS = ("where", "cond", "guard", "item")
_SKIP = {".git", ".hg", ".svn", ".venv", "venv", "env", "__pycache__", "node_modules", ".mypy_cache", ".pytest_cache",
         ".ruff_cache", ".tox", ".nox", "build", "dist", ".exportlint_cache"}
#: at most this many rewrites are verified per run (each costs a few exports)
MAX_REWRITES = 20


def _say(progress, msg):
    if progress is not None:
        progress(msg)


def candidates(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.fix is not None and f.fix.kind in REWRITE_KINDS and f.fix.verified is None]


def _targets(cfg, paths) -> list:
    from exportlint.confirm.targets import discover, resolve_spec

    root = Path(getattr(cfg, "root", None) or Path.cwd())
    out = [resolve_spec(spec, root=root, name=name) for name, spec in (getattr(cfg, "targets", None) or {}).items()]
    out += discover([Path(p) for p in paths], root=root)
    return [t for t in out if not t.error]


def _copy_tree(src: str, dst: str) -> None:
    def ignore(d, names):
        return [n for n in names if n in _SKIP or n.endswith(".egg-info")]
    shutil.copytree(src, dst, ignore=ignore, symlinks=True, dirs_exist_ok=True)


def _remap(p: str, root: str, scratch: str) -> Optional[str]:
    rp = os.path.realpath(p)
    if rp == root or rp.startswith(root + os.sep):
        return os.path.join(scratch, os.path.relpath(rp, root))
    return None


def _target_job(t, root: str, scratch: Optional[str]) -> Optional[dict]:
    job = t.job()
    if scratch is None:
        return job
    if job.get("file"):
        f = _remap(job["file"], root, scratch)
        if f is None:
            return None
        job["file"] = f
    job["sys_path"] = [_remap(p, root, scratch) or p for p in job.get("sys_path", [])]
    job["user_roots"] = [_remap(p, root, scratch) or p for p in job.get("user_roots", [])]
    return job


def _run_stage(stage: str, job: dict, workdir: str, cwd: str, timeout: float) -> dict:
    from exportlint.confirm.runner import worker_env

    job = dict(job, stage=stage, result_path=os.path.join(workdir, f"{stage}.json"))
    jp = os.path.join(workdir, f"{stage}-job.json")
    with open(jp, "w", encoding="utf-8") as fh:
        json.dump(job, fh)
    try:
        subprocess.run([sys.executable, "-m", "exportlint.fixes.verify_worker", jp], cwd=cwd, env=worker_env(),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"ok": False, "message": f"{stage}: timed out after {timeout:.0f}s"}
    try:
        with open(job["result_path"], encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return {"ok": False, "message": f"{stage}: the worker died (memory, or a crash in native code)"}


def _wrap_tests(text: str, fs: list[tuple[str, Finding]]) -> str:
    from exportlint.fixes.apply import line_starts, split_lines

    starts, lines = line_starts(text), split_lines(text)
    edits = []
    for pid, f in fs:
        a = starts[f.line - 1] + f.column - 1
        b = starts[f.end_line - 1] + min(f.end_column - 1, len(lines[f.end_line - 1]))
        inner = text[a:b]
        edits.append(Edit(f.line - 1, f.column - 1, f.end_line - 1, f.end_column - 1,
                          f'__import__("exportlint.fixes.probe", fromlist=["hit"]).hit({pid!r}, ({inner}))'))
    return apply_edits(text, edits)


def verify_rewrites(cfg, findings: list[Finding], *, exporters=None, paths=(),
                    progress: Optional[Callable[[str], None]] = None,
                    timeout: float = 600.0) -> tuple[list[Finding], list[tuple[Finding, dict]]]:
    """Verify the rewrites among ``findings``; returns (findings with ``fix.verified`` set and
    failed rewrites removed, [(finding, report, refused fix) of the dropped rewrites])."""
    cands = candidates(findings)[:MAX_REWRITES]
    if not cands:
        return findings, []
    root = os.path.realpath(str(getattr(cfg, "root", None) or os.getcwd()))
    exps = tuple(exporters or getattr(cfg, "target_exporters", None) or EXPORTERS)
    targets = _targets(cfg, paths or sorted({os.path.dirname(os.path.abspath(f.path)) for f in cands}))
    reports: dict[int, dict] = {}
    if not targets:
        for f in cands:
            reports[id(f)] = {"verified": False, "message": "no target to export (add [tool.exportlint.targets])"}
    base = {"opset": getattr(cfg, "opset", None), "rtol": float(getattr(cfg, "rtol", 1e-4) or 1e-4),
            "atol": float(getattr(cfg, "atol", 1e-5) or 1e-5)}
    pending = list(cands)
    for t in targets:
        if not pending:
            break
        with tempfile.TemporaryDirectory(prefix="exportlint-verify-") as tmp:
            pending = _verify_with_target(t, pending, root, tmp, exps, base, reports, progress, timeout)
    for f in pending:
        reports.setdefault(id(f), {"verified": False, "message": "no target runs this code (the branch was never "
                                                                  "reached)"})
    out: list[Finding] = []
    dropped: list[tuple] = []
    for f in findings:
        rep = reports.get(id(f))
        if rep is None:
            out.append(f)
            continue
        if rep.get("dropped"):
            g = dataclasses.replace(f, fix=None, details=dict(f.details, rewrite=rep))
            dropped.append((g, rep, dataclasses.replace(f.fix, verified=False, verification=rep)))
            out.append(g)
        else:
            # verified: applied like a safe fix; not verified (never flipped, blocked elsewhere): stays unsafe
            out.append(dataclasses.replace(f, fix=dataclasses.replace(f.fix, verified=True if rep.get("verified") else None,
                                                                      verification=rep)))
    return out, dropped


def _verify_with_target(t, cands, root, tmp, exps, base, reports, progress, timeout) -> list[Finding]:
    """Run the stages for the candidates this target reaches; returns those it does not reach."""
    by_file: dict[str, list[Finding]] = {}
    for f in cands:
        by_file.setdefault(os.path.realpath(os.path.abspath(f.path)), []).append(f)
    probe_root = os.path.join(tmp, "probe")
    _copy_tree(root, probe_root)
    pids: dict[str, Finding] = {}
    for path, fs in by_file.items():
        dst = _remap(path, root, probe_root)
        if dst is None or not os.path.exists(dst):
            continue
        src = read_source(dst)
        wrapped = [(f"p{i}_{f.line}", f) for i, f in enumerate(fs)]
        for pid, f in wrapped:
            pids[pid] = f
        new = _wrap_tests(src.text, wrapped)
        if not parses(new):
            continue
        with open(dst, "w", encoding=src.encoding, newline="") as fh:
            fh.write(new)
    pjob = _target_job(t, root, probe_root)
    if pjob is None:
        return cands
    job = {**base, "probes": sorted(pids), "inputs_path": os.path.join(tmp, "inputs.pt"),
           "outputs_path": os.path.join(tmp, "outputs.pt")}
    _say(progress, f"verify rewrites: {t.name}: finding inputs that take both ways of {len(pids)} branch(es)")
    pr = _run_stage("probe", {**job, "target": pjob}, tmp, probe_root, timeout)
    if not pr.get("ok"):
        return cands  # this target does not load (reported by confirm itself); try the next
    ways = pr.get("ways", {})
    reached = [f for f in cands if any(ways.get(p) for p, g in pids.items() if g is f)]
    if not reached:
        return cands
    rr = _run_stage("reference", {**job, "target": _target_job(t, root, None)}, tmp, root, timeout)
    if not rr.get("ok"):
        for f in reached:
            reports[id(f)] = {"verified": False, "message": f"the original model does not run: {rr.get('message')}"}
        return [f for f in cands if f not in reached]
    pid_of = {id(g): p for p, g in pids.items() if g.fix.kind != "item"}

    ranges: dict[int, tuple[str, int, int]] = {}  # id(finding) -> (real path, first, last line) after rewriting

    def check(subset: list[Finding], f_exps: list[str]) -> dict:
        scratch = os.path.join(tmp, "rewritten")
        shutil.rmtree(scratch, ignore_errors=True)
        _copy_tree(root, scratch)
        ranges.clear()
        for path in {os.path.realpath(os.path.abspath(f.path)) for f in subset}:
            dst = _remap(path, root, scratch)
            src = read_source(dst)
            edits = []
            for f in subset:
                if os.path.realpath(os.path.abspath(f.path)) != path:
                    continue
                e = fix_edit(f)
                if e is not None and not any(e.start < o.end and o.start < e.end for o in edits):
                    edits.append(e)
                    ranges[id(f)] = (os.path.realpath(dst), 0, 0)
            shift = 0
            for e in sorted(edits, key=lambda e: e.start):
                f = next(g for g in subset if fix_edit(g) == e)
                n_new = e.new_text.count("\n")
                first = e.start_line + 1 + shift
                ranges[id(f)] = (os.path.realpath(dst), first, first + n_new)
                shift += n_new - (e.end_line - e.start_line)
            new = apply_edits(src.text, edits)
            if not parses(new):
                return {"ok": False, "message": "the rewritten file does not parse"}
            with open(dst, "w", encoding=src.encoding, newline="") as fh:
                fh.write(new)
        _say(progress, f"verify rewrites: {t.name}: {len(subset)} rewrite(s) with {', '.join(f_exps) or 'eager only'}")
        try:
            return _run_stage("check", {**job, "target": _target_job(t, root, scratch), "exporters": f_exps}, tmp,
                              scratch, timeout)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def exps_for(subset):
        cond = any(f.fix.kind == "cond" for f in subset)
        return [e for e in exps if not (cond and e == "onnx-legacy")]

    def failures(cr, f_exps) -> list[str]:
        if not cr.get("ok"):
            return [f"verification failed: {cr.get('message')}"]
        if cr.get("eager", {}).get("status") != "pass":
            return [cr.get("eager", {}).get("message", "eager differs")]
        return [f"{ex}: {cr.get(ex, {}).get('status', 'fail')} ({cr.get(ex, {}).get('message', '')})"
                for ex in f_exps if cr.get(ex, {}).get("status") != "pass"]

    def report(f, cr, f_exps) -> dict:
        pid = pid_of.get(id(f))
        w = ways.get(pid, []) if pid else []
        covered = [n for n, v in (("true", True), ("false", False)) if v in w]
        rep: dict = {"target": t.name, "branches_covered": covered if pid else "n/a (no branch)",
                     "inputs": pr.get("inputs", []), "exporters": {}}
        if pid:
            rep["flip"] = (f"flipped by the '{pr.get('flipped_by', {}).get(pid, 'example')}' input" if len(covered) == 2
                           else "never flipped: no perturbed input took the other way")
        for ex in f_exps:
            r = cr.get(ex, {})
            if r:
                rep["exporters"][ex] = {"status": r.get("status"), "max_abs": r.get("max_abs"),
                                        **({"message": r["message"]} if r.get("message") else {})}
        finite = [v["max_abs"] for v in rep["exporters"].values() if isinstance(v.get("max_abs"), (int, float))]
        rep["max_abs"] = max(finite) if finite else (cr.get("eager", {}) or {}).get("max_abs")
        return rep

    live = list(reached)
    for _ in range(len(reached) + 1):
        if not live:
            break
        f_exps = exps_for(live)
        cr = check(live, f_exps)
        bad = failures(cr, f_exps)
        if not bad:
            for f in live:
                rep = report(f, cr, f_exps)
                pid = pid_of.get(id(f))
                if pid and len(rep["branches_covered"]) < 2:
                    rep.update(verified=False, message="exported and matched, but the inputs never took the other "
                                                       "way; kept unsafe")
                else:
                    rep.update(verified=True, message=f"exported with {', '.join(f_exps)}; max abs diff "
                                                      f"{(rep['max_abs'] or 0.0):.3g}; branches covered: "
                                                      f"{', '.join(rep['branches_covered']) if pid else 'n/a'}")
                reports[id(f)] = rep
            break
        # the rewrites to blame: an eager mismatch, one rewrite at a time; an export failure, by where it
        # happened (inside a rewritten range, or elsewhere: code the rewrites do not touch)
        culprits = []
        if not cr.get("ok"):
            culprits = list(live) if len(live) == 1 else []
        elif cr.get("eager", {}).get("status") != "pass":
            if len(live) == 1:
                culprits = list(live)
            else:
                for f in live:
                    if failures(check([f], []), []):
                        culprits.append(f)
        else:
            blamed_ranges = dict(ranges)
            for ex in f_exps:
                at = cr.get(ex, {}).get("at") or []
                frames = [at[:2]] + list(at[2:]) if at else []
                for f in live:
                    rng = blamed_ranges.get(id(f))
                    if rng and any(os.path.realpath(p) == rng[0] and rng[1] <= ln <= rng[2] for p, ln in frames[:1]):
                        if f not in culprits:
                            culprits.append(f)
        if not culprits:
            for f in live:
                rep = report(f, cr, f_exps)
                ok = [ex for ex, v in rep["exporters"].items() if v.get("status") == "pass"]
                fails = [ex for ex, v in rep["exporters"].items() if v.get("status") == "fail"]
                rep.update(verified=False, message=(
                    (f"exported and matched with {', '.join(ok)} (max abs diff "
                     f"{max((rep['exporters'][e].get('max_abs') or 0.0) for e in ok):.3g}); " if ok else "")
                    + "; ".join(bad)[:500]
                    + (" -- outside the rewritten code" if fails else " -- not attributable to the rewrite")
                    + "; kept unsafe"))
                reports[id(f)] = rep
            break
        for f in culprits:
            rep = report(f, cr if len(live) == 1 else {}, f_exps)
            rep.update(verified=False, dropped=True, message="; ".join(bad)[:600])
            reports[id(f)] = rep
            live.remove(f)
    return [f for f in cands if f not in reached]
