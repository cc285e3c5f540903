from .boxes import batched_nms, remove_small_boxes

__all__ = ["batched_nms", "remove_small_boxes"]
