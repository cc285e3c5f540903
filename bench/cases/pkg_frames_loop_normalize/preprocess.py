import torch

MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)


def normalize(frame):
    return (frame - MEAN) / STD


def normalize_frames(frames):
    frames = frames.clone()
    for i in range(frames.size(1)):
        frames[:, i, :, :, :] = normalize(frames[:, i, :, :, :])
    return frames
