import torch.nn as nn
import torch.utils.checkpoint


class Layer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.norm = nn.LayerNorm(config.hidden_size)

    def forward(self, h):
        return self.norm(h + self.dense(h).relu())


class Encoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.layer = nn.ModuleList([Layer(config) for _ in range(config.num_layers)])

    def forward(self, hidden_states):
        for layer_module in self.layer:
            if getattr(self.config, "gradient_checkpointing", False):
                hidden_states = torch.utils.checkpoint.checkpoint(layer_module, hidden_states, use_reentrant=False)
            else:
                hidden_states = layer_module(hidden_states)
        return hidden_states
