def pixel_shuffle(x, r):
    b, c = int(x.size(0)), int(x.size(1))
    h, w = int(x.size(2)), int(x.size(3))
    oc = c // (r * r)
    x = x.reshape(b, oc, r, r, h, w)
    x = x.permute(0, 1, 4, 2, 5, 3)
    return x.reshape(b, oc, h * r, w * r)
