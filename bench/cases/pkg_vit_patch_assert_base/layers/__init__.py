from .patch_embed import PatchEmbedBase

__all__ = ["PatchEmbedBase"]
