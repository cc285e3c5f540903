def extract_patches(x, size):
    b, c = x.shape[:2]
    p = x.unfold(2, size, size).unfold(3, size, size)
    return p.reshape(b, c, -1, size * size).permute(0, 2, 1, 3).reshape(b, -1, c * size * size)
