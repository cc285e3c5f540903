"""Map a problem in a successfully exported ONNX model back to the user's source line.

Two classes (measured with torch 2.13, onnxruntime 1.3x):

- **onnxruntime raises** while running the exported model (the export passed): its message
  names the node (``... running Reshape node. Name:'/Reshape' Status Message: ...``, or
  ``Node (/Reshape)`` when the session cannot be built). The dynamo exporter stores each
  node's source in ``metadata_props["pkg.torch.onnx.stack_trace"]`` (``File "x.py", line 15,
  in forward``); the legacy exporter writes it into ``node.doc_string`` (``x.py(15): forward``)
  only when exporting with ``verbose=True``, so the caller re-exports verbosely to read it (the
  node names are the same: scope names).
- **values differ, nothing raises** (dynamo): the ONNX values are named after the FX nodes of
  the exported program. Re-export non-strict, run the program node by node on the input that
  diverged, run the ONNX model with those values as extra outputs, and report the first FX node
  (in program order) whose value differs: its ``stack_trace``.

torch, onnx and onnxruntime are imported inside the functions only.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from exportlint.confirm.locate import Location, UserFiles, dedupe_innermost_first, frames_from_text, \
    SOURCE_RANGE_RE

_NODE_RES = (re.compile(r"Name:\s*'([^']+)'"), re.compile(r"\bNode \(([^)]+)\)"),
             re.compile(r"running (?:\w+ )?node[^']*'([^']+)'"))


def failing_node(message: str) -> Optional[str]:
    """The name of the ONNX node an onnxruntime error names, if any."""
    for rx in _NODE_RES:
        m = rx.search(message or "")
        if m:
            return m.group(1)
    return None


def node_frames(node: Any, users: UserFiles) -> list[tuple[str, int]]:
    """User frames of one ONNX node, innermost first (dynamo metadata or legacy doc string)."""
    frames: list[tuple[str, int]] = []
    for p in getattr(node, "metadata_props", ()):
        if "stack_trace" in p.key:
            frames += dedupe_innermost_first(frames_from_text(p.value or "", users))
    if not frames and getattr(node, "doc_string", ""):
        # the legacy doc string lists the innermost frame first: "x.py(15): forward\n..."
        for m in SOURCE_RANGE_RE.finditer(node.doc_string):
            p = users.resolve(m.group(1))
            if p and (p, int(m.group(2))) not in frames:
                frames.append((p, int(m.group(2))))
    return frames


def _all_nodes(graph: Any):
    for n in graph.node:
        yield n
        for a in n.attribute:
            if a.g is not None and len(a.g.node):
                yield from _all_nodes(a.g)
            for g in a.graphs:
                yield from _all_nodes(g)
    return


def _functions(proto: Any) -> dict:
    return {(f.domain, f.name): f for f in getattr(proto, "functions", ())}


def locate_onnx_node(proto: Any, message: str, users: UserFiles) -> Optional[Location]:
    """The source line of the node an onnxruntime error names."""
    name = failing_node(message)
    if proto is None or not name:
        return None
    funcs = _functions(proto)
    for node in _all_nodes(proto.graph):
        if node.name != name:
            continue
        frames = node_frames(node, users)
        if not frames and (node.domain, node.op_type) in funcs:
            # a node inside a local function: the calling node carries the source
            for inner in funcs[(node.domain, node.op_type)].node:
                frames = node_frames(inner, users)
                if frames:
                    break
        if frames:
            return Location(frames[0][0], frames[0][1], "onnx-node-source", frames)
        return None
    # inside a function body: the node name is the inner one; find the calling node
    for key, f in funcs.items():
        if any(n.name == name for n in f.node):
            for node in _all_nodes(proto.graph):
                if (node.domain, node.op_type) == key:
                    frames = node_frames(node, users)
                    if frames:
                        return Location(frames[0][0], frames[0][1], "onnx-node-source", frames)
    return None


def _onnx_decomposition_table() -> dict:
    """The table the dynamo exporter decomposes with (``_fx_passes.decompose_with_registry``):
    torch's decompositions minus the ops torchlib translates (as op overloads)."""
    from torch.onnx._internal.exporter import _decomp, _registration

    registry = _registration.ONNXRegistry.from_torchlib()
    return _decomp.create_onnx_friendly_decomposition_table(set(_decomp.get_onnx_implemented_overloads(registry)))


def locate_by_decomposition_guards(model: Any, args: tuple, kwargs: dict, dynamic_shapes: Any,
                                   users: UserFiles) -> Optional[Location]:
    """The dynamo exporter decomposes the program before translating it; a decomposition can
    specialise a declared dynamic dim (``adaptive_avg_pool2d`` to a non-divisor output size
    guards ``H % 3 == 0`` and pools with the example's kernel) and the ONNX program drops that
    guard: other sizes run and give other numbers. Re-export non-strict, decompose with the
    exporter's table recording the guards (each with the stack_trace of the node being
    decomposed), and return the line of the first guard false for another declared size."""
    import torch

    from exportlint.confirm.locate import GuardRecorder

    if not dynamic_shapes:
        return None
    ep = torch.export.export(model, args, kwargs or None, dynamic_shapes=dynamic_shapes, strict=False)
    table = _onnx_decomposition_table()
    with GuardRecorder(users) as rec:
        try:
            ep.run_decompositions(table)
        except Exception:  # noqa: BLE001 - the guards recorded so far still tell
            pass
    for r in rec.records:
        if r.violated and r.frames:
            stack = dedupe_innermost_first(r.frames)
            return Location(stack[0][0], stack[0][1], "decomposition-guard", stack)
    return None


def _session_exposing(proto: Any, vinfo: dict, names: list[str]) -> Any:
    """An onnxruntime session (CPU, one thread, no graph optimisation: every value kept as the
    exporter named it) of ``proto`` with the values ``names`` (keys of ``vinfo``) added as
    graph outputs."""
    import onnx
    import onnxruntime as ort

    m2 = onnx.ModelProto()
    m2.CopyFrom(proto)
    have = {o.name for o in m2.graph.output}
    for n in names:
        if n not in have:
            m2.graph.output.append(vinfo[n])
    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    opts.intra_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(m2.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def locate_first_diverging_value(proto: Any, model: Any, args: tuple, kwargs: dict, dynamic_shapes: Any,
                                 example: tuple, users: UserFiles, same: Any) -> Optional[Location]:
    """Dynamo ONNX values named after FX nodes: the first FX node whose ONNX value differs
    from the program's own on ``example`` (args, kwargs), located by its ``stack_trace``.
    ``same(expected_list, got_list) -> bool``."""
    import onnx
    import torch
    from torch.utils import _pytree

    ep = torch.export.export(model, args, kwargs or None, dynamic_shapes=dynamic_shapes, strict=False)
    try:  # the ONNX values are named after the nodes of the program decomposed for ONNX
        ep = ep.run_decompositions(_onnx_decomposition_table())
    except Exception:  # noqa: BLE001 - the plain program's names match fewer values
        pass
    gm = ep.module()
    seen: dict[str, tuple[Any, str]] = {}
    order: list[str] = []

    class _Rec(torch.fx.Interpreter):
        def call_module(self, target, args, kwargs):  # type: ignore[no-untyped-def]
            if target == "_guards_fn":  # the input guards the ONNX program dropped: compare anyway
                return None
            return super().call_module(target, args, kwargs)

        def run_node(self, n):  # type: ignore[no-untyped-def]
            out = super().run_node(n)
            if n.op == "call_function" and isinstance(out, torch.Tensor):
                seen[n.name] = (out.detach().clone(), n.meta.get("stack_trace") or "")
                order.append(n.name)
            return out

    a, k = example
    flat = [t for t in _pytree.tree_leaves((a, k))]
    with torch.no_grad():
        _Rec(gm).run(*flat)
    try:
        inferred = onnx.shape_inference.infer_shapes(proto)
    except Exception:  # noqa: BLE001
        inferred = proto
    vinfo = {v.name: v for v in inferred.graph.value_info}
    names = [n for n in order if n in vinfo]
    if not names:
        return None
    sess = _session_exposing(proto, vinfo, names)
    inputs = [i.name for i in sess.get_inputs()]
    tensors = [t for t in flat if isinstance(t, torch.Tensor)]
    if len(inputs) != len(tensors):
        return None
    feed = {n: t.detach().cpu().numpy() for n, t in zip(inputs, tensors)}
    outs = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feed)))
    for n in names:
        if n not in outs:
            continue
        ref, st = seen[n]
        if not same([ref], [torch.as_tensor(outs[n])]):
            frames = dedupe_innermost_first(frames_from_text(st, users))
            if frames:
                return Location(frames[0][0], frames[0][1], "first-diverging-onnx-value", frames)
            return None
    return None


def locate_first_diverging_onnx_line(proto: Any, model: Any, example: tuple, feed_names: Optional[list],
                                     users: UserFiles, same: Any) -> Optional[Location]:
    """Any ONNX exporter: the first user line (in eager order) whose last ONNX value differs
    from the last tensor eager made on that line. Each node's line comes from its source
    (dynamo metadata; legacy doc strings of a verbose export); values of other shapes are not
    compared (a line's last op may differ between eager and the graph), only values that
    disagree. ``feed_names``: the ONNX input names for the example's tensor leaves, in order."""
    import copy

    import onnx
    import torch
    from torch.utils import _pytree

    from exportlint.confirm.diverge_locate import eager_lines

    a, k = example
    order, eager = eager_lines(model, copy.deepcopy(a), copy.deepcopy(k), users)
    if not order:
        return None
    try:
        inferred = onnx.shape_inference.infer_shapes(proto)
    except Exception:  # noqa: BLE001
        inferred = proto
    vinfo = {v.name: v for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
    by_line: dict[tuple[str, int], str] = {}
    for node in proto.graph.node:  # the top-level graph, in topological order
        frames = node_frames(node, users)
        outs = [o for o in node.output if o]
        # the last output, like the last tensor eager made (chunk/split: the last piece)
        if frames and outs and outs[-1] in vinfo:
            by_line[frames[0]] = outs[-1]
    if not by_line:
        return None
    sess = _session_exposing(proto, vinfo, sorted(set(by_line.values())))
    inputs = [i.name for i in sess.get_inputs()]
    tensors = [t for t in _pytree.tree_leaves((a, k)) if isinstance(t, torch.Tensor)]
    if feed_names and len(feed_names) == len(tensors) and set(inputs) <= set(feed_names):
        by = dict(zip(feed_names, tensors))
        feed = {n: by[n].detach().cpu().numpy() for n in inputs}
    elif len(inputs) == len(tensors):
        feed = {n: t.detach().cpu().numpy() for n, t in zip(inputs, tensors)}
    else:
        return None
    outs = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feed)))
    for where in order:
        name = by_line.get(where)
        if name is None or name not in outs:
            continue
        e = eager[where]
        g = torch.as_tensor(outs[name])
        if tuple(e.shape) != tuple(g.shape):
            continue
        if not same([e], [g]):
            return Location(where[0], where[1], "first-diverging-onnx-line", [where])
    return None
