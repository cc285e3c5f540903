"""The line that uses a TorchScript object the exporter cannot take.

Measured with torch 2.13 on eager-mode quantized models (``quantize_dynamic`` Linear,
torchvision's quantized MobileNetV3): non-strict ``torch.export`` and the dynamo ONNX exporter
fail before tracing, while fakifying the module's state, with ``AttributeError:
__torch__.torch.classes.quantized.LinearPackedParamsBase (...) does not have a field with name
'__obj_flatten__'`` (``torch/_export/non_strict_utils.py: _fakify_script_objects``): no frame of
the model is on the stack. Strict export fails on the same object at the line that calls the
quantized module (``UserDefinedObjectVariable(ScriptObject)``).

The object is an argument of the op that uses it (``quantized::linear_dynamic(x, packed)``):
run the model eagerly under a ``TorchDispatchMode`` and report the innermost user frame of the
first op that receives a ``torch.ScriptObject`` of the class the message names.

torch is imported inside the functions only.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from exportlint.confirm.locate import Location, UserFiles

_CLASS_RE = re.compile(r"__torch__\.torch\.classes\.[\w.]+")


def named_script_classes(message: str) -> set[str]:
    """TorchScript class names (``__torch__.torch.classes.ns.Name``) a message mentions."""
    return set(_CLASS_RE.findall(message or ""))


def _qualified(obj: Any) -> str:
    try:
        return obj._type().qualified_name()
    except Exception:  # noqa: BLE001
        return ""


def locate_script_object_use(model: Any, args: tuple, kwargs: dict, message: str,
                             users: UserFiles) -> Optional[Location]:
    """The user line of the first op called with a ScriptObject of a class ``message`` names."""
    import torch
    from torch.utils import _pytree
    from torch.utils._python_dispatch import TorchDispatchMode

    from exportlint.confirm.diverge_locate import user_line

    wanted = named_script_classes(message)
    if not wanted:
        return None
    found: list[tuple[str, int]] = []

    class _Uses(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            if not found:
                for a in _pytree.tree_leaves((args, kwargs or {})):
                    if isinstance(a, torch.ScriptObject) and _qualified(a) in wanted:
                        where = user_line(users)
                        if where is not None:
                            found.append(where)
                        break
            return func(*args, **(kwargs or {}))

    with torch.no_grad(), _Uses():
        model(*args, **kwargs)
    if not found:
        return None
    return Location(found[0][0], found[0][1], "script-object-use", [found[0]])
