"""Worker processes that may die: one file's native crash does not take the run down.

``isolation.py`` predicts the native parser's limits (``compile()`` first, a big-stack thread)
and keeps every known pathological file from crashing. This is the fallback for what it does
not predict: the files are linted in child processes, and when one dies (a segmentation fault
in a C extension, the kernel's OOM killer), the parent

- knows which file it was (a worker is sent a small batch and answers file by file, so the
  culprit is the first unanswered file of the dead worker's batch; the rest of the batch is
  queued again),
- starts a replacement worker, and
- re-runs the culprit alone in a fresh process: when that one dies too, the file is reported
  as ``Crashed`` (the engine turns it into a located EXL003 finding); when it lints, its
  result is kept (the first death was not the file's doing).

A worker that gives no answer for ``item_timeout`` seconds (an analysis that does not end)
is killed; its current item is reported as ``Crashed`` with ``timed_out`` set (not re-run:
it would only take as long again), the rest of its batch is queued again.

Every other file's result is kept. An exception raised by the worker function itself (a bug:
the engine catches what rules raise) comes back as ``Failed`` with its traceback, for that
file only.

Measured (this machine, Linux, CPython 3.11, exportlint and libcst imported): forking a
worker, one round trip through its pipe and joining it costs 2-4 ms, so on Linux even a
one-file or ``-j 1`` run lints in one forked worker and is protected too. Where ``fork`` is
not the start method (``spawn`` re-imports everything, ~0.3 s per worker) only runs that
use a pool anyway (``engine._lint_paths``) are protected.
"""

from __future__ import annotations

import signal
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Optional


@dataclass
class Crashed:
    """The worker process died while handling ``item`` (twice: in the pool and alone)."""

    item: Any
    exitcode: int
    #: the worker was stopped after this many seconds without an answer (not a crash)
    timed_out: Optional[float] = None

    def how(self) -> str:
        """``signal 11 (SIGSEGV)``, ``exit status 3`` or ``no answer after 60 s``."""
        if self.timed_out is not None:
            return f"no answer after {self.timed_out:g} s"
        if self.exitcode < 0:
            n = -self.exitcode
            try:
                return f"signal {n} ({signal.Signals(n).name})"
            except ValueError:
                return f"signal {n}"
        return f"exit status {self.exitcode}"


@dataclass
class Failed:
    """The worker function raised on ``item``: its traceback."""

    item: Any
    traceback: str


def _serve(conn: Any, fn: Callable[[Any], Any], initializer: Optional[Callable[..., None]], initargs: tuple) -> None:
    """A worker: batches of items in, one answer per item out, until ``None``."""
    # Ctrl-C reaches the whole process group: the parent stops the workers (no traceback here)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer(*initargs)
    while True:
        try:
            batch = conn.recv()
        except EOFError:
            break
        if batch is None:
            break
        for item in batch:
            try:
                answer = ("ok", fn(item))
            except Exception:  # noqa: BLE001 - reported for this item, the worker goes on
                import traceback

                answer = ("failed", traceback.format_exc())
            conn.send(answer)
    conn.close()


class _Worker:
    def __init__(self, ctx: Any, fn: Callable, initializer: Optional[Callable], initargs: tuple) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, fn, initializer, initargs), daemon=True,
                                name="exportlint-worker")
        self.proc.start()
        child.close()
        #: items sent and not answered yet, in the order the worker handles them
        self.pending: deque = deque()
        #: when the worker started on its current item (the last send or answer)
        self.since = time.monotonic()

    def send(self, batch: list) -> None:
        if not self.pending:
            self.since = time.monotonic()
        self.pending.extend(batch)
        try:
            self.conn.send(batch)
        except OSError:  # it died already: its sentinel says so
            pass

    def answers(self) -> Iterator[tuple[Any, tuple[str, Any]]]:
        """(item, answer) for every answer already in the pipe."""
        while self.pending:
            try:
                if not self.conn.poll():
                    return
                answer = self.conn.recv()
            except (EOFError, OSError):
                return
            self.since = time.monotonic()
            yield self.pending.popleft(), answer

    def overdue(self, timeout: Optional[float]) -> bool:
        return timeout is not None and bool(self.pending) and time.monotonic() - self.since > timeout

    def kill(self) -> int:
        """Stop a worker that does not answer (SIGKILL: it may be stuck in C code)."""
        try:
            self.proc.kill()
        except (OSError, AttributeError):
            pass
        self.proc.join(5)
        self.conn.close()
        return self.proc.exitcode if self.proc.exitcode is not None else -9

    def dead(self) -> bool:
        return not self.proc.is_alive()

    def stop(self, timeout: float = 5.0) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(timeout)
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join(1)
        self.conn.close()


class Pool:
    """``n`` worker processes running ``fn`` on items; see the module docstring."""

    def __init__(self, n: int, fn: Callable[[Any], Any], *, context: Any, initializer: Optional[Callable] = None,
                 initargs: tuple = (), item_timeout: Optional[float] = None) -> None:
        self.ctx, self.fn, self.initializer, self.initargs = context, fn, initializer, initargs
        self.item_timeout = item_timeout
        self.workers = [self._start() for _ in range(max(1, n))]
        #: items whose worker died, with its exit code (the re-run alone decides)
        self.deaths: list[tuple[Any, int]] = []

    def _wait(self) -> Callable:
        """``multiprocessing.connection.wait``, or the context's own (``forkproc.FORK``)."""
        w = getattr(self.ctx, "wait", None)
        if w is None:
            from multiprocessing.connection import wait as w
        return w

    def _start(self) -> _Worker:
        return _Worker(self.ctx, self.fn, self.initializer, self.initargs)

    def imap_unordered(self, items: Iterable[Any], chunksize: int = 1) -> Iterator[Any]:
        """fn(item) for every item, as they come, or ``Crashed`` / ``Failed`` for an item.
        ``items`` is drawn from only when a worker is free (an iterator may make each item
        from the answers yielded before it)."""
        wait = self._wait()
        source = iter(items)
        queue: deque = deque()  # items to send again (their worker died), then the source's
        more = True
        chunksize = max(1, chunksize)
        while True:
            for w in self.workers:
                if w.pending:
                    continue
                while more and len(queue) < chunksize:
                    try:
                        queue.append(next(source))
                    except StopIteration:
                        more = False
                if queue:
                    w.send([queue.popleft() for _ in range(min(chunksize, len(queue)))])
            if not queue and not more and not any(w.pending for w in self.workers):
                break
            busy = [w for w in self.workers if w.pending]
            wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], timeout=self._wait_for(busy))
            for i, w in enumerate(self.workers):
                if not w.pending:
                    continue
                for item, (kind, value) in w.answers():
                    yield value if kind == "ok" else Failed(item, value)
                if w.overdue(self.item_timeout):
                    culprit = w.pending.popleft()
                    queue.extendleft(reversed(w.pending))
                    w.pending.clear()
                    code = w.kill()
                    self.workers[i] = self._start()
                    yield Crashed(culprit, code, timed_out=self.item_timeout)
                    continue
                if w.pending and w.dead():
                    for item, (kind, value) in w.answers():  # what it sent before dying
                        yield value if kind == "ok" else Failed(item, value)
                    if not w.pending:
                        continue
                    culprit = w.pending.popleft()
                    queue.extendleft(reversed(w.pending))  # the rest of its batch, again
                    w.pending.clear()
                    code = w.proc.exitcode if w.proc.exitcode is not None else -1
                    w.conn.close()
                    self.workers[i] = self._start()
                    yield self._alone(culprit, code)

    def _wait_for(self, busy: list) -> Optional[float]:
        """Seconds until the first busy worker is overdue (None: no time limit)."""
        if self.item_timeout is None or not busy:
            return None
        now = time.monotonic()
        return max(0.0, min(w.since + self.item_timeout - now for w in busy)) + 0.01

    def _alone(self, item: Any, first_code: int) -> Any:
        """The item in a fresh worker of its own: its result, or ``Crashed``."""
        wait = self._wait()
        self.deaths.append((item, first_code))
        w = self._start()
        try:
            w.send([item])
            while True:
                wait([w.conn, w.proc.sentinel], timeout=self._wait_for([w]))
                for it, (kind, value) in w.answers():
                    return value if kind == "ok" else Failed(it, value)
                if w.overdue(self.item_timeout):
                    return Crashed(item, w.kill(), timed_out=self.item_timeout)
                if w.dead():
                    for it, (kind, value) in w.answers():
                        return value if kind == "ok" else Failed(it, value)
                    return Crashed(item, w.proc.exitcode if w.proc.exitcode is not None else first_code)
        finally:
            w.stop()

    def close(self) -> None:
        for w in self.workers:
            w.stop()

    def terminate(self) -> None:
        for w in self.workers:
            if w.proc.is_alive():
                w.proc.terminate()
        for w in self.workers:
            w.proc.join(1)
            w.conn.close()
