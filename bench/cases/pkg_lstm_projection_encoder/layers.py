import torch.nn as nn


def make_projected_lstm(d_model, hidden, proj, num_layers=1):
    return nn.LSTM(
        input_size=d_model,
        hidden_size=hidden,
        num_layers=num_layers,
        proj_size=proj,
        batch_first=True,
    )
