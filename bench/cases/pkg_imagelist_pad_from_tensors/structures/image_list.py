import torch
import torch.nn.functional as F


class ImageList:
    def __init__(self, tensor, image_sizes):
        self.tensor = tensor
        self.image_sizes = image_sizes

    @staticmethod
    def from_tensors(tensors, pad_value=0.0):
        image_sizes = [(im.shape[-2], im.shape[-1]) for im in tensors]
        image_sizes_tensor = [torch.as_tensor(x) for x in image_sizes]
        max_size = torch.stack(image_sizes_tensor).max(0).values
        padded = []
        for im, size in zip(tensors, image_sizes_tensor):
            padding_size = [0, max_size[-1] - size[1], 0, max_size[-2] - size[0]]
            padded.append(F.pad(im, padding_size, value=pad_value))
        return ImageList(torch.stack(padded), image_sizes)
