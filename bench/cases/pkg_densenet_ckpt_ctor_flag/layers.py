import torch
import torch.nn as nn
import torch.utils.checkpoint as cp


def _bn_function_factory(norm, relu, conv):
    def bn_function(*inputs):
        concated_features = torch.cat(inputs, 1)
        return conv(relu(norm(concated_features)))

    return bn_function


class DenseLayer(nn.Module):
    def __init__(self, in_ch, growth, memory_efficient=False):
        super().__init__()
        self.norm1 = nn.BatchNorm2d(in_ch)
        self.relu1 = nn.ReLU()
        self.conv1 = nn.Conv2d(in_ch, growth, 1, bias=False)
        self.memory_efficient = memory_efficient

    def forward(self, *prev_features):
        bn_function = _bn_function_factory(self.norm1, self.relu1, self.conv1)
        if self.memory_efficient:
            bottleneck = cp.checkpoint(bn_function, *prev_features, use_reentrant=False)
        else:
            bottleneck = bn_function(*prev_features)
        return bottleneck


class DenseBlock(nn.Module):
    def __init__(self, num_layers, in_ch, growth, memory_efficient=False):
        super().__init__()
        self.layers = nn.ModuleList(
            [DenseLayer(in_ch + i * growth, growth, memory_efficient=memory_efficient) for i in range(num_layers)]
        )

    def forward(self, x):
        features = [x]
        for layer in self.layers:
            features.append(layer(*features))
        return torch.cat(features, 1)
