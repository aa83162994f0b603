"""Delay-pattern generation loop, ported line-by-line from models/MOSS-TTS-v1."""

from dataclasses import dataclass

import torch

from .model import (
    AUDIO_END_TOKEN_ID,
    AUDIO_GEN_SLOT_TOKEN_ID,
    AUDIO_PAD_CODE,
    AUDIO_START_TOKEN_ID,
    AUDIO_DELAY_SLOT_TOKEN_ID,
    IM_END_TOKEN_ID,
    N_VQ,
    PAD_TOKEN_ID,
)
from .sampling import find_last_equal_C, sample_token

_INT64_MAX = 9223372036854775807

@dataclass
class GenResult:
    text_ids: torch.Tensor
    audio_frames: torch.Tensor
    finished: bool
    n_steps: int

@torch.inference_mode()
def generate(
    model,
    prompt: dict,
    max_new_tokens=4096,
    seed=1234,
    greedy=False,
    text_temperature=1.5,
    text_top_p=1.0,
    text_top_k=50,
    audio_temperature=1.7,
    audio_top_p=0.8,
    audio_top_k=25,
    audio_repetition_penalty=1.0,
    stats: dict | None = None,
) -> GenResult:
    m_max, dev = model.max_seq_len, model.device
    if stats is not None and dev.type != "cuda":
        stats = None
    input_ids = prompt["input_ids"].to(device=dev, dtype=torch.long)
    if input_ids.dim() != 3 or input_ids.shape[0] != 1 or input_ids.shape[-1] != N_VQ + 1:
        raise ValueError(f"expected prompt input_ids [1, L, {N_VQ + 1}], got {tuple(input_ids.shape)}")
    seq_len = int(input_ids.shape[1])
    am = prompt.get("attention_mask")
    attention_mask = (torch.ones(1, seq_len, dtype=torch.bool, device=dev) if am is None
                      else am.to(dev))
    if attention_mask.dim() == 1:
        attention_mask = attention_mask.unsqueeze(0)
    if tuple(attention_mask.shape) != (1, seq_len):
        raise ValueError(f"bad attention_mask shape {tuple(attention_mask.shape)}")
    if not bool(attention_mask.all()):
        raise NotImplementedError("batch=1 generate() requires an all-True prompt mask (no left padding)")
    if seq_len + max_new_tokens > m_max:
        raise ValueError(f"prompt {seq_len} + max_new_tokens {max_new_tokens} "
                         f"exceeds KV cache {m_max}")

    if greedy:
        text_temperature = audio_temperature = 0
    text_do_sample, text_temperature = (True, text_temperature) if text_temperature > 0 else (False, 1)
    audio_do_sample, audio_temperature = (True, audio_temperature) if audio_temperature > 0 else (False, 1)
    torch.manual_seed(seed)

    def _ev(slot, e0=None):
        if stats is None:
            return None
        e = torch.cuda.Event(enable_timing=True)
        e.record()
        if e0 is None:
            return e
        (stats.__setitem__("prefill", (e0, e)) if slot == "prefill"
         else stats.setdefault("step_ms", []).append((e0, e)))

    batch_size, n_vq = 1, N_VQ
    generation_ids = input_ids.clone()
    is_stopping = torch.zeros(batch_size, dtype=torch.bool, device=dev)
    audio_lengths = torch.zeros(batch_size, dtype=torch.int64, device=dev)
    delayed_lengths = torch.full((batch_size,), _INT64_MAX, dtype=torch.int64, device=dev)

    is_continuation = (input_ids[:, -1, 0] == AUDIO_START_TOKEN_ID) | (
        input_ids[:, -1, 0] == AUDIO_GEN_SLOT_TOKEN_ID)
    start_idx = find_last_equal_C(input_ids[..., 0], AUDIO_START_TOKEN_ID)
    is_audio = is_continuation & (start_idx != -1)
    audio_lengths[is_audio] = seq_len - start_idx[is_audio]

    pre_exclude_mask0 = torch.tensor(
        [PAD_TOKEN_ID, AUDIO_GEN_SLOT_TOKEN_ID, AUDIO_DELAY_SLOT_TOKEN_ID, AUDIO_END_TOKEN_ID],
        device=dev)
    pre_exclude_mask1 = torch.ones(model.text_vocab, device=dev, dtype=torch.bool)
    pre_exclude_mask1[[AUDIO_GEN_SLOT_TOKEN_ID, AUDIO_DELAY_SLOT_TOKEN_ID]] = False

    text_steps: list = []
    audio_steps: list = []
    ar = torch.arange(n_vq, device=dev)
    current_input_ids = None

    for time_step in range(max_new_tokens):
        e0 = _ev(None)
        hs = model.prefill(input_ids) if time_step == 0 else model.step(current_input_ids)
        _ev("prefill" if time_step == 0 else "step", e0)
        h = hs.last_hidden[:, -1]

        sampling_text_mask = ~is_stopping & (delayed_lengths > n_vq)
        is_audio_eos = ~is_stopping & (delayed_lengths == n_vq)
        next_text_token = torch.full((batch_size,), PAD_TOKEN_ID, device=dev)
        next_text_token[~is_stopping & (delayed_lengths < n_vq)] = AUDIO_DELAY_SLOT_TOKEN_ID
        next_text_token[is_audio_eos] = AUDIO_END_TOKEN_ID
        is_audio[is_audio_eos] = False

        pre_audio_mask = audio_lengths.unsqueeze(1) > ar.unsqueeze(0).expand(batch_size, n_vq)
        post_audio_mask = ar.unsqueeze(0).expand(batch_size, n_vq) > delayed_lengths.unsqueeze(1) - 1
        post_audio_mask[delayed_lengths == _INT64_MAX] = True
        sampling_audio_mask = pre_audio_mask & post_audio_mask                 # [1, n_vq]
        next_audio_tokens = torch.full((batch_size, n_vq), AUDIO_PAD_CODE, device=dev)

        if bool(sampling_text_mask[0]):
            if bool(is_audio[0]) and not text_do_sample:
                two = model.text_logits_2way(h) / text_temperature
                if time_step == 0:
                    two[1] = float("-inf")
                pick = int(torch.argmax(two))
                next_text_token[sampling_text_mask] = (
                    AUDIO_GEN_SLOT_TOKEN_ID if pick == 0 else AUDIO_DELAY_SLOT_TOKEN_ID)
            else:
                lt = model.text_logits(h) / text_temperature
                if bool(is_audio[0]):
                    lt = lt.masked_fill(pre_exclude_mask1, float("-inf"))
                else:
                    lt = lt.index_fill(0, pre_exclude_mask0, float("-inf"))
                if time_step == 0:
                    lt[AUDIO_DELAY_SLOT_TOKEN_ID] = float("-inf")
                if time_step <= n_vq:
                    lt[IM_END_TOKEN_ID] = float("-inf")
                tok = sample_token(lt.view(1, -1), top_p=text_top_p, top_k=text_top_k,
                                   do_sample=text_do_sample)
                next_text_token[sampling_text_mask] = int(tok[0])
        is_audio[next_text_token == AUDIO_START_TOKEN_ID] = True
        is_stopping[next_text_token == IM_END_TOKEN_ID] = True

        if bool(sampling_audio_mask.any()):
            la = model.audio_logits(h) / audio_temperature
            if bool(sampling_audio_mask[0, 0]):
                ch0 = la[0].view(1, -1)
                ch0[..., AUDIO_PAD_CODE] = float("-inf")
                tok0 = sample_token(
                    logits=ch0, prev_tokens=generation_ids[:, :, 1],
                    repetition_penalty=audio_repetition_penalty,
                    top_p=audio_top_p, top_k=audio_top_k, do_sample=audio_do_sample)
                next_audio_tokens[:, 0][sampling_audio_mask[:, 0]] = int(tok0[0])
            rest = [j for j in range(1, n_vq) if bool(sampling_audio_mask[0, j])]
            if rest:
                lr = la[rest]
                lr[..., AUDIO_PAD_CODE] = float("-inf")
                tok = sample_token(
                    logits=lr, prev_tokens=generation_ids[:, :, 2:],
                    repetition_penalty=audio_repetition_penalty,
                    top_p=audio_top_p, top_k=audio_top_k, do_sample=audio_do_sample)
                for k, j in enumerate(rest):
                    next_audio_tokens[0, j] = int(tok[k])

        audio_lengths[(next_text_token == AUDIO_START_TOKEN_ID)
                      | (next_text_token == AUDIO_GEN_SLOT_TOKEN_ID)
                      | (next_text_token == AUDIO_DELAY_SLOT_TOKEN_ID)] += 1
        audio_lengths[next_text_token == AUDIO_END_TOKEN_ID] = 0
        delayed_lengths[(delayed_lengths == _INT64_MAX)
                        & (next_text_token == AUDIO_DELAY_SLOT_TOKEN_ID)] = 0
        delayed_lengths[delayed_lengths != _INT64_MAX] += 1
        delayed_lengths[delayed_lengths > n_vq] = _INT64_MAX

        current_input_ids = torch.cat(
            [next_text_token[:, None, None], next_audio_tokens[:, None, :]], dim=2)
        attention_mask = torch.cat([attention_mask, (~is_stopping).unsqueeze(-1)], dim=-1)
        generation_ids = torch.cat([generation_ids, current_input_ids], dim=1)
        text_steps.append(int(next_text_token[0]))
        audio_steps.append(next_audio_tokens[0].clone())

        if bool(is_stopping.all()):
            break

    text_ids = torch.tensor(text_steps, dtype=torch.long) if text_steps else torch.empty(0, dtype=torch.long)
    audio_frames = (torch.stack(audio_steps) if audio_steps
                    else torch.empty(0, n_vq, dtype=torch.long))
    if stats is not None:
        torch.cuda.synchronize()
        p = stats.get("prefill")
        stats["prefill_ms"] = float(p[0].elapsed_time(p[1])) if p else None
        stats["step_ms"] = [float(a.elapsed_time(b)) for a, b in stats.get("step_ms", [])]
        stats["steps"] = len(stats["step_ms"])
    return GenResult(text_ids=text_ids.cpu(), audio_frames=audio_frames.cpu(),
                     finished=bool(is_stopping.all()), n_steps=len(text_steps))
