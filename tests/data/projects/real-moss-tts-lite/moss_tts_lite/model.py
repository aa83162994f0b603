"""MOSS-TTS-v1 backbone (weights dict in, no HF scaffolding)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

N_VQ = 32
AUDIO_VOCAB = 1025
AUDIO_PAD_CODE = 1024
TEXT_VOCAB = 155648

PAD_TOKEN_ID = 151643
IM_START_TOKEN_ID = 151644
IM_END_TOKEN_ID = 151645
AUDIO_START_TOKEN_ID = 151652
AUDIO_END_TOKEN_ID = 151653
AUDIO_USER_SLOT_TOKEN_ID = 151654
AUDIO_GEN_SLOT_TOKEN_ID = 151656
AUDIO_DELAY_SLOT_TOKEN_ID = 151662

ROPE_THETA = 1_000_000.0
RMS_EPS = 1e-6

# layer key -> checkpoint key suffix (fast.py/gptq.py index these short names)
_PARTS = {"input_layernorm": "input_layernorm", "q": "self_attn.q_proj",
          "k": "self_attn.k_proj", "v": "self_attn.v_proj", "o": "self_attn.o_proj",
          "q_norm": "self_attn.q_norm", "k_norm": "self_attn.k_norm",
          "post_attention_layernorm": "post_attention_layernorm",
          "gate": "mlp.gate_proj", "up": "mlp.up_proj", "down": "mlp.down_proj"}

@dataclass
class HiddenState:
    last_hidden: torch.Tensor

def _pre_exclude_mask(device):
    """Token ids never sampled for text (structural slots)."""
    return torch.tensor(
        [PAD_TOKEN_ID, AUDIO_GEN_SLOT_TOKEN_ID, AUDIO_DELAY_SLOT_TOKEN_ID,
         AUDIO_END_TOKEN_ID], device=device)

def _rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = RMS_EPS) -> torch.Tensor:
    """transformers Qwen3RMSNorm, op-for-op (fp32 stats, cast back, then scale)."""
    v = x.float().pow(2).mean(-1, keepdim=True)
    return weight * (x.float() * torch.rsqrt(v + eps)).to(x.dtype)

def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)

class MossTTSModel:
    def __init__(self, weights: dict, device="cuda", dtype=torch.bfloat16, max_seq_len=8192):
        dev = torch.device(device)
        self.device, self.dtype, self.max_seq_len = dev, dtype, int(max_seq_len)
        ids = sorted({int(k.split(".")[2]) for k in weights
                      if k.startswith("language_model.layers.")})
        if ids != list(range(len(ids))):
            raise ValueError(f"unexpected layer ids {ids}")
        self.n_layers = len(ids)

        emb = weights["language_model.embed_tokens.weight"]
        self.hidden_size, self.text_vocab = int(emb.shape[1]), int(emb.shape[0])
        p0 = "language_model.layers.0.self_attn."
        self.head_dim = int(weights[p0 + "q_norm.weight"].shape[0])
        self.n_heads = int(weights[p0 + "q_proj.weight"].shape[0]) // self.head_dim
        self.n_kv_heads = int(weights[p0 + "k_proj.weight"].shape[0]) // self.head_dim
        if self.n_heads % self.n_kv_heads:
            raise ValueError("num_attention_heads must be divisible by num_key_value_heads")
        self.n_rep = self.n_heads // self.n_kv_heads

        def T(n):
            t = weights[n]
            if t.device != dev or t.dtype != dtype:
                t = t.to(device=dev, dtype=dtype)
            return t.contiguous()

        self.embed_tokens, self.final_norm = T("language_model.embed_tokens.weight"), T("language_model.norm.weight")
        self.layers = [{k: T(f"language_model.layers.{i}.{v}.weight") for k, v in _PARTS.items()}
                       for i in ids]
        self.emb_ext = [T(f"emb_ext.{i}.weight") for i in range(N_VQ)]
        self.head_text = T("lm_heads.0.weight")
        self.head_audio = torch.stack([weights[f"lm_heads.{i + 1}.weight"]
                                       for i in range(N_VQ)]
                                      ).to(device=dev, dtype=dtype).contiguous()
        self.head_2way = self.head_text[[AUDIO_GEN_SLOT_TOKEN_ID, AUDIO_DELAY_SLOT_TOKEN_ID]].contiguous()

        self.rope_cos, self.rope_sin = self._rope_tables(max_seq_len, dev, dtype, self.head_dim)
        self.k_cache = torch.zeros(self.n_layers, self.n_kv_heads, max_seq_len,
                                   self.head_dim, dtype=dtype, device=dev)
        self.v_cache = torch.zeros_like(self.k_cache)
        self._seq = 0

    @staticmethod
    def _rope_tables(n, dev, dtype, head_dim):
        """rope cos/sin for `n` positions (the original fp32 chain, verbatim)."""
        inv = 1.0 / (ROPE_THETA ** (
            torch.arange(0, head_dim, 2, dtype=torch.float32, device=dev) / head_dim))
        e = torch.outer(torch.arange(n, device=dev, dtype=torch.float32), inv)
        e = torch.cat((e, e), dim=-1)
        return e.cos().to(dtype), e.sin().to(dtype)

    def ensure_seq_len(self, n: int) -> int:
        """Grow the KV cache + rope tables in place; live prefix is preserved."""
        n = int(n)
        if n <= self.max_seq_len:
            return self.max_seq_len
        if self._seq > self.max_seq_len:
            raise RuntimeError(f"live sequence {self._seq} exceeds cache "
                               f"{self.max_seq_len}; cannot grow")
        old = self.max_seq_len
        k = torch.zeros(self.n_layers, self.n_kv_heads, n, self.head_dim,
                        dtype=self.dtype, device=self.device)
        v = torch.zeros_like(k)
        cos, sin = self._rope_tables(n, self.device, self.dtype, self.head_dim)
        for new, cur in ((k, self.k_cache), (v, self.v_cache)):
            new[:, :, :old].copy_(cur)
        cos[:old].copy_(self.rope_cos)
        sin[:old].copy_(self.rope_sin)
        self.k_cache, self.v_cache = k, v
        self.rope_cos, self.rope_sin = cos, sin
        self.max_seq_len = n
        return n

    @property
    def seq_len(self) -> int:
        return self._seq

    def reset(self) -> None:
        self._seq = 0

    def _embed(self, ids: torch.Tensor) -> torch.Tensor:
        """All 33 streams summed: text embedding + 32 codebook tables."""
        h = F.embedding(ids[..., 0], self.embed_tokens)
        for i in range(N_VQ):
            h = h + F.embedding(ids[..., i + 1], self.emb_ext[i])
        return h

    def _layer(self, li: int, h: torch.Tensor, s0: int) -> torch.Tensor:
        """One decoder layer over `t` new positions starting at cache index s0."""
        L, t = self.layers[li], h.shape[1]
        s1, residual = s0 + t, h
        x = _rms_norm(h, L["input_layernorm"])

        # q/k/v padded to their own head counts, then norms only on q/k (v is raw)
        q, k, v = [F.linear(x, L[n]).view(1, t, nh, self.head_dim)
                   for n, nh in (("q", self.n_heads), ("k", self.n_kv_heads), ("v", self.n_kv_heads))]
        q, k, v = [i.transpose(1, 2) for i in (q, k, v)]
        q, k = [_rms_norm(i, L[n]) for i, n in ((q, "q_norm"), (k, "k_norm"))]

        cos, sin = self.rope_cos[s0:s1].unsqueeze(0), self.rope_sin[s0:s1].unsqueeze(0)
        q, k = [i * cos + _rotate_half(i) * sin for i in (q, k)]
        self.k_cache[li, :, s0:s1], self.v_cache[li, :, s0:s1] = k[0], v[0]

        keys, vals = [c[li, :, :s1].repeat_interleave(self.n_rep, dim=0).unsqueeze(0)
                      for c in (self.k_cache, self.v_cache)]
        # is_causal only while the whole cache is this chunk (prefill), not on decode steps
        out = F.scaled_dot_product_attention(q, keys, vals, is_causal=(s1 == t and t > 1))
        h = residual + F.linear(out.transpose(1, 2).reshape(1, t, self.hidden_size), L["o"])

        residual, x = h, _rms_norm(h, L["post_attention_layernorm"])
        return residual + F.linear(
            F.silu(F.linear(x, L["gate"])) * F.linear(x, L["up"]), L["down"])

    def _check(self, ids: torch.Tensor, t: int) -> torch.Tensor:
        if ids.dim() != 3 or ids.shape[0] != 1 or ids.shape[-1] != N_VQ + 1 or ids.shape[1] != t:
            raise ValueError(f"expected input ids [1, {t}, {N_VQ + 1}], got {tuple(ids.shape)}")
        if self._seq + t > self.max_seq_len:
            raise ValueError(f"seq len {self._seq + t} exceeds KV cache {self.max_seq_len}")
        return ids.to(device=self.device, dtype=torch.long)

    @torch.inference_mode()
    def prefill(self, input_ids: torch.Tensor) -> HiddenState:
        """input_ids [1, L, 33]; resets the cache and runs the whole prompt."""
        if input_ids.dim() != 3 or input_ids.shape[0] != 1 or input_ids.shape[-1] != N_VQ + 1:
            raise ValueError(f"expected input ids [1, L, {N_VQ + 1}], got {tuple(input_ids.shape)}")
        t = int(input_ids.shape[1])
        self.reset()
        h = self._embed(self._check(input_ids, t))
        for li in range(self.n_layers):
            h = self._layer(li, h, 0)
        self._seq = t
        return HiddenState(_rms_norm(h, self.final_norm))

    @torch.inference_mode()
    def step(self, row: torch.Tensor) -> HiddenState:
        """One decode step; `row` is [33] or [1, 33]."""
        s0 = self._seq
        h = self._embed(self._check(row.unsqueeze(0) if row.dim() == 2 else row, 1))
        for li in range(self.n_layers):
            h = self._layer(li, h, s0)
        self._seq = s0 + 1
        return HiddenState(_rms_norm(h, self.final_norm))

    def _last(self, h):
        """HiddenState | [1,T,C] | [1,C] | [C] -> [T,C] (T>1) or [1,C] (T==1)."""
        h = h.last_hidden if isinstance(h, HiddenState) else h
        if h.dim() == 3:
            if h.shape[0] != 1:
                raise ValueError("batch must be 1")
            h = h[0]
        elif h.dim() not in (1, 2) or (h.dim() == 2 and h.shape[0] != 1):
            raise ValueError(f"unsupported hidden shape {tuple(h.shape)}")
        return h

    def _head(self, h, w: torch.Tensor) -> torch.Tensor:
        """[..., C] -> [..., V] with single-position ranks squeezed out (reference shapes)."""
        h = self._last(h)
        return F.linear(h[0] if h.dim() == 2 and h.shape[0] == 1 else h, w)

    def text_logits(self, h) -> torch.Tensor:
        """Full 155648-way text head."""
        return self._head(h, self.head_text)

    def text_logits_2way(self, h) -> torch.Tensor:
        """Only the two audio-phase text logits (gen_slot, delay_slot)."""
        return self._head(h, self.head_2way)

    def audio_logits(self, h) -> torch.Tensor:
        """Audio heads: 32 independent GEMMs (bitwise-matched to the reference)."""
        h = self._last(h)
        x = h[0] if h.dim() == 2 and h.shape[0] == 1 else h
        out = torch.stack([F.linear(x, w) for w in self.head_audio], dim=0 if x.dim() == 1 else 1)
        out[..., AUDIO_PAD_CODE] = float("-inf")
        return out
