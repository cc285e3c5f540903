"""Run one target in its own process: time limit, memory limit, no network, clean Ctrl-C.

The worker (``python -m exportlint.confirm.worker JOB``) appends JSON events to a file; we
poll it for progress, kill the whole process group at the deadline, and keep every event
written before a hang, a crash or an out-of-memory death.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

_PROXY_VARS = ("http_proxy", "https_proxy", "ftp_proxy", "all_proxy", "no_proxy",
               "HTTP_PROXY", "HTTPS_PROXY", "FTP_PROXY", "ALL_PROXY", "NO_PROXY")
_OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
            "TORCH_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1",
            "TORCHINDUCTOR_CACHE_DIR": "", "PYTHONWARNINGS": "ignore::DeprecationWarning"}


@dataclass
class RunOutcome:
    events: list[dict] = field(default_factory=list)
    returncode: Optional[int] = None
    timed_out: bool = False
    interrupted: bool = False
    log_tail: str = ""
    seconds: float = 0.0


def worker_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _PROXY_VARS}
    for k, v in _OFFLINE.items():
        if v:
            env[k] = v
    # make exportlint importable in the child even when it is run from a checkout
    pkg_parent = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join([pkg_parent] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def _limits(memory_mb: Optional[int]) -> Callable[[], None]:
    def pre() -> None:
        if memory_mb:
            try:
                import resource

                lim = int(memory_mb) * 1024 * 1024
                resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
            except (ImportError, ValueError, OSError):
                pass
    return pre


def run_job(job: dict, *, timeout: float, memory_mb: Optional[int],
            on_event: Optional[Callable[[dict], None]] = None, python: Optional[str] = None) -> RunOutcome:
    """Run the worker on ``job`` and collect its events."""
    tmp = tempfile.mkdtemp(prefix="exportlint-confirm-")
    out = RunOutcome()
    proc: Optional[subprocess.Popen] = None
    t0 = time.monotonic()
    try:
        job = dict(job, events=os.path.join(tmp, "events.jsonl"))
        job_path = os.path.join(tmp, "job.json")
        with open(job_path, "w", encoding="utf-8") as f:
            json.dump(job, f)
        open(job["events"], "w").close()
        log_path = os.path.join(tmp, "log.txt")
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                [python or sys.executable, "-m", "exportlint.confirm.worker", job_path],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=job.get("cwd") or None,
                env=worker_env(), start_new_session=True, preexec_fn=_limits(memory_mb),
            )
            deadline = t0 + timeout
            pos = 0
            with open(job["events"], encoding="utf-8") as ev:
                while True:
                    pos = _drain(ev, out, on_event)
                    if proc.poll() is not None:
                        break
                    if time.monotonic() > deadline:
                        out.timed_out = True
                        _kill(proc)
                        break
                    time.sleep(0.05)
                _drain(ev, out, on_event)
        out.returncode = proc.returncode
        out.log_tail = _tail(log_path)
    except KeyboardInterrupt:
        out.interrupted = True
        if proc is not None:
            _kill(proc)
            out.returncode = proc.returncode
    finally:
        out.seconds = time.monotonic() - t0
        if proc is not None and proc.poll() is None:
            _kill(proc)
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def _drain(ev, out: RunOutcome, on_event) -> int:
    while True:
        pos = ev.tell()
        line = ev.readline()
        if not line:
            return pos
        if not line.endswith("\n"):  # partially written: read it again next time
            ev.seek(pos)
            return pos
        try:
            e = json.loads(line)
        except ValueError:
            continue
        out.events.append(e)
        if on_event is not None:
            on_event(e)


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        try:
            proc.kill()
        except OSError:
            pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover
        pass


def _tail(path: str, n: int = 4000) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - n))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""
