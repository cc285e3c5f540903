from . import fake, ops  # noqa: F401
