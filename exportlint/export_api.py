"""The keyword arguments each export API of the installed torch accepts, as data.

``python -m exportlint.export_api`` (needs torch) reads the signatures of the export entry
points and the deprecation notes of their docstrings, and writes ``rules/export_api.json``;
the static rule EXL505 reads that file, never torch. Known removed keywords are recorded with
the release that removed them so the message can say so.
"""

from __future__ import annotations

import json
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

APIS = ("torch.onnx.export", "torch.export.export", "torch.jit.trace", "torch.export.draft_export")

#: keywords that older torch releases accepted (from their documentation); reported by name
#: when the installed signature lacks them
HISTORICAL = {
    "torch.onnx.export": {
        "example_outputs": "removed in torch 1.12",
        "enable_onnx_checker": "removed in torch 1.12",
        "use_external_data_format": "removed in torch 2.0 (use external_data)",
        "strip_doc_string": "removed in torch 1.12",
        "_retain_param_name": "removed in torch 1.12",
        "aten": "removed in torch 1.12 (was operator_export_type=ONNX_ATEN)",
        "export_raw_ir": "removed in torch 1.12",
        "_params_dict": "removed",
        "fallback": "removed in torch 2.6",
        "export_type": "removed",
        "keep_initializers_as_inputs_": "removed",
    },
    "torch.jit.trace": {"_force_outplace": "private"},
}


def generate(out: Path) -> dict[str, Any]:
    import inspect

    import torch

    data: dict[str, Any] = {"torch": torch.__version__.split("+")[0], "apis": {}}
    for api in APIS:
        obj: Any = torch
        for part in api.split(".")[1:]:
            obj = getattr(obj, part)
        sig = inspect.signature(obj)
        params = [p for p in sig.parameters if p not in ("self",)]
        doc = inspect.getdoc(obj) or ""
        deprecated = set(re.findall(r"``(\w+)`` is now deprecated", doc))
        deprecated |= set(re.findall(r"^\s*(\w+): Deprecated option", doc, re.M))
        # documented in the parameter's block as "Deprecated: Prefer ... when dynamo=True"
        dynamo_deprecated, current = [], None
        for line in doc.splitlines():
            m = re.match(r"^\s{4}(\w+):", line)
            if m:
                current = m.group(1)
            elif current and "Deprecated: Prefer" in line and current not in dynamo_deprecated:
                dynamo_deprecated.append(current)
        dynamo_deprecated.sort()
        deprecated = sorted(deprecated)
        removed = {k: v for k, v in HISTORICAL.get(api, {}).items() if k not in params}
        data["apis"][api] = {"params": params, "deprecated": deprecated, "removed": removed,
                             "dynamo_deprecated": dynamo_deprecated}
    import torch.onnx._constants as oc
    from torch.onnx._internal.exporter import _constants as dc

    data["opsets"] = {
        # [lowest, highest, default] the exporter produces natively
        "onnx-legacy": [oc.ONNX_MIN_OPSET, oc.ONNX_TORCHSCRIPT_EXPORTER_MAX_OPSET, oc.ONNX_DEFAULT_OPSET],
        "onnx-dynamo": [dc.TORCHLIB_OPSET, oc.ONNX_MAX_OPSET, oc.ONNX_DEFAULT_OPSET],
    }
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return data


@lru_cache(maxsize=1)
def load() -> Optional[dict[str, Any]]:
    from exportlint.ruledocs import rules_dir

    d = rules_dir()
    if d is None or not (d / "export_api.json").is_file():
        return None
    return json.loads((d / "export_api.json").read_text(encoding="utf-8"))


if __name__ == "__main__":  # pragma: no cover
    from exportlint.ruledocs import rules_dir

    target = Path(sys.argv[1]) if len(sys.argv) > 1 else (rules_dir() or Path("rules")) / "export_api.json"
    d = generate(target)
    print(f"wrote {target} for torch {d['torch']}")
