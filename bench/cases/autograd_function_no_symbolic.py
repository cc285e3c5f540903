"""Rebuilt from https://github.com/pytorch/pytorch/issues/65853
"Couldn't export Python operator when operator_export_type set to ONNX_FALLTHROUGH"

A custom `torch.autograd.Function` (MyRelu, with no `symbolic`) called in forward: the ONNX
export failed with "Couldn't export Python operator MyRelu".
"""
import torch


class MyRelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input


class MyModule(torch.nn.Module):
    def forward(self, input):
        return MyRelu.apply(input)


example_args = (torch.randn(5, 5),)
