"""Forked worker processes without ``multiprocessing`` (Linux / POSIX fork only).

``workers.Pool`` needs little of a process: start a function in a forked child, a pipe each
way carrying pickled messages, a sentinel that becomes readable when the child is gone, its
exit code, kill / join. ``multiprocessing`` brings that with ``socket``, ``tempfile``,
``random`` and its reducers: ~7 ms of CPU to import (measured after ``import libcst``,
median of 21 interleaved runs: 153.9 vs 144.5 ms), paid by every one-file call, which lints
in one forked worker (workers.py). This module gives the same for ``fork`` in ~0.2 ms
(``pickle`` and ``select``). Spawn-based platforms keep ``multiprocessing``.

The interface is the subset of ``multiprocessing``'s that ``workers.py`` uses:
``FORK.Pipe()``, ``FORK.Process(target, args, daemon, name)`` with ``start``, ``kill``,
``terminate``, ``join``, ``is_alive``, ``exitcode``, ``sentinel``, and ``wait`` (as
``multiprocessing.connection.wait``).
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import sys
from typing import Any, Callable, Iterable, Optional

#: parent-side descriptors of the live workers' pipes: a child closes the other workers'
#: (it must not keep their pipes open: a worker sees end-of-file when its parent goes)
_PARENT_FDS: set[int] = set()


class Connection:
    """One end of a pipe pair: length-prefixed pickles (8 bytes, big-endian length)."""

    def __init__(self, rfd: int, wfd: int) -> None:
        self._r, self._w = rfd, wfd
        self.closed = False

    def fileno(self) -> int:
        return self._r

    def send(self, obj: Any) -> None:
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        buf = memoryview(len(data).to_bytes(8, "big") + data)
        while buf:
            n = os.write(self._w, buf)  # raises BrokenPipeError (OSError) once the reader is gone
            buf = buf[n:]

    def _read(self, n: int) -> bytes:
        parts = []
        while n:
            chunk = os.read(self._r, min(n, 1 << 20))
            if not chunk:
                raise EOFError
            parts.append(chunk)
            n -= len(chunk)
        return b"".join(parts)

    def recv(self) -> Any:
        if self.closed:
            raise OSError("connection closed")
        return pickle.loads(self._read(int.from_bytes(self._read(8), "big")))

    def poll(self, timeout: float = 0.0) -> bool:
        if self.closed:
            raise OSError("connection closed")
        return bool(select.select([self._r], [], [], timeout)[0])

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            for fd in (self._r, self._w):
                _PARENT_FDS.discard(fd)
                try:
                    os.close(fd)
                except OSError:
                    pass


def Pipe() -> tuple[Connection, Connection]:  # noqa: N802 - as multiprocessing names it
    """(parent end, child end), duplex like ``multiprocessing.Pipe()``."""
    r1, w1 = os.pipe()  # child -> parent
    r2, w2 = os.pipe()  # parent -> child
    parent, child = Connection(r1, w2), Connection(r2, w1)
    _PARENT_FDS.update((r1, w2))
    return parent, child


class Process:
    def __init__(self, target: Callable[..., Any], args: tuple = (), daemon: bool = True,
                 name: str = "worker") -> None:
        self._target, self._args, self.name = target, args, name
        self.pid: Optional[int] = None
        self.exitcode: Optional[int] = None
        self.sentinel = -1

    def start(self) -> None:
        for stream in (sys.stdout, sys.stderr):  # what is buffered would be written twice
            try:
                stream.flush()
            except (AttributeError, OSError, ValueError):
                pass
        r, w = os.pipe()  # the child holds w until it exits: r reads end-of-file then
        pid = os.fork()
        if pid == 0:  # the child
            code = 1
            try:
                os.close(r)
                for fd in list(_PARENT_FDS):  # (the child's own ends are not among them)
                    try:
                        os.close(fd)
                    except OSError:
                        pass
                _PARENT_FDS.clear()
                try:  # as multiprocessing does: the worker does not read the parent's stdin
                    sys.stdin.close()
                    sys.stdin = open(os.devnull)  # noqa: SIM115
                except (AttributeError, OSError, ValueError):
                    pass
                self._target(*self._args)
                code = 0
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else 1
            except BaseException:  # noqa: BLE001 - printed, then the exit status says it
                import traceback

                traceback.print_exc()
            finally:
                for stream in (sys.stdout, sys.stderr):
                    try:
                        stream.flush()
                    except (AttributeError, OSError, ValueError):
                        pass
                os._exit(code)
        os.close(w)
        self.pid, self.sentinel = pid, r

    def _reap(self, flags: int) -> bool:
        if self.exitcode is not None:
            return True
        if self.pid is None:
            return False
        try:
            pid, status = os.waitpid(self.pid, flags)
        except ChildProcessError:
            self.exitcode = self.exitcode if self.exitcode is not None else -1
            return True
        if pid == 0:
            return False
        self.exitcode = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        try:  # (its number may be reused: ``wait`` takes -1 as the sentinel of a reaped child)
            os.close(self.sentinel)
        except OSError:
            pass
        self.sentinel = -1
        return True

    def is_alive(self) -> bool:
        return self.pid is not None and not self._reap(os.WNOHANG)

    def join(self, timeout: Optional[float] = None) -> None:
        if self.pid is None or self._reap(os.WNOHANG):
            return
        if timeout is None or wait([self.sentinel], timeout):
            # (the sentinel reads end-of-file as the child exits: reaping it waits no longer)
            self._reap(0)

    def _signal(self, sig: int) -> None:
        if self.pid is not None and self.exitcode is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        self._signal(signal.SIGKILL)

    def terminate(self) -> None:
        self._signal(signal.SIGTERM)


def wait(objects: Iterable[Any], timeout: Optional[float] = None) -> list:
    """Those of ``objects`` (connections, sentinel descriptors) that are ready, as
    ``multiprocessing.connection.wait``."""
    objs = list(objects)
    fds = [o if isinstance(o, int) else o.fileno() for o in objs]
    if -1 in fds:  # the sentinel of a child already reaped: ready
        return [o for o, fd in zip(objs, fds) if fd == -1]
    p = select.poll()
    for fd in fds:
        p.register(fd, select.POLLIN)
    ms = None if timeout is None else max(0, int(timeout * 1000 + 0.999))
    ready = {fd for fd, _ in p.poll(ms)}
    return [o for o, fd in zip(objs, fds) if fd in ready]


class _ForkContext:
    """What ``workers.Pool`` takes as its ``context`` (``multiprocessing.get_context`` style)."""

    Pipe = staticmethod(Pipe)
    Process = Process
    wait = staticmethod(wait)


FORK = _ForkContext()
