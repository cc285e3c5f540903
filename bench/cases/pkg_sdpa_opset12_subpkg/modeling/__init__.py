from .layer import EncoderLayer

__all__ = ["EncoderLayer"]
