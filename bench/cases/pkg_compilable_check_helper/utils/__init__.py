from .generic import torch_compilable_check

__all__ = ["torch_compilable_check"]
