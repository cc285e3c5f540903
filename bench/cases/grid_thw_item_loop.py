"""Rebuilt from https://github.com/pytorch/pytorch/issues/158786
"Torch export for Qwen2VL Failing"

Qwen2-VL's vision rotary position ids loop over the image grid sizes `grid_thw` (a tensor input),
read each size with `.item()` and build `torch.arange(h).unsqueeze(1).expand(-1, w)` reshaped by
the spatial merge size: torch.export stops with a data-dependent error there.
"""
import torch


class VisionRotaryPosIds(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.spatial_merge_size = 2

    def forward(self, grid_thw):
        pos_ids = []
        for t, h, w in grid_thw:
            t = t.item()
            h = h.item()
            w = w.item()
            hpos_ids = torch.arange(h).unsqueeze(1).expand(-1, w)
            hpos_ids = hpos_ids.reshape(h // self.spatial_merge_size, self.spatial_merge_size,
                                        w // self.spatial_merge_size, self.spatial_merge_size)
            hpos_ids = hpos_ids.permute(0, 2, 1, 3).flatten()
            wpos_ids = torch.arange(w).unsqueeze(0).expand(h, -1)
            wpos_ids = wpos_ids.reshape(h // self.spatial_merge_size, self.spatial_merge_size,
                                        w // self.spatial_merge_size, self.spatial_merge_size)
            wpos_ids = wpos_ids.permute(0, 2, 1, 3).flatten()
            pos_ids.append(torch.stack([hpos_ids, wpos_ids], dim=-1).repeat(t, 1))
        return torch.cat(pos_ids, dim=0)


example_args = (torch.tensor([[1, 4, 6], [2, 2, 4]]),)
