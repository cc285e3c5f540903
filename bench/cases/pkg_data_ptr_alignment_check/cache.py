def aligned(x, alignment=16):
    """Return x, copied when its storage is not aligned (as fused kernels require)."""
    if x.data_ptr() % alignment != 0:
        return x.clone()
    return x
