def postprocess(logits, boxes, threshold):
    prob = logits.softmax(-1)
    scores, labels = prob[..., :-1].max(-1)
    results = []
    for s, l, b in zip(scores, labels, boxes):
        keep = s > threshold
        results.append({"scores": s[keep], "labels": l[keep], "boxes": b[keep]})
    return results
