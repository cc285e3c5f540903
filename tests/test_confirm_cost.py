"""--confirm's cost: locating a specialised dim re-exports at most once per target.

The guards of a torch.export run are recorded while the exporter itself runs, and what a
re-export learns (guards, the draft program) is kept for the target's other exporters, since
they export the same pristine model on the same inputs. The located line must be the one a
fresh re-export gives (tests/fixtures/confirm/cases/chunk_dynamic_batch.py: line 13).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CASE = REPO / "tests" / "fixtures" / "confirm" / "cases" / "chunk_dynamic_batch.py"
HAVE_EXPORT_STACK = all(importlib.util.find_spec(m) for m in ("torch", "onnx", "onnxruntime", "onnxscript"))
needs_torch = pytest.mark.skipif(not HAVE_EXPORT_STACK, reason="torch / onnx / onnxruntime not installed")
LINE = 13  # a, b = torch.chunk(f, 2, dim=0)


def _target():
    from exportlint.confirm.locate import UserFiles
    from exportlint.confirm.worker import _Pristine, build_spec, load_target, output_leaves

    import torch

    users = UserFiles([str(CASE.parent)])
    obj, mod = load_target({"file": str(CASE), "module_alias": "_exportlint_cost_case"}, users)
    spec = build_spec(obj, mod, users)
    spec["model"].eval()
    with torch.no_grad():
        ref = output_leaves(spec["model"](*spec["args"]))
    return users, spec, _Pristine(spec["model"]), ref


def _counting(monkeypatch, name: str, calls: "list | None" = None) -> list:
    """Count (by their ``strict``) the calls of ``torch.export.<name>`` into ``calls``."""
    import torch

    calls = [] if calls is None else calls
    real = getattr(torch.export, name)

    def wrapper(*a, **k):
        calls.append(k.get("strict"))
        return real(*a, **k)
    monkeypatch.setattr(torch.export, name, wrapper)
    return calls


@needs_torch
def test_guards_of_the_failing_export_locate_it_without_exporting_again(monkeypatch):
    from exportlint.confirm.locate import guard_cache_key
    from exportlint.confirm.worker import run_exporter

    users, spec, pristine, ref = _target()
    job = {"rtol": 1e-4, "atol": 1e-5, "findings": [], "opset": None}
    calls = _counting(monkeypatch, "export")
    res = run_exporter("export-nonstrict", pristine, spec, [], ref, users, job, {}, {})
    assert res["status"] == "fail"
    assert (res["location"]["line"], res["location"]["how"]) == (LINE, "guard-provenance")
    assert calls == [False]  # the exporter's own run only
    assert guard_cache_key(False) in job["_locate_cache"]

    # onnx-dynamo exports the batch static: located by the same guards, kept from above
    kept = len(calls)
    res = run_exporter("onnx-dynamo", pristine, spec, [], ref, users, job, {}, {})
    with_cache = len(calls) - kept
    assert res["status"] == "diverged"
    assert res["divergences"][0]["variant"] == "dynamic shapes"
    assert res["divergences"][0]["location"]["line"] == LINE
    # against a fresh target (nothing kept): exactly one export more, the guard re-export
    kept = len(calls)
    fresh = run_exporter("onnx-dynamo", pristine, spec, [], ref, users,
                         {"rtol": 1e-4, "atol": 1e-5, "findings": [], "opset": None}, {}, {})
    assert fresh["divergences"][0]["location"] == res["divergences"][0]["location"]
    assert len(calls) - kept == with_cache + 1


@needs_torch
def test_guard_and_draft_locations_from_the_cache_equal_a_fresh_re_export(monkeypatch):
    import torch

    from exportlint.confirm.locate import locate_by_draft_export, locate_by_guards
    from exportlint.confirm.worker import clone_inputs

    users, spec, pristine, _ = _target()
    ds = spec["dynamic_shapes"]
    msg = "Constraints violated (batch)! You marked batch as dynamic but your code specialized it"
    for fn in (locate_by_guards, locate_by_draft_export):
        a, k = clone_inputs(spec["args"], spec["kwargs"])
        fresh = fn(pristine.fresh(), a, k, ds, users, message=msg)
        assert fresh is not None and fresh.line == LINE, (fn.__name__, fresh)
        cache: dict = {}
        first = fn(pristine.fresh(), a, k, ds, users, message=msg, cache=cache)
        calls = _counting(monkeypatch, "draft_export", _counting(monkeypatch, "export"))
        for m in (msg, ""):  # another exporter's message: read from the kept run
            again = fn(pristine.fresh(), a, k, ds, users, message=m, cache=cache)
            assert again is not None and again.line == LINE
        assert (first.path, first.line, first.how) == (fresh.path, fresh.line, fresh.how)
        assert not calls, fn.__name__
        monkeypatch.undo()
        assert torch.export.export.__name__ == "export"
