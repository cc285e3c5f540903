"""Rebuilt from https://github.com/pytorch/pytorch/issues/123741 "impl_abstract should error out
if someone passes a function to `m.def(`" (the thread's pattern: `m = torch.library.Library(
"mylib", "FRAGMENT")`, `m.define("foo(Tensor x) -> Tensor")`, then
`@torch.library.register_fake("mylib::foo")`)

`kernels/ops.py` defines the operator in a `Library` fragment with a CPU kernel, and
`kernels/fake.py` registers its fake kernel; `kernels/__init__.py` imports both. The block
(`block.py`) calls it through `torch.ops`.
"""
import torch

from . import kernels  # noqa: F401  (registers the operator and its fake kernel)
from .block import SinBlock

model = SinBlock()
example_args = (torch.randn(2, 8),)
