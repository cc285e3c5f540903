"""Keeping one pathological file from taking the run down.

Measured (CPython 3.11.7, libcst native parser, 8 MiB main-thread stack, this machine):

- libcst's native parser overflows the C stack and the process dies with SIGSEGV (exit 139)
  on a 7,000-term ``x + x + ... + x`` (5,000 terms parse); bracket nesting between 1,000 and
  3,000 levels and elif chains between 5,000 and 7,000 branches do the same. In a thread
  whose stack is 256 MiB the same 7,000- and 10,000-term files parse.
- CPython's own parser refuses every such file first: ``compile(..., PyCF_ONLY_AST)`` raises
  RecursionError ("maximum recursion depth exceeded during ast construction") or
  MemoryError from about 2,990 levels on, for binary-operator chains, elif chains, unary
  chains, attribute and call chains alike. Such a file cannot be imported by Python 3.11,
  so it is reported (EXL003) instead of parsed; compile() costs about 4 % of libcst's parse.
- Below that limit, the semantic model's recursive walkers exceed the default recursion
  limit (1,000) on e.g. a 500-term expression; with the limit raised to ``RECURSION_LIMIT``
  in a ``STACK_BYTES`` thread, a 2,989-term expression and a 2,987-branch elif chain lint.

So every file is linted in a worker thread with a large stack and a raised recursion limit
(``call_deep``), after compile() has vetted its depth. What still recurses too deep there
becomes EXL003 at the deepest line, never an internal error. A native crash none of this
predicts kills only the worker process linting the file: see ``workers.py``.
"""

from __future__ import annotations

import os
import re
import sys
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator, TypeVar

T = TypeVar("T")

#: stack of the lint thread (virtual memory: only the pages touched are committed)
STACK_BYTES = 256 * 1024 * 1024
#: recursion limit while a file is linted in that thread
RECURSION_LIMIT = 60_000

_lock = threading.Lock()
_depth = 0
_saved_limit = 0


#: a lint thread that touched more new pages than this in one call (its stack after a deep
#: file, or its malloc arena after a huge one) is not kept for the next call: its memory goes
#: back to the system when it ends, as every lint thread's did when each call had its own
RETIRE_FAULTS = 16_384  # 64 MiB of 4 KiB pages

#: idle lint threads, kept for the next call (see ``call_deep``)
_idle: list["_DeepThread"] = []
_deep_local = threading.local()


class _DeepThread:
    """A STACK_BYTES thread that runs the calls handed to it, one at a time.

    Reused from call to call: a fresh thread per file cost ~10% of libcst's parse time
    (measured: 60 timm files parsed 2.6-2.8 s in one thread, 2.9-3.1 s with a new thread
    each; the same with MALLOC_ARENA_MAX=1: a new thread starts on a new or trimmed malloc
    arena and faults its pages in again)."""

    def __init__(self) -> None:
        self.job: Any = None
        self.ready = threading.Event()
        self.done = threading.Event()
        self.box: dict[str, Any] = {}
        self.retire = False
        self.thread = threading.Thread(target=self._serve, name="exportlint-lint", daemon=True)

    def _serve(self) -> None:
        _deep_local.inside = True
        while True:
            self.ready.wait()
            self.ready.clear()
            fn, args = self.job
            self.job = None
            before = _faults()
            try:
                self.box["value"] = fn(*args)
            except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
                self.box["error"] = e
            self.retire = _faults() - before > RETIRE_FAULTS
            self.done.set()
            if self.retire:
                return

    def call(self, fn: Callable[..., T], args: tuple) -> dict[str, Any]:
        self.box = {}
        self.done.clear()
        self.job = (fn, args)
        self.ready.set()
        self.done.wait()
        return self.box


def _faults() -> int:
    """Minor page faults of the calling thread so far (0 where that is not known)."""
    try:
        import resource  # (not on Windows; RUSAGE_THREAD: Linux)

        return resource.getrusage(resource.RUSAGE_THREAD).ru_minflt  # type: ignore[attr-defined]
    except (ImportError, AttributeError, OSError, ValueError):
        return 0


def _after_fork_in_child() -> None:
    _idle.clear()  # the parent's threads do not exist in a forked child


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def call_deep(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in a thread with a STACK_BYTES stack and a RECURSION_LIMIT recursion limit;
    its exception (if any) is re-raised here. Falls back to a direct call where threads with
    such a stack cannot be created. The thread is kept for the next call (``_DeepThread``);
    a call made from inside such a thread runs there directly."""
    global _depth, _saved_limit
    if getattr(_deep_local, "inside", False):
        return fn(*args)
    with _lock:
        if _depth == 0:
            _saved_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_saved_limit, RECURSION_LIMIT))
        _depth += 1
        worker = _idle.pop() if _idle else None
    try:
        if worker is None:
            old = threading.stack_size()
            try:
                threading.stack_size(STACK_BYTES)
                worker = _DeepThread()
                worker.thread.start()
            except (RuntimeError, ValueError, MemoryError):
                return fn(*args)
            finally:
                threading.stack_size(old)
        box = worker.call(fn, args)
        if not worker.retire:
            with _lock:
                _idle.append(worker)
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                sys.setrecursionlimit(_saved_limit)
    if "error" in box:
        raise box["error"]
    return box["value"]


@contextmanager
def python_limits() -> Iterator[None]:
    """The interpreter's own recursion limit (not RECURSION_LIMIT) for a block: CPython 3.11
    scales its parser's depth limit with it, and compile() under the raised limit accepts a
    10,000-term expression that plain Python refuses to import (and that libcst then takes
    minutes to parse)."""
    raised = _depth > 0 and sys.getrecursionlimit() != _saved_limit
    if raised:
        sys.setrecursionlimit(_saved_limit)
    try:
        yield
    finally:
        if raised:
            sys.setrecursionlimit(max(_saved_limit, RECURSION_LIMIT))


_OPS = re.compile(r"[-+*/%@&|^~<>=.(\[{]|\b(?:and|or|not|elif|if|else)\b")


def deepest_line(text: str) -> tuple[int, int]:
    """(line, column) where the nesting most likely is: the start of the line with the most
    operators/brackets, or of the longest elif chain. A heuristic, used only for locating the
    EXL003 finding."""
    best, best_line = -1, 1
    elif_run, elif_start, elif_best, elif_best_line = 0, 1, 0, 1
    for i, line in enumerate(text.splitlines(), 1):
        s = line.lstrip()
        if s.startswith("elif ") or s.startswith("elif("):
            if elif_run == 0:
                elif_start = i
            elif_run += 1
            if elif_run > elif_best:
                elif_best, elif_best_line = elif_run, elif_start
        n = len(_OPS.findall(line)) if len(line) < 100_000 else len(line)
        if n > best:
            best, best_line = n, i
    if elif_best > best:
        return max(elif_best_line - 1, 1), 1
    return best_line, 1


def too_deep_message(what: str) -> str:
    return (f"too deeply nested to analyse ({what}); exportlint skipped this file. Split the "
            "expression or chain into smaller statements")
