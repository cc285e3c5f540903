"""engine17: a block class handed to a builder in another file (issue #9, cross-file module types).

timm's resnest and sknet define their block in their own file and hand the class to resnet.py's
``ResNet`` (``dict(block=ResNestBottleneck, avg_down=True, ...)`` forwarded as ``**kwargs``), whose
``make_blocks`` builds it as ``block_fn(inplanes, planes, stride, downsample, ...)`` with
``downsample = downsample_avg(...)`` (a ceil-mode ``AvgPool2d``) when ``avg_down``. The block's
``self.downsample(x)`` then may pool in ceil mode: EXL131 (torch.export fails on dynamic H/W,
bench/labels/probes_zoo14/probe_ctor_arg_pool.jsonl) is reported at the block's own line, naming
the builder's file and line. ``semantics.ctor_args.may_hold_across``.
"""

from __future__ import annotations

import textwrap

from conftest import code_hits, lint_package, line_of

BUILDER = """
import torch
from torch import nn


def downsample_avg(in_channels, out_channels, stride=1):
    pool = nn.AvgPool2d(2, stride, ceil_mode=True, count_include_pad=False)  # POOL
    return nn.Sequential(*[pool, nn.Conv2d(in_channels, out_channels, 1)])


def downsample_conv(in_channels, out_channels, stride=1):
    return nn.Sequential(nn.Conv2d(in_channels, out_channels, 1, stride=stride))


def make_blocks(block_fns, channels, avg_down=False):
    stages = []
    inplanes = 8
    for block_fn, planes in zip(block_fns, channels):
        downsample = None
        if inplanes != planes:
            kw = dict(in_channels=inplanes, out_channels=planes, stride=2)
            downsample = downsample_avg(**kw) if avg_down else downsample_conv(**kw)
        stages.append(block_fn(inplanes, planes, 2, downsample, drop_path=None))
        inplanes = planes
    return nn.Sequential(*stages)


class Net(nn.Module):
    def __init__(self, block, avg_down=False):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, 2, 1)
        self.stages = make_blocks([block, block], [16, 32], avg_down=avg_down)

    def forward(self, x):
        return self.stages(self.stem(x))


def build(cls, **kwargs):
    return cls(**kwargs)
"""

BLOCK = """
from torch import nn

from .builder import Net, build


class SplitBlock(nn.Module):
    def __init__(self, inplanes, planes, stride=1, downsample=None, drop_path=None):
        super().__init__()
        self.conv = nn.Conv2d(inplanes, planes, 3, stride, 1)
        self.downsample = downsample

    def forward(self, x):
        shortcut = x
        x = self.conv(x)
        if self.downsample is not None:
            shortcut = self.downsample(shortcut)  # DOWN
        return x + shortcut


def split_net():
    model_args = dict(block=SplitBlock, avg_down=True)
    return build(Net, **model_args)
"""


def _pkg(tmp_path, builder=BUILDER, block=BLOCK, extra=None):
    d = tmp_path / "zoo"
    d.mkdir()
    (d / "__init__.py").write_text("")
    files = {"builder.py": builder, "split.py": block, **(extra or {})}
    for name, src in files.items():
        (d / name).write_text(textwrap.dedent(src))
    paths = [str(d / "__init__.py")] + [str(d / n) for n in files]
    return code_hits(lint_package(paths), "EXL131"), lint_package(paths)


def test_block_class_handed_to_another_files_builder_is_followed(tmp_path):
    hits, findings = _pkg(tmp_path)
    assert ("split.py", line_of(BLOCK, "# DOWN"), "warning", ("export-strict", "export-nonstrict")) in hits
    (f,) = [f for f in findings if f.code == "EXL131" and f.path.endswith("split.py")]
    # the builder's file and the pool's own line are named
    assert f"builder.py:{line_of(BUILDER, '# POOL')}" in f.message and "SplitBlock" in f.message


def test_block_passed_positionally_to_an_imported_builder_is_followed(tmp_path):
    block = BLOCK.replace("    model_args = dict(block=SplitBlock, avg_down=True)\n    return build(Net, **model_args)",
                          "    return Net(SplitBlock, avg_down=True)")
    hits, _ = _pkg(tmp_path, block=block)
    assert ("split.py", line_of(block, "# DOWN"), "warning", ("export-strict", "export-nonstrict")) in hits


def test_harmless_shortcut_from_the_builder_stays_silent(tmp_path):
    # control: the builder only ever passes a strided 1x1 conv (exports, probe_ctor_arg_pool.jsonl)
    builder = BUILDER.replace("downsample_avg(**kw) if avg_down else downsample_conv(**kw)", "downsample_conv(**kw)")
    hits, _ = _pkg(tmp_path, builder=builder)
    assert not [h for h in hits if h[0] == "split.py"]


def test_class_handed_under_a_keyword_no_builder_takes_stays_silent(tmp_path):
    # control: `layer=SplitBlock` names no parameter of Net or build: no builder is known to get it
    block = BLOCK.replace("dict(block=SplitBlock, avg_down=True)", "dict(layer=SplitBlock, avg_down=True)")
    hits, _ = _pkg(tmp_path, block=block)
    assert not [h for h in hits if h[0] == "split.py"]


def test_class_never_handed_around_stays_silent(tmp_path):
    # control: the block is only built by name in its own file (with nothing passed for downsample)
    block = BLOCK.replace("    model_args = dict(block=SplitBlock, avg_down=True)\n    return build(Net, **model_args)",
                          "    return SplitBlock(8, 8)")
    hits, _ = _pkg(tmp_path, block=block)
    assert not [h for h in hits if h[0] == "split.py"]
