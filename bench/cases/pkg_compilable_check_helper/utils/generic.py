import torch


def torch_compilable_check(cond, msg, error_type=ValueError):
    if not callable(msg):
        def msg_callable():
            return msg
    else:
        msg_callable = msg
    if isinstance(cond, torch.Tensor):
        torch._check_tensor_all_with(error_type, cond, msg_callable)
    else:
        torch._check_with(error_type, cond, msg_callable)
