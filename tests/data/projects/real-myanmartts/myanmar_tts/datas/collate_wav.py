import random
import torch


def _random_slice(x, mn=12, mx=3):
    L = x.size(-1)
    if L < 12:
        return x
    seg = random.randint(max(1, L // mn), max(1, L // mx))
    seg = min(seg, L)
    start = random.randint(0, L - seg)
    return x[start:start + seg]


def collate_fn_wav(batch):
    wavs, phones = zip(*batch)
    wav_lens = torch.tensor([w.size(-1) for w in wavs], dtype=torch.long)
    phone_lens = torch.tensor([p.size(-1) for p in phones], dtype=torch.long)

    sliced = [_random_slice(w) for w in wavs]
    sliced_lens = torch.tensor([s.size(-1) for s in sliced], dtype=torch.long)

    B = len(wavs)
    max_w = int(wav_lens.max())
    max_p = int(phone_lens.max())
    max_s = int(sliced_lens.max())

    wav_pad = torch.zeros(B, max_w)
    phone_pad = torch.zeros(B, max_p, dtype=torch.long)
    sliced_pad = torch.zeros(B, max_s)

    for i, w in enumerate(wavs):
        wav_pad[i, :w.size(-1)] = w
    for i, p in enumerate(phones):
        phone_pad[i, :p.size(-1)] = p
    for i, s in enumerate(sliced):
        sliced_pad[i, :s.size(-1)] = s

    return (phone_pad, phone_lens, wav_pad, wav_lens, sliced_pad, sliced_lens)
