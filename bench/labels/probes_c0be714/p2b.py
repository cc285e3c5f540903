import numpy as np, torch, torch.nn as nn
from harness import run_all
class S(nn.Module):
    def forward(s, x):
        return x / np.sqrt(x.shape[1])
class P2(nn.Module):
    def forward(s, x):
        return x.view(np.prod(x.shape[:2]), -1)
class P3(nn.Module):
    def forward(s, x):
        n = np.prod(x.shape)
        return x.flatten() * n
class G(nn.Module):   # groupvit resize_attention_map, with sizes from another tensor's shape
    def forward(s, att, pix):
        height, width = pix.shape[2:]
        scale = (height * width // att.shape[2]) ** 0.5
        fh = int(np.round(height / scale)); fw = att.shape[2] // fh
        return att.reshape(att.shape[0], att.shape[1], fh, fw)
class L(nn.Module):   # llava-next: np.prod(image_feature.shape) compared
    def forward(s, f):
        if np.prod(f.shape) > 100:
            return f * 2
        return f
ex = ("export-strict", "export-nonstrict", "onnx-legacy")
run_all("np.sqrt-size", S(), (torch.randn(2, 16),), (torch.randn(2, 16),), exporters=ex)
run_all("np.prod-view", P2(), (torch.randn(2, 3, 4),), (torch.randn(2, 3, 4),), exporters=ex)
run_all("np.prod-mul", P3(), (torch.randn(2, 3, 4),), (torch.randn(2, 3, 4),), exporters=ex)
run_all("groupvit", G(), (torch.randn(1, 2, 16), torch.randn(1, 3, 32, 32)), exporters=ex)
run_all("np.prod-if", L(), (torch.randn(2, 3, 40),), (torch.randn(2, 3, 40),), exporters=ex)
