import torch


def is_exporting():
    return torch.onnx.is_in_onnx_export() or torch.jit.is_tracing()
