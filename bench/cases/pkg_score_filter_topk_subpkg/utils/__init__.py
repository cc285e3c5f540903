from .misc import filter_scores_and_topk

__all__ = ["filter_scores_and_topk"]
