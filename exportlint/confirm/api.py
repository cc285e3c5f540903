"""``run_confirm``: trial-export the user's targets and turn static predictions into verdicts.

Parent side only (no torch here): resolves targets, runs each in its own worker process
(``runner.py``), maps the outcomes back onto source lines and joins them with the static
findings:

- ``confirmed``: an exporter the finding names failed or diverged at the finding's lines;
- ``refuted``: the finding's line ran, and the exporters it names passed with no divergence
  (or failed/diverged somewhere else);
- ``untested``: a device-placement finding (EXL301-EXL303) whose line ran in a passing export:
  the trial export runs on one device, so it cannot show a failure that needs a second one;
- ``not-reached``: the file was loaded by a target but the line did not run for these inputs
  (or every exporter stopped before it);
- new ``EXL901`` findings for failures no static finding predicted, ``EXL902`` for silent
  divergences (the exported program disagrees with eager on the example or perturbed inputs).
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence

from exportlint.confirm.locate import DATA_TO_CONSTANT
from exportlint.confirm.runner import RunOutcome, run_job
from exportlint.confirm.targets import Target, discover, resolve_spec
from exportlint.findings import EXPORTERS, Finding, Severity

STATUSES = ("pass", "fail", "diverged", "error", "timeout", "skipped")
FAILED_STATUSES = ("fail", "diverged", "error", "timeout")


@dataclass
class ExporterOutcome:
    exporter: str
    status: str = "skipped"
    message: str = ""
    path: Optional[str] = None
    line: Optional[int] = None
    how: Optional[str] = None
    stack: list[tuple[str, int]] = field(default_factory=list)
    max_abs: Optional[float] = None
    max_rel: Optional[float] = None
    divergences: list[dict] = field(default_factory=list)
    tracer_warnings: list[list] = field(default_factory=list)
    onnx: Optional[dict] = None
    exception: Optional[str] = None
    seconds: Optional[float] = None
    #: seconds per phase inside the worker: export, locate, checks, parity
    timing: dict = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = {"status": self.status, "message": self.message, "path": self.path, "line": self.line,
             "located_by": self.how, "max_abs_error": self.max_abs, "max_rel_error": self.max_rel,
             "seconds": self.seconds}
        if self.timing:
            d["timing"] = self.timing
        if self.exception:
            d["exception"] = self.exception
        if self.divergences:
            d["divergences"] = self.divergences
        if self.onnx:
            d["onnx"] = self.onnx
        return d


@dataclass
class TargetResult:
    name: str
    spec: str
    path: str = ""
    line: int = 1
    outcomes: dict[str, ExporterOutcome] = field(default_factory=dict)
    error: Optional[str] = None
    error_stage: Optional[str] = None
    seconds: float = 0.0
    #: executed user lines (eager run on the example and perturbed inputs): path -> lines
    coverage: dict[str, set[int]] = field(default_factory=dict)
    loaded_files: set[str] = field(default_factory=set)
    #: "path:line" of a value-branch finding -> names of the inputs that flipped it
    flips: dict[str, list[str]] = field(default_factory=dict)
    #: worker phases: building the model + eager reference, eager runs on the other inputs
    build_seconds: float = 0.0
    variant_seconds: float = 0.0
    #: the project's export calls whose dynamic dims the target was exported with (none of its own)
    dynamic_shapes_from: Optional[dict] = None

    @property
    def failed(self) -> bool:
        return self.error is not None or any(o.status in FAILED_STATUSES for o in self.outcomes.values())

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "spec": self.spec, "path": self.path, "line": self.line,
                "error": self.error, "error_stage": self.error_stage, "seconds": round(self.seconds, 3),
                "exporters": {e: o.to_dict() for e, o in self.outcomes.items()},
                **({"dynamic_shapes_from": self.dynamic_shapes_from} if self.dynamic_shapes_from else {})}


@dataclass
class ConfirmResult:
    findings: list[Finding] = field(default_factory=list)
    targets: list[TargetResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    interrupted: bool = False
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return bool(self.errors) or any(t.failed for t in self.targets)

    def to_dict(self) -> dict[str, Any]:
        return {"targets": [t.to_dict() for t in self.targets], "errors": list(self.errors),
                "interrupted": self.interrupted, "seconds": round(self.seconds, 3)}

    def render_summary(self, console: Any) -> None:
        """Per-target table: exporter × outcome (rich)."""
        from rich.table import Table
        from rich.text import Text

        exporters: list[str] = []
        for t in self.targets:
            for e in t.outcomes:
                if e not in exporters:
                    exporters.append(e)
        exporters.sort(key=lambda e: EXPORTERS.index(e) if e in EXPORTERS else 99)
        table = Table(title="exportlint --confirm", show_lines=False)
        table.add_column("target", overflow="fold")
        for e in exporters:
            table.add_column(e)
        style = {"pass": "green", "fail": "red", "diverged": "magenta", "error": "red",
                 "timeout": "yellow", "skipped": "dim"}
        for t in self.targets:
            cells = []
            for e in exporters:
                o = t.outcomes.get(e)
                if o is None:
                    cells.append(Text("-", style="dim"))
                    continue
                label = o.status
                if o.status in ("fail", "diverged") and o.line:
                    label += f" :{o.line}" if o.path == t.path or not o.path else f" {_short(o.path)}:{o.line}"
                cells.append(Text(label, style=style.get(o.status, "")))
            table.add_row(t.name, *cells)
        console.print(table)
        verdicts: dict[str, int] = {}
        for f in self.findings:
            if f.verdict and f.code not in ("EXL901", "EXL902"):
                verdicts[f.verdict] = verdicts.get(f.verdict, 0) + 1
        new = sum(1 for f in self.findings if f.code in ("EXL901", "EXL902"))
        line = self.summary_line()
        if verdicts:
            line += "; static findings: " + ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items()))
        if new:
            line += f"; {new} EXL901/EXL902"
        console.print(line)  # errors go to stderr (the CLI prints them, whatever the format)


    def summary_line(self) -> str:
        """Counts of targets (models), not of target x exporter cells."""
        n = len(self.targets)
        files = len({t.path for t in self.targets if t.path})
        ok = sum(1 for t in self.targets if not t.error and t.outcomes
                 and all(o.status == "pass" for o in t.outcomes.values()))
        failing = sum(1 for t in self.targets if any(o.status in ("fail", "diverged") for o in t.outcomes.values()))
        timed = sum(1 for t in self.targets if any(o.status == "timeout" for o in t.outcomes.values()))
        errors = sum(1 for t in self.targets if t.error and t.error_stage not in ("timeout",))
        parts = [f"{ok} export with every exporter"]
        if failing:
            parts.append(f"{failing} fail or diverge with at least one")
        if timed:
            parts.append(f"{timed} timed out")
        if errors:
            parts.append(f"{errors} could not be built")
        per: list[str] = []
        exporters: list[str] = []
        for t in self.targets:
            exporters += [e for e in t.outcomes if e not in exporters]
        for e in exporters:
            bad = sum(1 for t in self.targets if t.outcomes.get(e) and t.outcomes[e].status in FAILED_STATUSES)
            if bad:
                per.append(f"{e} {bad}")
        models = f" in {files} file(s)" if files and files != n else ""
        line = f"{n} target(s){models}: " + ", ".join(parts)
        if per:
            line += " (targets failing per exporter: " + ", ".join(per) + ")"
        return line


def _short(p: str) -> str:
    try:
        rel = os.path.relpath(p)
    except ValueError:
        return p
    return p if rel.startswith("..") else rel


# ----------------------------------------------------------------------------- running
def _resolve_targets(config: Any, targets: Optional[Sequence[str]], paths: Iterable[Path]) -> list[Target]:
    root = Path(getattr(config, "root", None) or Path.cwd())
    configured: dict[str, str] = dict(getattr(config, "targets", None) or {})
    out: list[Target] = []
    if targets is None:
        for name, spec in configured.items():
            out.append(resolve_spec(spec, root=root, name=name))
        out.extend(discover(list(paths), root=root))
    else:
        for spec in targets:
            if spec in configured:
                out.append(resolve_spec(configured[spec], root=root, name=spec))
            else:
                out.append(resolve_spec(spec, root=root))
    return out


def run_confirm(config: Any, findings: list[Finding], *, targets: Optional[list[str]] = None,
                paths: Sequence[Path] = (), exporters: Optional[tuple[str, ...]] = None,
                progress: Optional[Callable[[str], None]] = None, jobs: int = 1,
                fork_server: Optional[bool] = None, project_dims: Optional[list] = None) -> ConfirmResult:
    """Trial-export each target (own process each) and set verdicts on ``findings``.

    With more than one target, workers are forked from a server that imported torch once
    (``fork_server``; default on where ``os.fork`` exists, off with EXPORTLINT_CONFIRM_FORK=0):
    each target still gets its own process, session, time and memory limit.

    ``project_dims``: the dynamic dims the project's export calls declare per model class
    (``project_dims.project_dims``; read from ``paths``, or the config root, when None). A
    target that declares no dims of its own is exported with those of its model's class.
    """
    t0 = time.monotonic()
    exporters = tuple(exporters or getattr(config, "target_exporters", None) or EXPORTERS)
    bad = [e for e in exporters if e not in EXPORTERS]
    result = ConfirmResult()
    if bad:
        result.errors.append(f"unknown exporter {bad[0]!r} (choose from {', '.join(EXPORTERS)})")
        result.findings = list(findings)
        return result
    tlist = _resolve_targets(config, targets, paths)
    say = progress or (lambda s: None)
    if not tlist:
        result.errors.append("nothing to confirm: no [tool.exportlint.targets] entry, no target on the command "
                             "line and no ExportDB-style module (nn.Module class + example_args) in the paths")
    timeout = float(getattr(config, "confirm_timeout", 300.0) or 300.0)
    exporter_timeout = getattr(config, "confirm_exporter_timeout", None)
    exporter_timeout = float(exporter_timeout) if exporter_timeout else None
    live_event = getattr(progress, "event", None)

    def live(kind: str, **data: Any) -> None:
        if live_event is not None:
            try:
                live_event(kind, **data)
            except Exception:  # noqa: BLE001 - a display problem never stops the run
                pass
    memory = int(getattr(config, "confirm_memory_mb", 4096) or 0)
    value_findings = [{"code": f.code, "path": _abspath(f.path, config), "line": f.line,
                       "end_line": f.end_line} for f in findings]
    base_job = {"exporters": list(exporters), "opset": getattr(config, "opset", None),
                "rtol": float(getattr(config, "rtol", 1e-4)), "atol": float(getattr(config, "atol", 1e-5)),
                "findings": value_findings, "cwd": str(getattr(config, "root", "") or "") or None}
    if project_dims is None and tlist:
        from exportlint.confirm.project_dims import project_dims as _read_dims

        try:
            project_dims = _read_dims(config, paths)
        except Exception:  # noqa: BLE001 - the static read never stops a confirm run
            project_dims = []
    if project_dims:
        base_job["project_dims"] = project_dims

    def one(i: int, t: Target) -> TargetResult:
        tr = TargetResult(name=t.name, spec=t.spec, path=t.path, line=t.line,
                          outcomes={e: ExporterOutcome(e) for e in exporters})
        prefix = f"[{i + 1}/{len(tlist)}] {t.name}"
        if t.error:
            tr.error, tr.error_stage = t.error, "missing"
            for o in tr.outcomes.values():
                o.status = "error"
            say(f"{prefix}: error: {t.error}")
            return tr
        say(f"{prefix}: starting")
        job = dict(base_job, **t.job())
        live("target-start", target=t.name, index=i, total=len(tlist), target_limit=timeout,
             exporter_limit=exporter_timeout or timeout)

        def on_event(ev: dict) -> None:
            kind = ev.get("event")
            if kind == "exporter-start":
                live("exporter-start", target=t.name, exporter=ev["exporter"])
            elif kind == "exporter":
                loc = ev.get("location")
                live("exporter", target=t.name, exporter=ev["exporter"], status=ev.get("status"),
                     seconds=ev.get("seconds"), where=f"{_short(loc['path'])}:{loc['line']}" if loc else None)
            if kind == "loaded":
                say(f"{prefix}: model built in {ev.get('seconds', 0):.1f}s")
                dfrom = ev.get("dynamic_shapes_from")
                if dfrom:
                    where = ", ".join(dfrom.get("where", [])) or "the project export calls"
                    dims = ", ".join(f"{n}{d}" for n, d in dfrom.get("dims", {}).items())
                    if dims:
                        say(f"{prefix}: exporting with the dynamic dims {dims} declared at {where}")
                    if dfrom.get("skipped"):
                        say(f"{prefix}: not declaring {', '.join(dfrom['skipped'])} from {where}: the example "
                            "input's size there is 0 or 1, which torch always specialises")
            elif kind == "exporter-start":
                say(f"{prefix}: {ev['exporter']} …")
            elif kind == "exporter":
                where = f" at {_short(ev['location']['path'])}:{ev['location']['line']}" if ev.get("location") else ""
                say(f"{prefix}: {ev['exporter']}: {ev['status']}{where} ({ev.get('seconds', 0):.1f}s)")
            elif kind == "error":
                say(f"{prefix}: {ev.get('stage')} error")

        run = _run_with_limits(job, list(exporters), timeout, exporter_timeout, memory, on_event, server)
        _absorb(tr, run, timeout, memory)
        for e in exporters:
            o = tr.outcomes[e]
            if o.status == "timeout" and not any(ev.get("exporter") == e and ev.get("event") == "exporter"
                                                 for ev in run.events):
                live("exporter", target=t.name, exporter=e, status="timeout", seconds=None)
        live("target-done", target=t.name)
        return tr

    server = None
    runnable = [t for t in tlist if not t.error]
    if fork_server is None:
        fork_server = os.environ.get("EXPORTLINT_CONFIRM_FORK", "1") != "0"
    if fork_server and len(runnable) > 1 and hasattr(os, "fork"):
        try:
            from exportlint.confirm.runner import ForkServer

            say("starting the export worker (importing torch once)")
            server = ForkServer()
        except (RuntimeError, OSError):
            server = None  # plain processes: each one reports its own import problems
    try:
        if jobs > 1 and len(tlist) > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=jobs) as pool:
                futs = [pool.submit(one, i, t) for i, t in enumerate(tlist)]
                for f in futs:
                    tr = f.result()
                    result.targets.append(tr)
                    if tr.error and tr.error_stage == "interrupted":
                        result.interrupted = True
        else:
            for i, t in enumerate(tlist):
                tr = one(i, t)
                result.targets.append(tr)
                if tr.error_stage == "interrupted":
                    result.interrupted = True
                    break
    except KeyboardInterrupt:
        result.interrupted = True
    finally:
        if server is not None:
            server.close()
    if result.interrupted:
        done = {t.name for t in result.targets}
        for t in tlist:
            if t.name not in done:
                result.targets.append(TargetResult(name=t.name, spec=t.spec, path=t.path, line=t.line,
                                                   outcomes={e: ExporterOutcome(e) for e in exporters}))
        result.errors.append("interrupted: remaining targets were not run")
    for tr in result.targets:
        if tr.error and tr.error_stage != "interrupted":
            result.errors.append(tr.error)
    close = getattr(progress, "close", None)
    if close is not None:
        close()
    result.findings = join_findings(config, findings, result.targets, exporters)
    result.seconds = time.monotonic() - t0
    return result


def _run_with_limits(job: dict, exporters: list[str], timeout: float, exporter_timeout: Optional[float],
                     memory: int, on_event: Callable[[dict], None], server: Any) -> RunOutcome:
    """Run the target; an exporter past ``exporter_timeout`` is killed, reported as timed out,
    and the exporters after it run in a fresh worker (within what is left of ``timeout``)."""
    t0 = time.monotonic()
    combined = RunOutcome()
    remaining = list(exporters)
    while True:
        left = timeout - (time.monotonic() - t0)
        run = run_job(dict(job, exporters=remaining), timeout=max(left, 1.0), memory_mb=memory,
                      on_event=on_event, server=server,
                      exporter_timeout=exporter_timeout if exporter_timeout and exporter_timeout < left else None)
        combined.events.extend(run.events)
        combined.returncode, combined.log_tail = run.returncode, run.log_tail
        combined.timed_out, combined.interrupted = run.timed_out, run.interrupted
        if not run.exporter_timed_out:
            break
        e = run.exporter_timed_out
        ev = {"event": "exporter", "exporter": e, "status": "timeout", "seconds": exporter_timeout,
              "message": f"timed out after {exporter_timeout:g}s (per-exporter limit; set "
                         "[tool.exportlint.confirm] exporter-timeout)"}
        combined.events.append(ev)
        on_event(ev)
        reported = {x.get("exporter") for x in combined.events if x.get("event") == "exporter"}
        remaining = [x for x in exporters if x not in reported]
        if not remaining or timeout - (time.monotonic() - t0) < 1.0:
            combined.events.append({"event": "done"})
            break
    combined.seconds = time.monotonic() - t0
    return combined


def _absorb(tr: TargetResult, run: RunOutcome, timeout: float, memory: int) -> None:
    """Fill a TargetResult from the worker's events and how the process ended."""
    inflight: Optional[str] = None
    done = False
    for ev in run.events:
        kind = ev.get("event")
        if kind == "loaded":
            if ev.get("path"):
                tr.path, tr.line = ev["path"], ev.get("line") or 1
            tr.build_seconds = float(ev.get("seconds") or 0.0)
            tr.dynamic_shapes_from = ev.get("dynamic_shapes_from") or None
            ee = ev.get("eager_error")
            if ee:
                where = f" ({_short(ee['path'])}:{ee['line']})" if ee.get("path") and ee.get("line") else ""
                tb = ee.get("traceback") or ""
                tr.error = f"target {tr.name!r}: eager error{where}: {ee['message']}" + (f"\n{tb.rstrip()}" if tb else "")
                tr.error_stage = "eager"
        elif kind == "coverage":
            tr.coverage = {p: set(v) for p, v in (ev.get("lines") or {}).items()}
            for vcov in (ev.get("variants") or {}).values():
                for p, v in vcov.items():
                    tr.coverage.setdefault(p, set()).update(v)
            tr.loaded_files = set(ev.get("files") or ()) | set(tr.coverage)
            tr.flips = ev.get("flips") or {}
            tr.variant_seconds = float(ev.get("seconds") or 0.0)
        elif kind == "exporter-start":
            inflight = ev["exporter"]
        elif kind == "exporter":
            inflight = None
            o = tr.outcomes.setdefault(ev["exporter"], ExporterOutcome(ev["exporter"]))
            o.status = ev.get("status", "error")
            o.message = ev.get("message", "")
            loc = ev.get("location")
            if o.status == "diverged" and not loc:
                for d in ev.get("divergences", []):
                    if d.get("location"):
                        loc = d["location"]
                        break
            if loc:
                o.path, o.line, o.how = loc["path"], loc["line"], loc.get("how")
                o.stack = [tuple(s) for s in loc.get("stack", [])]
            o.max_abs, o.max_rel = ev.get("max_abs"), ev.get("max_rel")
            o.divergences = ev.get("divergences", [])
            o.tracer_warnings = ev.get("tracer_warnings", [])
            o.onnx = ev.get("onnx")
            o.exception = ev.get("exception")
            o.seconds = ev.get("seconds")
            o.timing = ev.get("timing") or {}
        elif kind == "error":
            stage = ev.get("stage", "internal")
            msg = ev.get("message", "")
            if stage == "interrupted":
                tr.error, tr.error_stage = f"target {tr.name!r}: interrupted", "interrupted"
                continue
            if _looks_like_memory(msg + ev.get("traceback", "")):
                stage = "memory"
                msg = f"ran out of memory (limit {memory} MiB; set [tool.exportlint.confirm] memory-limit): {msg}"
            where = f" ({_short(ev['path'])}:{ev['line']})" if ev.get("path") and ev.get("line") else ""
            tb = ev.get("traceback") or ""
            tr.error = f"target {tr.name!r}: {stage} error{where}: {msg}" + (f"\n{tb.rstrip()}" if tb else "")
            tr.error_stage = stage
            if ev.get("path") and ev.get("line") and stage in ("import", "factory", "eager"):
                tr.path, tr.line = ev["path"], ev["line"]
        elif kind == "done":
            done = True
    tr.seconds = run.seconds
    pending = [e for e, o in tr.outcomes.items() if not _reported(run, e)]
    if run.interrupted:
        tr.error, tr.error_stage = f"target {tr.name!r}: interrupted", "interrupted"
        return
    if run.timed_out:
        what = f"while running {inflight}" if inflight else "while building the model"
        tr.error = tr.error or f"target {tr.name!r}: timed out after {timeout:g}s {what} " \
                               "(set [tool.exportlint.confirm] timeout)"
        tr.error_stage = tr.error_stage or "timeout"
        for e in pending:
            tr.outcomes[e].status = "timeout" if (e == inflight or inflight is None) else "skipped"
            if e == inflight or inflight is None:
                tr.outcomes[e].message = f"timed out after {timeout:g}s"
        return
    if not done and tr.error is None:
        rc = run.returncode
        sig = f"signal {-rc}" if rc is not None and rc < 0 else f"exit status {rc}"
        tail = run.log_tail.strip().splitlines()[-15:]
        memory_hit = _looks_like_memory(run.log_tail)
        what = f"while running {inflight}" if inflight else "while building the model"
        kind = "ran out of memory" if memory_hit else "crashed"
        tr.error = f"target {tr.name!r}: the worker {kind} ({sig}) {what}" + \
                   (f" (limit {memory} MiB)" if memory_hit else "") + ("\n" + "\n".join(tail) if tail else "")
        tr.error_stage = "memory" if memory_hit else "crash"
        for e in pending:
            tr.outcomes[e].status = "error" if (e == inflight or inflight is None) else "skipped"
            tr.outcomes[e].message = tr.error.splitlines()[0] if e == inflight or inflight is None else ""
        return
    if tr.error is not None:
        for e in pending:
            tr.outcomes[e].status = "error"
            tr.outcomes[e].message = tr.error.splitlines()[0]


def _reported(run: RunOutcome, exporter: str) -> bool:
    return any(ev.get("event") == "exporter" and ev.get("exporter") == exporter for ev in run.events)


def _looks_like_memory(text: str) -> bool:
    return any(m in text for m in ("MemoryError", "std::bad_alloc", "can't allocate memory",
                                   "Cannot allocate memory", "out of memory"))


# ----------------------------------------------------------------------------- verdicts
def _abspath(p: str, config: Any) -> str:
    if os.path.isabs(p):
        return os.path.realpath(p)
    for base in (Path.cwd(), Path(getattr(config, "root", None) or Path.cwd())):
        cand = base / p
        if cand.exists():
            return os.path.realpath(cand)
    return os.path.realpath(p)


def _display_path(p: str, like: Sequence[Finding]) -> str:
    """Paths of new findings: relative to cwd like the static ones when possible."""
    if any(os.path.isabs(f.path) for f in like):
        return p
    try:
        rel = os.path.relpath(p)
    except ValueError:
        return p
    return p if rel.startswith("..") else rel


@dataclass
class _Hit:
    target: str
    exporter: str
    kind: str  # "fail" | "diverged"
    path: Optional[str]
    line: Optional[int]
    stack: list[tuple[str, int]]
    message: str
    how: Optional[str]
    extra: dict


def _hits(tr: TargetResult) -> list[_Hit]:
    out = []
    for e, o in tr.outcomes.items():
        if o.status == "fail":
            out.append(_Hit(tr.name, e, "fail", o.path, o.line, list(o.stack) or
                            ([(o.path, o.line)] if o.path and o.line else []), o.message, o.how,
                            {"exception": o.exception}))
        elif o.status == "diverged":
            for d in o.divergences:
                loc = d.get("location") or {}
                p, ln = loc.get("path"), loc.get("line")
                out.append(_Hit(tr.name, e, "diverged", p, ln, [tuple(s) for s in loc.get("stack", [])] or
                                ([(p, ln)] if p and ln else []),
                                f"{d.get('variant')}: {d.get('message') or 'values differ'}", loc.get("how"),
                                {"variant": d.get("variant"), "max_abs_error": d.get("max_abs"),
                                 "max_rel_error": d.get("max_rel")}))
    return out


_CONFIRMABLE = re.compile(r"^EXL[1-4]\d\d$")
#: rules whose claim is that the legacy trace turns tensor data into a constant (`.item()`,
#: `int(t)`, a size from tensor data): a data-to-constant TracerWarning at their line, in an
#: export that diverged on other inputs, is that claim observed
_BAKES_DATA_CODES = ("EXL102", "EXL104")


def _baked_at(o: "ExporterOutcome", path: str, f: Optional[Finding] = None) -> bool:
    """A data-to-constant TracerWarning of this export at one of the finding's lines (any line
    of the file without a finding)."""
    first, last = (f.line, max(f.end_line, f.line)) if f is not None else (0, float("inf"))
    return any(len(t) >= 3 and os.path.realpath(str(t[0])) == path and first <= int(t[1]) <= last
               and str(t[2]).startswith(DATA_TO_CONSTANT) for t in o.tracer_warnings)
#: divergences placed where the values first differ (or where onnxruntime raised): the cause (a
#: value baked into a constant) may lie earlier, so they never refute a finding on another line
_SYMPTOM_HOWS = ("first-diverging-line", "first-diverging-onnx-line", "first-diverging-onnx-value",
                 "onnx-node-source")
_SPANS: dict[str, list[tuple[int, int]]] = {}


def _statement_spans(path: str) -> list[tuple[int, int]]:
    """(first, last) line of each simple statement and of each compound statement's header."""
    if path in _SPANS:
        return _SPANS[path]
    import ast

    spans: list[tuple[int, int]] = []
    try:
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        tree = None
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.stmt):
            continue
        end = node.end_lineno or node.lineno
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            end = max(node.lineno, body[0].lineno - 1)  # the header only
        spans.append((node.lineno, end))
    _SPANS[path] = spans
    return spans


def _finding_span(path: str, line: int, end: int) -> tuple[int, int]:
    """The finding's lines widened to the innermost statement that contains its first line."""
    best: Optional[tuple[int, int]] = None
    for a, b in _statement_spans(path):
        if a <= line <= b and (best is None or b - a < best[1] - best[0]):
            best = (a, b)
    lo, hi = line, max(line, end)
    if best:
        lo, hi = min(lo, best[0]), max(hi, best[1])
    return lo, hi


def _match(f_path: str, f_line: int, f_end: int, hit: _Hit, innermost_only: bool) -> int:
    """2: the hit's frame (innermost only, or any of its callers) is on the finding's lines;
    1: within one line of them and in the same statement; 0: no match."""
    frames = hit.stack[:1] if innermost_only else hit.stack
    end = max(f_end, f_line)
    best = 0
    for p, ln in frames:
        if os.path.realpath(p) != f_path:
            continue
        if f_line <= ln <= end:
            return 2
        if f_line - 1 <= ln <= end + 1:
            lo, hi = _finding_span(f_path, f_line, f_end)
            if lo <= ln <= hi:
                best = 1
    return best


#: rules about device placement: what they predict (a failure once the model runs on another
#: device) shows on the confirm machine only as a device error, never as a divergence or an
#: unrelated failure on the same line
_DEVICE_RULES = ("EXL301", "EXL302", "EXL303")
_DEVICE_WORDS = ("device", "cuda")


def _explains(f: Finding, hit: "_Hit") -> bool:
    if f.code in _DEVICE_RULES:
        return hit.kind == "fail" and any(w in (hit.message or "").lower() for w in _DEVICE_WORDS)
    return True


def _confirmable(f: Finding, exporter: str) -> bool:
    """Static findings a real failure can confirm: the export rules (EXL1xx-EXL4xx) that name the
    failing exporter."""
    return bool(_CONFIRMABLE.match(f.code)) and (not f.exporters or exporter in f.exporters)


def join_findings(config: Any, findings: list[Finding], results: list[TargetResult],
                  exporters: Sequence[str]) -> list[Finding]:
    """Set verdicts on the static findings; add EXL901/EXL902 for what they did not predict."""
    hits = [h for tr in results for h in _hits(tr)]
    explained: set[int] = set()
    abs_paths = {id(f): _abspath(f.path, config) for f in findings}
    # pass 1: which findings does each hit land on (innermost frame first, then its callers)
    landing: dict[int, list[Finding]] = {}
    for i, h in enumerate(hits):
        for innermost in (True, False):
            scored = [(_match(abs_paths[id(f)], f.line, f.end_line, h, innermost), f) for f in findings
                      if _confirmable(f, h.exporter) and _explains(f, h)]
            top = max((sc for sc, _ in scored), default=0)
            fs = [f for sc, f in scored if sc and sc == top]  # exact lines win over neighbours
            if fs:
                landing[i] = fs
                break
    out: list[Finding] = []
    for f in findings:
        if f.code in ("EXL901", "EXL902"):
            out.append(f)
            continue
        p = abs_paths[id(f)]
        relevant = [e for e in exporters if not f.exporters or e in f.exporters]
        per_exp: dict[str, str] = {}
        evidence: list[dict] = []
        for i, h in enumerate(hits):
            if f in landing.get(i, []):
                explained.add(i)
                if h.exporter in relevant:
                    per_exp[h.exporter] = "confirmed"
                evidence.append({"target": h.target, "exporter": h.exporter, "outcome": h.kind,
                                 "message": h.message})
        touched = False
        for tr in results:
            if p not in tr.loaded_files and p not in tr.coverage:
                continue
            touched = True
            ran = any(ln in tr.coverage.get(p, ()) for ln in range(f.line, max(f.end_line, f.line) + 1))
            for e in relevant:
                if per_exp.get(e) == "confirmed":
                    continue
                o = tr.outcomes.get(e)
                if o is None or o.status in ("skipped", "timeout", "error"):
                    continue
                if not ran:
                    per_exp.setdefault(e, "not-reached")
                elif o.status in ("pass", "diverged") and f.code in _DEVICE_RULES:
                    # the trial export runs on one device (CPU): an outcome that is not a device
                    # error cannot show a hazard that needs a second one (neither confirms nor refutes)
                    per_exp.setdefault(e, "untested")
                elif o.status == "pass":
                    per_exp[e] = "refuted"
                elif o.status == "diverged" and _baked_at(o, p, f):
                    # the divergence is placed at one TracerWarning, but every line whose tensor
                    # data became a constant of that trace (`h.item()`, then `w.item()`) is
                    # baked alike: never refuted, and confirmed for the rules that say so
                    if f.code in _BAKES_DATA_CODES:
                        per_exp[e] = "confirmed"
                        evidence.append({"target": tr.name, "exporter": e, "outcome": "diverged",
                                         "message": "this line turned tensor data into a constant of the trace "
                                                    "(TracerWarning) in the export that diverged"})
                    else:
                        per_exp.setdefault(e, "untested")
                elif o.status == "diverged" and f.code in _BAKES_DATA_CODES and _baked_at(o, p):
                    # a size or value read from data this trace baked on another line of the file
                    # (`h = h.item()`, then `torch.arange(h)`): the constant flows here too
                    per_exp.setdefault(e, "untested")
                elif o.status == "diverged" and all(h.path and h.how not in _SYMPTOM_HOWS
                                                    for h in _hits(tr) if h.exporter == e):
                    per_exp[e] = "refuted"
                else:
                    per_exp.setdefault(e, "not-reached")  # the exporter stopped elsewhere first
            key = f"{p}:{f.line}"
            if tr.flips.get(key):
                f.details.setdefault("confirm", {})["flipped_by"] = tr.flips[key]
        if per_exp:
            vals = set(per_exp.values())
            f.verdict = next((v for v in ("confirmed", "refuted", "untested") if v in vals), "not-reached")
            c = f.details.setdefault("confirm", {})
            c["exporters"] = per_exp
            if evidence:
                c["evidence"] = evidence
        elif touched and evidence:
            f.verdict = "confirmed"
            f.details.setdefault("confirm", {})["evidence"] = evidence
        out.append(f)
    # pass 2: EXL901 / EXL902 for hits no static finding explains
    by_target = {tr.name: tr for tr in results}
    merged: dict[tuple, Finding] = {}
    for i, h in enumerate(hits):
        tr = by_target[h.target]
        if h.kind == "diverged":
            # a divergence is always reported (also when a static finding explains it: it is the proof)
            code = "EXL902"
        else:
            if i in explained:
                continue
            code = "EXL901"
        path = h.path or tr.path
        line = h.line or tr.line or 1
        if not path:
            continue
        located = bool(h.path)
        key = (code, path, line)
        if key in merged:
            f = merged[key]
            f.exporters = tuple(dict.fromkeys(f.exporters + (h.exporter,)))
            if h.exporter not in f.details["exporters"]:
                f.details["exporters"].append(h.exporter)
            f.details["messages"].setdefault(h.exporter, h.message)
            if h.kind == "diverged":
                f.details["variants"] = list(dict.fromkeys(f.details["variants"] + [h.extra.get("variant")]))
            f.message = _merged_message(code, f.details, tr.name if not located else None)
            continue
        details = {"target": tr.name, "exporters": [h.exporter], "outcome": h.kind,
                   "exporter_message": h.message, "messages": {h.exporter: h.message},
                   "located_by": h.how if located else "target", "stack": [f"{p}:{ln}" for p, ln in h.stack],
                   **{k: v for k, v in h.extra.items() if v is not None}}
        if h.kind == "diverged":
            details["variants"] = [h.extra.get("variant")]
        col, end_col = _line_span(path, line)
        nf = Finding(code=code, severity=Severity.ERROR, path=_display_path(path, findings), line=line,
                     column=col, end_line=line, end_column=end_col,
                     message=_merged_message(code, details, tr.name if not located else None),
                     exporters=(h.exporter,), details=details)
        merged[key] = nf
        out.append(nf)
    return out


def _merged_message(code: str, details: dict, unlocated_target: Optional[str]) -> str:
    exps = details["exporters"]
    first = details["messages"][exps[0]]
    if code == "EXL901":
        how = details.get("located_by")
        where = f" (line found by {how})" if how and how != "target" else ""
        msg = (f"{', '.join(exps)} fail{'s' if len(exps) == 1 else ''} here{where}: {first}. "
               f"To fix: {advice(first, details.get('exception'))}")
    else:
        msg = (f"{', '.join(exps)} export{'s' if len(exps) == 1 else ''}, but the exported program disagrees "
               f"with eager: {first}")
        others = [v for v in details.get("variants", [])[1:] if v]
        if others:
            msg += f" (also on: {', '.join(others)})"
    if unlocated_target:
        msg += f" [no source line found; reported at target {unlocated_target!r}]"
    return msg


def advice(message: str, exception: Optional[str] = None) -> str:
    """What to change, from the class of the exporter's error (not from the model)."""
    m = message or ""
    exc = exception or ""
    if any(k in m for k in ("Constraints violated", "specialized it to be a constant",
                            "requested dynamic but exported static", "but tracing inferred a static shape")):
        fix = re.search(r"Suggested fixes:\s*(.+?)(?:\s+The error above|$)", m)
        hint = f" (torch suggests: {' '.join(fix.group(1).split())[:160]})" if fix else ""
        return ("this line specialises a dimension the export declares dynamic: keep the size arithmetic "
                "symbolic (`//` instead of int(a / b), no round()/float() on sizes, no Python branching on "
                "sizes), or declare the dimension static / with a range it really has" + hint)
    if "ONNXRuntimeError" in m or m.startswith("the exported program fails"):
        return ("the export succeeded but the exported model fails when run (onnxruntime) in the node made "
                "from this line: a size, index or type fixed at export time does not hold, or the op's "
                "translation does not fit this opset: try another opset or exporter, or rewrite the line with "
                "plainer tensor ops")
    if "GuardOnDataDependentSymNode" in exc or "data-dependent" in m or "Could not guard on" in m \
            or "Could not extract specialized integer" in m:
        return ("a value read from tensor data (.item(), int(t), a data-dependent size) decides a branch or "
                "a size: use torch.where / torch.cond, or bound it with torch._check(...) before use")
    if "UnsupportedOperator" in exc or "UnsupportedOperator" in m or "No ONNX function found" in m \
            or "is not supported" in m and "ONNX" in m or "Exporting the operator" in m:
        return ("the operator has no ONNX translation for this exporter/opset: rewrite it with supported "
                "ops, compute it outside the exported forward, register a custom translation, or stop "
                "targeting this exporter")
    if "Unsupported" in m or "torch._dynamo.exc" in exc:
        return ("torch.export's strict tracer (dynamo) cannot trace this Python: move it out of forward, "
                "make it plain tensor code, or export with strict=False")
    if re.search(r"forward\(\) (got|missing|takes)|unexpected keyword|positional argument|multiple values for", m):
        return "the exporter cannot bind the inputs/outputs as written: pass plain positional tensors"
    if "TypeError" in m:
        return ("Python or library code on this line gets a traced value (a tensor or a symbolic size) it does "
                "not accept: use the torch equivalent (torch.round, torch.div(..., rounding_mode=...), "
                "tensor methods) or compute the value outside the exported forward")
    return "rewrite this line with operations the exporter supports, or stop targeting this exporter"


def _line_span(path: str, line: int) -> tuple[int, int]:
    try:
        with open(path, encoding="utf-8") as fh:
            for i, text in enumerate(fh, 1):
                if i == line:
                    text = text.rstrip("\n")
                    stripped = text.lstrip()
                    return len(text) - len(stripped) + 1, len(text) + 1
    except (OSError, UnicodeDecodeError):
        pass
    return 1, 1
