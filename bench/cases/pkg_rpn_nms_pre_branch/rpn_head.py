import torch


def get_bboxes_single(cls_scores, bbox_preds, nms_pre):
    mlvl_scores, mlvl_proposals = [], []
    for cls_score, bbox_pred in zip(cls_scores, bbox_preds):
        scores = cls_score.permute(1, 2, 0).reshape(-1).sigmoid()
        bbox_pred = bbox_pred.permute(1, 2, 0).reshape(-1, 4)
        if nms_pre > 0 and scores.shape[0] > nms_pre:
            ranked_scores, rank_inds = scores.sort(descending=True)
            topk_inds = rank_inds[:nms_pre]
            scores = ranked_scores[:nms_pre]
            bbox_pred = bbox_pred[topk_inds, :]
        mlvl_scores.append(scores)
        mlvl_proposals.append(bbox_pred)
    return torch.cat(mlvl_scores), torch.cat(mlvl_proposals)
