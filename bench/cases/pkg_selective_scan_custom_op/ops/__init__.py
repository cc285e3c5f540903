from .selective_scan import selective_scan_fwd

__all__ = ["selective_scan_fwd"]
