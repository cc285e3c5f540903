import torch

m = torch.library.Library("exlcase10e", "FRAGMENT")
m.define("foo(Tensor x) -> Tensor")


def foo_impl(x):
    return x.sin()


m.impl("foo", foo_impl, "CPU")
