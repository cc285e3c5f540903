from .layers import WeightedFeatureFusion

__all__ = ["WeightedFeatureFusion"]
