"""Optical-flow refinement head, exported for an ONNX runtime pinned to opset 15.

It works in eager on one GPU; the export below is what goes wrong, in several ways.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def coords_grid(batch: int, height: int, width: int) -> torch.Tensor:
    ys, xs = torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij")
    grid = torch.stack((xs, ys), dim=0).float()
    return grid[None].repeat(batch, 1, 1, 1)


class FlowWarp(nn.Module):
    """Warps a feature map by a flow field and refines the flow with a small conv stack."""

    def __init__(self, channels: int = 32):
        super().__init__()
        self.refine = nn.Sequential(
            nn.Conv2d(2 * channels + 2, 64, 3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(64, 2, 3, padding=1),
        )

    def warp(self, feat: torch.Tensor, flow: torch.Tensor) -> torch.Tensor:
        b, _, h, w = feat.shape
        coords = coords_grid(b, h, w).cuda() + flow
        # normalise to [-1, 1] for grid_sample
        gx = 2.0 * coords[:, 0] / max(w - 1, 1) - 1.0
        gy = 2.0 * coords[:, 1] / max(h - 1, 1) - 1.0
        grid = torch.stack((gx, gy), dim=-1)
        return F.grid_sample(feat, grid, mode="bilinear", align_corners=True)

    def forward(self, feat1: torch.Tensor, feat2: torch.Tensor, flow: torch.Tensor) -> torch.Tensor:
        if flow.shape[-1] != feat1.shape[-1]:
            flow = F.interpolate(flow, size=feat1.shape[-2:], mode="bilinear", align_corners=True)
        warped = self.warp(feat2, flow)
        delta = self.refine(torch.cat((feat1, warped, flow), dim=1))
        # running max of the flow magnitude, "cheap" to compute here
        peak, _ = torch.cummax(delta.abs().flatten(1), dim=1)
        return flow + delta / (1.0 + peak[:, -1:, None, None])


if __name__ == "__main__":
    model = nn.DataParallel(FlowWarp()).eval()
    args = (torch.randn(1, 32, 24, 32), torch.randn(1, 32, 24, 32), torch.randn(1, 2, 24, 32))
    torch.onnx.export(
        model,
        args,
        "flow_warp.onnx",
        dynamo=False,
        opset_version=15,
        input_names=["feat1", "feat2", "flow"],
        dynamic_axes={"feat1": {2: "h", 3: "w"}, "feat2": {2: "h", 3: "w"}, "flow": {2: "h", 3: "w"}},
    )
