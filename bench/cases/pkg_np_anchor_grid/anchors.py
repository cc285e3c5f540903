import numpy as np
import torch


def anchor_centres(image, stride):
    image_shape = np.array(image.shape[2:])
    grid = (image_shape + stride - 1) // stride
    ys, xs = np.meshgrid(np.arange(grid[0]), np.arange(grid[1]), indexing="ij")
    centres = np.stack([(xs + 0.5) * stride, (ys + 0.5) * stride], axis=-1).reshape(-1, 2)
    return torch.from_numpy(centres.astype(np.float32))
