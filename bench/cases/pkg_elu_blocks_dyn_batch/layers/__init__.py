from .blocks import ConvELU

__all__ = ["ConvELU"]
