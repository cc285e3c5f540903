from .crop import crop_to_length

__all__ = ["crop_to_length"]
