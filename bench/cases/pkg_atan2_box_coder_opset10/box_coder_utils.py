import torch


class ResidualCoder:
    def __init__(self, code_size=8):
        self.code_size = code_size

    def decode_torch(self, box_encodings, anchors):
        xa, ya, za, dxa, dya, dza, ra = torch.split(anchors, 1, dim=-1)
        xt, yt, zt, dxt, dyt, dzt, cost, sint = torch.split(box_encodings, 1, dim=-1)
        diagonal = torch.sqrt(dxa ** 2 + dya ** 2)
        xg = xt * diagonal + xa
        yg = yt * diagonal + ya
        zg = zt * dza + za
        dxg = torch.exp(dxt) * dxa
        dyg = torch.exp(dyt) * dya
        dzg = torch.exp(dzt) * dza
        rg = torch.atan2(sint + torch.sin(ra), cost + torch.cos(ra))
        return torch.cat([xg, yg, zg, dxg, dyg, dzg, rg], dim=-1)
