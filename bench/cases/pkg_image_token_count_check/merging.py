def merge_image_features(inputs_embeds, image_features, special_image_mask):
    selected = inputs_embeds[special_image_mask]
    if selected.numel() != image_features.numel():
        raise ValueError("Number of images does not match number of special image tokens")
    return inputs_embeds.masked_scatter(special_image_mask, image_features)
