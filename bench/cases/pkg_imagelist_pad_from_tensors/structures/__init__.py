from .image_list import ImageList

__all__ = ["ImageList"]
