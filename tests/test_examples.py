"""The bundled examples/ are what the README's first command lints: real-looking model and
export-script files whose problems span every rule family."""

from pathlib import Path

from exportlint.config import Config
from exportlint.engine import lint_source

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _codes(name: str) -> set[str]:
    p = EXAMPLES / name
    return {f.code for f in lint_source(p.read_text(), str(p), Config())}


def test_every_family_is_shown_on_the_examples():
    codes = set().union(*(_codes(p.name) for p in EXAMPLES.glob("*.py")))
    families = {c[:4] for c in codes}
    assert {"EXL1", "EXL2", "EXL3", "EXL4", "EXL5"} <= families, sorted(codes)
    assert "EXL001" not in codes


def test_flow_warp_export_script_problems():
    # DataParallel exported with the legacy exporter, grid_sample below opset 16, .cuda() in
    # forward, an op neither ONNX exporter translates, a shape branch on a dynamic dimension
    assert {"EXL502", "EXL402", "EXL301", "EXL401", "EXL111", "EXL302"} <= _codes("flow_warp.py")


def test_ctc_tagger_problems():
    assert {"EXL101", "EXL102", "EXL103", "EXL201", "EXL202", "EXL203", "EXL205", "EXL302",
            "EXL303"} <= _codes("ctc_tagger.py")


def test_export_script_hygiene():
    assert {"EXL501", "EXL503", "EXL504", "EXL505"} <= _codes("export_detector.py")
