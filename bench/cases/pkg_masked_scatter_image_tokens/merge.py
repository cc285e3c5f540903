def merge_image_features(input_ids, inputs_embeds, image_features, image_token_id):
    special_image_mask = (input_ids == image_token_id).unsqueeze(-1)
    special_image_mask = special_image_mask.expand_as(inputs_embeds)
    image_features = image_features.to(inputs_embeds.device, inputs_embeds.dtype)
    return inputs_embeds.masked_scatter(special_image_mask, image_features)
