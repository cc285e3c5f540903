import torch


def encode_label_map(label_map, label_nc):
    size = label_map.size()
    one_hot_size = (size[0], label_nc, size[2], size[3])
    input_label = torch.FloatTensor(torch.Size(one_hot_size)).zero_()
    return input_label.scatter_(1, label_map.long(), 1.0)
