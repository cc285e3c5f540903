def check_image(x, channels):
    if x.dim() != 4:
        raise ValueError(f"expected a 4-D image batch, got {x.dim()}-D")
    if x.shape[1] != channels:
        raise ValueError(f"expected {channels} channels, got {x.shape[1]}")
