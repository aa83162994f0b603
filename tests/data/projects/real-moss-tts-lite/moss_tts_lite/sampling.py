"""Operator-for-operator port of models/MOSS-TTS-v1 inference_utils."""

import torch
import torch.nn.functional as F

def apply_top_k(logits, top_k):
    v, i = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1)
    out = torch.full_like(logits, float("-inf"))
    return out.scatter_(-1, i, v)

def _top_p_remove(logits, top_p):
    """Sorted probs + the strict-`>`-shifted cutoff mask both top_p variants need."""
    sp, si = torch.sort(F.softmax(logits, dim=-1), descending=True, dim=-1)
    rm = torch.cumsum(sp, dim=-1) > top_p
    rm[..., 1:] = rm[..., :-1].clone()
    rm[..., 0] = False
    return si, rm

def apply_top_p(logits, top_p):
    """Per-row python reference (kept as the scatter path's exactness baseline)."""
    si, rm = _top_p_remove(logits, top_p)
    out = logits.clone()
    for i in range(logits.shape[0]):
        out[i, si[i][rm[i]]] = float("-inf")
    return out

def apply_top_p_optimized(logits, top_p):
    si, rm = _top_p_remove(logits, top_p)
    logits[torch.zeros_like(logits, dtype=torch.bool).scatter_(-1, si, rm)] = float("-inf")
    return logits

def apply_repetition_penalty_delay_pattern(logits, prev_tokens, penalty):
    if penalty == 1.0 or prev_tokens is None:
        return logits
    was2d = logits.dim() == 2
    lg = logits.unsqueeze(1) if was2d else logits                   # B,H,V
    pv = prev_tokens.unsqueeze(-1) if was2d else prev_tokens
    for h in range(lg.shape[1]):
        u = torch.unique(pv[..., h].reshape(-1))
        if u.numel() == 0:
            continue
        tl = lg[:, h, u]
        pos = tl > 0
        tl[pos] /= penalty
        tl[~pos] *= penalty
        lg[:, h, u] = tl
    return lg.squeeze(1) if was2d else lg

def sample_token(logits, prev_tokens=None, repetition_penalty=1.0,
                 top_p=None, top_k=None, do_sample=True):
    if prev_tokens is not None and repetition_penalty != 1.0:
        logits = apply_repetition_penalty_delay_pattern(logits, prev_tokens, repetition_penalty)
    if not do_sample:
        return torch.argmax(logits, dim=-1)
    lg = logits.view(-1, logits.size(-1))
    if top_k is not None and top_k > 0:
        lg = apply_top_k(lg, top_k)
    if top_p is not None and top_p < 1.0:
        lg = apply_top_p_optimized(lg, top_p)
    return torch.multinomial(F.softmax(lg, dim=-1), 1).view(logits.shape[:-1])

def find_last_equal_C(tensor, C):
    last = (tensor.shape[1] - 1) - (tensor == C).int().flip([1]).argmax(1)
    return torch.where(tensor[torch.arange(tensor.shape[0]), last] == C, last, -1)
