import torch


def quantize_eager(model, calibration_batch):
    model.eval()
    model.qconfig = torch.ao.quantization.get_default_qconfig("x86")
    prepared = torch.ao.quantization.prepare(model)
    with torch.no_grad():
        prepared(calibration_batch)
    return torch.ao.quantization.convert(prepared)
