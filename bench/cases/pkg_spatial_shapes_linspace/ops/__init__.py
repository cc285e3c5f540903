from .reference_points import get_reference_points

__all__ = ["get_reference_points"]
