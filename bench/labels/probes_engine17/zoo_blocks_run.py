"""engine17: timm models whose block class is handed to resnet.py's ResNet (resnest14d, skresnet18,
skresnet50d, res2net50d), measured with bench/zoo_worker.py's machinery (tiny input, H/W
Dim(min=64, max=1024)). Run with a venv that has timm, torchvision and Pillow:
python bench/labels/probes_engine17/zoo_blocks_run.py timm/resnest14d OUT.json --exporters export-strict export-nonstrict
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import zoo_worker as zw  # noqa: E402

def _reg(name):
    def fn():
        return zw._timm(name)
    fn.__name__ = "m_timm__" + name
    setattr(zw, fn.__name__, fn)
    zw.model("timm")(fn)

for n in ("resnest14d", "skresnet18", "skresnet50d", "res2net50d"):
    _reg(n)
sys.exit(zw.main())
