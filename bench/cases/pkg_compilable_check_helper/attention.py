import torch.nn as nn

from .utils import torch_compilable_check


class MultiscaleDeformableAttention(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.value_proj = nn.Linear(dim, dim)

    def forward(self, hidden_states, spatial_shapes):
        batch_size, sequence_length, _ = hidden_states.shape
        torch_compilable_check(
            (spatial_shapes[:, 0] * spatial_shapes[:, 1]).sum() == sequence_length,
            "Make sure to align the spatial shapes with the sequence length of the encoder hidden states",
        )
        return self.value_proj(hidden_states)
