"""Export the detector of ``detector.py`` to ONNX -- an export script as it is often
found in repositories that started on torch 1.x.

Lint it with ``exportlint examples/export_detector.py``: the model is exported in
training mode, the dynamic axis is declared under a name that is not an input, and the
call still passes keywords that torch 2.x removed, so it stops with a TypeError before
anything is written.

    python examples/export_detector.py [--weights detector.pt] [--output DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from detector import Detector  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", help="state_dict saved by the training script")
    parser.add_argument("--output", default=tempfile.mkdtemp(prefix="detector-onnx-"))
    parser.add_argument("--size", type=int, default=128)
    args = parser.parse_args(argv)

    model = Detector(num_classes=3)
    if args.weights:
        model.load_state_dict(torch.load(args.weights, map_location="cpu"))

    dummy = torch.rand(1, 3, args.size, args.size)
    path = os.path.join(args.output, "detector.onnx")
    torch.onnx.export(
        model,
        dummy,
        path,
        opset_version=11,
        input_names=["images"],
        output_names=["boxes", "scores", "labels"],
        dynamic_axes={"image": {0: "batch"}, "boxes": {0: "batch"}, "scores": {0: "batch"}},
        example_outputs=model(dummy),
        enable_onnx_checker=True,
    )
    print("wrote", path)


if __name__ == "__main__":
    main()
