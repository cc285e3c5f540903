def add_global_offset(x):
    a = x.numpy()
    return x + x.numpy().sum() + a.shape[0]
