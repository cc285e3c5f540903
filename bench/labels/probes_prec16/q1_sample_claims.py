"""Claims of sample Q (prec16, seed 1610, main@2f451e5) that are not obvious from the code. torch 2.13.0+cpu."""
import math, sys, torch, torch.nn as nn, torch.nn.functional as F
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class ConvOnly(nn.Module):
    """easyocr CRAFT (Q 2): convs only, then `quantize_dynamic(net, dtype=torch.qint8, inplace=True)`."""
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 4, 3)
        self.b = nn.BatchNorm2d(4)

    def forward(self, x):
        return self.b(self.c(x)).relu()


def quantized_conv_only():
    m = ConvOnly().eval()
    torch.quantization.quantize_dynamic(m, dtype=torch.qint8, inplace=True)
    return m


class WithLinear(ConvOnly):
    """control: a Linear in the model, which quantize_dynamic does replace."""
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 2)

    def forward(self, x):
        return self.fc(super().forward(x))


def quantized_with_linear():
    m = WithLinear().eval()
    torch.quantization.quantize_dynamic(m, dtype=torch.qint8, inplace=True)
    return m


class PatchEmbed(nn.Module):
    """doctr PatchEmbedding.interpolate_pos_encoding (Q 13): scale_factor from H, W of x.shape."""
    def __init__(self):
        super().__init__()
        self.patch_size = (4, 4)
        self.positions = nn.Parameter(torch.randn(1, 4 * 4 + 1, 8))
        self.projection = nn.Conv2d(3, 8, kernel_size=4, stride=4)

    def interp(self, embeddings, height, width):
        num_patches = embeddings.shape[1] - 1
        num_positions = self.positions.shape[1] - 1
        if num_patches == num_positions and height == width:
            return self.positions
        class_pos_embed = self.positions[:, 0]
        patch_pos_embed = self.positions[:, 1:]
        dim = embeddings.shape[-1]
        h0 = float(height // self.patch_size[0])
        w0 = float(width // self.patch_size[1])
        h0, w0 = h0 + 0.1, w0 + 0.1
        patch_pos_embed = patch_pos_embed.reshape(1, int(math.sqrt(num_positions)), int(math.sqrt(num_positions)), dim)
        patch_pos_embed = patch_pos_embed.permute(0, 3, 1, 2)
        patch_pos_embed = F.interpolate(patch_pos_embed, scale_factor=(h0 / math.sqrt(num_positions), w0 / math.sqrt(num_positions)),
                                        mode="bilinear", align_corners=False, recompute_scale_factor=True)
        patch_pos_embed = patch_pos_embed.permute(0, 2, 3, 1).view(1, -1, dim)
        return torch.cat((class_pos_embed.unsqueeze(0), patch_pos_embed), dim=1)

    def forward(self, x):
        B, C, H, W = x.shape
        patches = self.projection(x).flatten(2).transpose(1, 2)
        emb = torch.cat([torch.zeros(B, 1, 8), patches], dim=1)
        return emb + self.interp(emb, H, W)


def to_same(model, x, device, dtype):
    return model.to(device=device, dtype=dtype), x.to(device=device, dtype=dtype)


class Rebind(nn.Module):
    """doctr RecognitionPredictor (Q 16): `self.model, x = set_device_and_dtype(self.model, x, ...)` in forward."""
    def __init__(self):
        super().__init__()
        self.model = nn.Linear(4, 4)

    def forward(self, x):
        p = next(self.model.parameters())
        self.model, x = to_same(self.model, x, p.device, p.dtype)
        return self.model(x)


class BufFloat(nn.Module):
    """spikingjelly SpikeZIPQuantizer (Q 22, 23): `float(self.neg_min)` of constant buffers set in __init__."""
    def __init__(self):
        super().__init__()
        self.s = nn.Parameter(torch.tensor(0.25))
        self.register_buffer("pos_max", torch.tensor(3.0))
        self.register_buffer("neg_min", torch.tensor(-4.0))

    def forward(self, x):
        q = torch.floor(x / self.s + 0.5)
        q = torch.clamp(q, min=float(self.neg_min), max=float(self.pos_max))
        return q * self.s


CASES = {
    "q2": lambda: run_all("q2 quantize_dynamic of a conv-only model", quantized_conv_only(), (torch.randn(1, 3, 8, 8),), (torch.randn(1, 3, 8, 8),)),
    "q2c": lambda: run_all("q2c control: quantize_dynamic of a model with a Linear", quantized_with_linear(), (torch.randn(1, 3, 8, 8),), (torch.randn(1, 3, 8, 8),)),
    "q13": lambda: run_all("q13 doctr interpolate scale_factor from H, W (non-square)", PatchEmbed(), (torch.randn(1, 3, 16, 32),), (torch.randn(1, 3, 16, 32),)),
    "q16": lambda: run_all("q16 self.model re-bound to itself (.to its own device) in forward", Rebind(), (torch.randn(2, 4),), (torch.randn(2, 4),)),
    "q22": lambda: run_all("q22 float() of constant buffers", BufFloat(), (torch.randn(2, 4) * 3,), (torch.randn(2, 4) * 3,)),
}

if __name__ == "__main__":
    if len(sys.argv) > 2:  # one exporter of one case, in its own process
        import harness
        orig = harness.run_all
        globals()["run_all"] = lambda *a, **k: orig(*a, exporters=(sys.argv[2],), **k)
        CASES[sys.argv[1]]()
    else:
        import subprocess
        for case in (sys.argv[1:] or CASES):
            for ex in ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"):
                r = subprocess.run([sys.executable, __file__, case, ex], capture_output=True, text=True, timeout=300)
                out = r.stdout.strip()
                print(out if out else f"{case} | {ex}: FAIL process exit {r.returncode} (no result printed)", flush=True)
