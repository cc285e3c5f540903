from .grids import create_grids

__all__ = ["create_grids"]
