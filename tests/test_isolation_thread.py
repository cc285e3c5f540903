"""The lint thread of ``isolation.call_deep`` is kept from call to call (a fresh 256 MiB-stack
thread per file cost ~10% of the parse: a new malloc arena each time), and stays correct:
its limit, exceptions, nested calls, retirement after a deep file, forked children."""

from __future__ import annotations

import multiprocessing as mp
import sys
import threading

import pytest

from exportlint import isolation


def _where() -> tuple[threading.Thread, str, int]:
    # (the Thread object: a new thread may get the ident of one that ended)
    t = threading.current_thread()
    return t, t.name, sys.getrecursionlimit()


def test_call_deep_runs_in_one_kept_thread_with_the_raised_limit():
    before = sys.getrecursionlimit()
    a = isolation.call_deep(_where)
    b = isolation.call_deep(_where)
    assert a[0] is not threading.current_thread() and a[1] == "exportlint-lint"
    assert a[0] is b[0]  # the same thread served both calls
    assert a[2] >= isolation.RECURSION_LIMIT
    assert sys.getrecursionlimit() == before  # restored in the caller


def test_deep_python_recursion_lints_there():
    def down(n: int) -> int:
        return 0 if n == 0 else 1 + down(n - 1)

    assert isolation.call_deep(down, 20_000) == 20_000


def test_exceptions_reach_the_caller_and_the_thread_is_kept():
    def boom() -> None:
        raise ValueError("from the lint thread")

    first = isolation.call_deep(_where)[0]
    with pytest.raises(ValueError, match="from the lint thread"):
        isolation.call_deep(boom)
    assert isolation.call_deep(_where)[0] is first


def test_a_nested_call_runs_in_the_same_thread():
    outer, inner = isolation.call_deep(lambda: (threading.current_thread(), isolation.call_deep(_where)[0]))
    assert outer is inner


def test_a_thread_that_touched_much_memory_is_retired(monkeypatch):
    first = isolation.call_deep(_where)[0]
    monkeypatch.setattr(isolation, "RETIRE_FAULTS", -1)  # every call counts as a deep file
    assert isolation.call_deep(_where)[0] is first  # this call ran there, then it ended
    monkeypatch.setattr(isolation, "RETIRE_FAULTS", 1 << 40)
    assert isolation.call_deep(_where)[0] is not first


def test_concurrent_callers_each_get_a_thread():
    got: list[threading.Thread] = []
    gate = threading.Barrier(2)

    def held() -> threading.Thread:
        gate.wait(timeout=10)
        return threading.current_thread()

    ts = [threading.Thread(target=lambda: got.append(isolation.call_deep(held))) for _ in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=20)
    assert len(got) == 2 and got[0] is not got[1]


def _child(q) -> None:
    q.put(isolation.call_deep(_where)[1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork")
def test_a_forked_child_starts_its_own_thread():
    isolation.call_deep(_where)  # the parent holds an idle lint thread
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(q,))
    p.start()
    assert q.get(timeout=30) == "exportlint-lint"
    p.join(timeout=30)
    assert p.exitcode == 0
