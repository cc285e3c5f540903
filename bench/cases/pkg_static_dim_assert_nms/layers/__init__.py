from .nms import box_area_scores

__all__ = ["box_area_scores"]
