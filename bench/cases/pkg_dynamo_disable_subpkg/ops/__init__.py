from .decode import cumulative_offsets

__all__ = ["cumulative_offsets"]
