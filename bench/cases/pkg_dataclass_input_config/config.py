from dataclasses import dataclass


@dataclass
class ScaleConfig:
    offset: int
    repeats: int
