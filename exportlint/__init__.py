"""exportlint: will this PyTorch model export? Static checks plus an optional trial export."""

__version__ = "0.1.0"

from exportlint.findings import EXPORTERS, Finding, Fix, Severity  # noqa: E402

__all__ = ["EXPORTERS", "Finding", "Fix", "Severity", "__version__"]
