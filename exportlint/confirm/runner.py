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
    #: the exporter killed for running past the per-exporter limit (the rest did not run)
    exporter_timed_out: Optional[str] = None
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


class ForkServer:
    """One process that imports torch once and forks an isolated child per target.

    Each child gets its own session (killed as a group), memory limit, log and cwd, exactly
    like a fresh ``python -m exportlint.confirm.worker``, without paying the seconds of
    ``import torch`` per target. Falls back to plain processes when it cannot start.
    """

    def __init__(self, python: Optional[str] = None, start_timeout: float = 120.0):
        import queue
        import threading

        self._lock = threading.Lock()
        self._pids: dict[int, "queue.Queue[int]"] = {}
        self._exits: dict[int, int] = {}
        self._next = 0
        self.proc = subprocess.Popen(
            [python or sys.executable, "-m", "exportlint.confirm.worker", "--serve"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            env=worker_env(), start_new_session=True, bufsize=1,
        )
        self._ready: "queue.Queue[dict]" = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        try:
            first = self._ready.get(timeout=start_timeout)
        except Exception:  # noqa: BLE001
            first = {}
        if "ready" not in first:
            self.close()
            raise RuntimeError(f"fork server did not start: {first.get('fatal', 'no answer')}")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if "ready" in msg or "fatal" in msg:
                self._ready.put(msg)
            elif "id" in msg:
                with self._lock:
                    q = self._pids.pop(msg["id"], None)
                if q is not None:
                    q.put(msg["pid"])
            elif "exit" in msg:
                with self._lock:
                    self._exits[msg["exit"]] = msg["status"]
        self._ready.put({"fatal": "fork server exited"})

    def alive(self) -> bool:
        return self.proc.poll() is None

    def spawn(self, job_path: str, log_path: str, memory_mb: Optional[int], cwd: Optional[str]) -> int:
        import queue

        q: "queue.Queue[int]" = queue.Queue()
        with self._lock:
            self._next += 1
            rid = self._next
            self._pids[rid] = q
            assert self.proc.stdin is not None
            self.proc.stdin.write(json.dumps({"id": rid, "job": job_path, "log": log_path,
                                              "memory_mb": memory_mb, "cwd": cwd}) + "\n")
            self.proc.stdin.flush()
        return q.get(timeout=60)

    def exit_status(self, pid: int) -> Optional[int]:
        with self._lock:
            if pid in self._exits:
                return self._exits.pop(pid)
        if not self.alive():
            return -9
        return None

    def close(self) -> None:
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass


class _Forked:
    """The parts of Popen that run_job uses, for a child of the fork server."""

    def __init__(self, server: ForkServer, pid: int):
        self.server, self.pid, self.returncode = server, pid, None

    def poll(self) -> Optional[int]:
        if self.returncode is None:
            self.returncode = self.server.exit_status(self.pid)
        return self.returncode

    def wait(self, timeout: Optional[float] = None) -> Optional[int]:
        end = time.monotonic() + (timeout or 3600)
        while self.poll() is None and time.monotonic() < end:
            time.sleep(0.02)
        if self.returncode is None:
            raise subprocess.TimeoutExpired("worker", timeout or 0)
        return self.returncode

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass


def run_job(job: dict, *, timeout: float, memory_mb: Optional[int],
            on_event: Optional[Callable[[dict], None]] = None, python: Optional[str] = None,
            server: Optional[ForkServer] = None, exporter_timeout: Optional[float] = None) -> RunOutcome:
    """Run the worker on ``job`` (a fresh process, or a child of ``server``) and collect its events.

    ``timeout`` bounds the whole target; ``exporter_timeout`` one exporter (from its
    ``exporter-start`` event): past it the worker is killed and ``exporter_timed_out`` names it."""
    tmp = tempfile.mkdtemp(prefix="exportlint-confirm-")
    out = RunOutcome()
    proc: "Optional[subprocess.Popen | _Forked]" = None
    t0 = time.monotonic()
    try:
        job = dict(job, events=os.path.join(tmp, "events.jsonl"))
        job_path = os.path.join(tmp, "job.json")
        with open(job_path, "w", encoding="utf-8") as f:
            json.dump(job, f)
        open(job["events"], "w").close()
        log_path = os.path.join(tmp, "log.txt")
        with open(log_path, "wb") as log:
            if server is not None and server.alive():
                proc = _Forked(server, server.spawn(job_path, log_path, memory_mb, job.get("cwd") or None))
            else:
                proc = subprocess.Popen(
                    [python or sys.executable, "-m", "exportlint.confirm.worker", job_path],
                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=job.get("cwd") or None,
                    env=worker_env(), start_new_session=True, preexec_fn=_limits(memory_mb),
                )
            deadline = t0 + timeout
            inflight: list = [None, 0.0]  # exporter running, since

            def seen(e: dict) -> None:
                if e.get("event") == "exporter-start":
                    inflight[0], inflight[1] = e.get("exporter"), time.monotonic()
                elif e.get("event") == "exporter":
                    inflight[0] = None
                if on_event is not None:
                    on_event(e)

            with open(job["events"], encoding="utf-8") as ev:
                while True:
                    _drain(ev, out, seen)
                    if proc.poll() is not None:
                        break
                    now = time.monotonic()
                    if now > deadline:
                        out.timed_out = True
                        _kill(proc)
                        break
                    if exporter_timeout and inflight[0] and now - inflight[1] > exporter_timeout:
                        out.exporter_timed_out = inflight[0]
                        _kill(proc)
                        break
                    time.sleep(0.05)
                _drain(ev, out, seen)
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


def _kill(proc: "subprocess.Popen | _Forked") -> None:
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
