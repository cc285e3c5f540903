import torch.nn as nn

from .mask_decoder import MaskDecoder


class SamOnnxModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.mask_decoder = MaskDecoder()

    def forward(self, image_embeddings, image_pe, point_embeddings):
        masks, iou_token = self.mask_decoder.predict_masks(image_embeddings, image_pe, point_embeddings)
        return masks, iou_token
