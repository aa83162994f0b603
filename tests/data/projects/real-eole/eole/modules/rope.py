import torch
import torch.nn as nn
import math
from torch import Tensor
from typing import Tuple, List
from eole.constants import PositionEncodingType

from eole.ops import _CPP_OPS_AVAILABLE, rotary_embedding


class NoOpPosition:
    """A no-op position encoding callable."""

    def __init__(self):
        self.cos_sin = None

    def update(self, *args, **kwargs):
        return None


def build_rope(model_config, mode="1d", variant="global", ctx_len=0):
    """Build RoPE with optional cuda acceleration."""
    if model_config.position_encoding_type == PositionEncodingType.Rotary:
        return RotaryPosition(model_config, mode=mode, variant=variant, ctx_len=ctx_len)
    else:
        return NoOpPosition()


def apply_rotary_pos_emb_xdrope(
    query: Tensor,
    key: Tensor,
    cos_sin: Tensor,
    position_ids: Tensor,
    xdrope_section: List[int],
    interleave: bool = False,
) -> Tuple[Tensor, Tensor]:
    # Note: We did not implement a Cuda version since it is typically called once

    x_dim = len(xdrope_section)
    # Rd is the rotary dimension; may be < head_dim for partial-rotation models
    Rd = cos_sin.size(1)
    cos = cos_sin[:, : Rd // 2]
    sin = cos_sin[:, Rd // 2 :]

    cos = cos[position_ids, ...]  # positions_ids is (bs, seqlen, x_dim) so (bs, seqlen, x_dim, dim_per_x)
    sin = sin[position_ids, ...]

    assert sum(xdrope_section) == cos.shape[-1], "Illegal partition for xd rope"

    # XD concat: assemble cos/sin from the correct position component per section
    cos = torch.cat(
        [m[:, :, i % x_dim, :] for i, m in enumerate(cos.split(xdrope_section, dim=-1))],
        dim=-1,
    )
    sin = torch.cat(
        [m[:, :, i % x_dim, :] for i, m in enumerate(sin.split(xdrope_section, dim=-1))],
        dim=-1,
    )

    # broadcast over heads (new layout)
    cos = cos.view(cos.size(0), cos.size(1), 1, -1)
    sin = sin.view(sin.size(0), sin.size(1), 1, -1)

    origin_dtype = query.dtype
    cos = cos.float()
    sin = sin.float()

    # Split into rotated portion and pass-through (handles partial rotation where Rd < head_dim)
    q_rot = query[..., :Rd].float()
    q_pass = query[..., Rd:]
    k_rot = key[..., :Rd].float()
    k_pass = key[..., Rd:]

    if interleave:
        # GPT-J style: rotate adjacent pairs (2i, 2i+1)
        q1, q2 = q_rot[..., 0::2], q_rot[..., 1::2]
        k1, k2 = k_rot[..., 0::2], k_rot[..., 1::2]
        q_rotated = torch.stack((q1 * cos - q2 * sin, q1 * sin + q2 * cos), dim=-1).flatten(-2)
        k_rotated = torch.stack((k1 * cos - k2 * sin, k1 * sin + k2 * cos), dim=-1).flatten(-2)
    else:
        # GPT-NeoX style: split into halves
        half = Rd // 2
        q1, q2 = q_rot[..., :half], q_rot[..., half:]
        k1, k2 = k_rot[..., :half], k_rot[..., half:]
        q_rotated = torch.cat((q1 * cos - q2 * sin, q1 * sin + q2 * cos), dim=-1)
        k_rotated = torch.cat((k1 * cos - k2 * sin, k1 * sin + k2 * cos), dim=-1)

    q_rotated = q_rotated.to(origin_dtype)
    k_rotated = k_rotated.to(origin_dtype)
    # Re-attach pass-through dimensions (only present for partial-rotation models where Rd < head_dim)
    q_out = torch.cat((q_rotated, q_pass), dim=-1) if q_pass.size(-1) > 0 else q_rotated
    k_out = torch.cat((k_rotated, k_pass), dim=-1) if k_pass.size(-1) > 0 else k_rotated

    return q_out, k_out


def apply_rotary_emb_multidim(query: Tensor, key: Tensor, cos_sin: Tensor, ndim: int = 2) -> Tuple[Tensor, Tensor]:
    """Apply multidimensional RoPE matching HF's apply_multidimensional_rope.

    Each spatial dimension gets its own rotate_half within a contiguous chunk
    of the head, rather than the standard approach that pairs the first half
    of the head with the second half.

    cos_sin layout (shape ``(S, head_dim)``):
      ``cos_sin[:, :D]`` = cos values = ``[cos_dim0_freqs, cos_dim1_freqs, ...]``
      ``cos_sin[:, D:]`` = sin values = ``[sin_dim0_freqs, sin_dim1_freqs, ...]``

    where ``D = head_dim // 2``, and each spatial dimension contributes
    ``D // ndim`` frequency entries.

    The rotation for spatial dimension *i* is applied to the contiguous
    block ``query[..., i*chunk : (i+1)*chunk]`` (chunk = head_dim // ndim)
    using only the matching ``D // ndim`` cos/sin entries.

    Args:
        query: ``(B, S, H, head_dim)``
        key:   ``(B, S, Hk, head_dim)``
        cos_sin: ``(S, head_dim)`` as described above.
        ndim: number of spatial dimensions (default 2 for vision 2D RoPE).

    Returns:
        Rotated query and key, same shapes as input.
    """
    B, S, H, head_dim = query.shape
    _, _, Hk, _ = key.shape

    chunk_size = head_dim // ndim  # e.g. 32 for head_dim=64, ndim=2
    half_chunk = chunk_size // 2  # e.g. 16
    D = head_dim // 2  # total cos (or sin) width
    freq_per_dim = D // ndim  # cos/sin entries per spatial dim (e.g. 16)

    cos_full = cos_sin[None, :, None, :D]  # (1, S, 1, D)
    sin_full = cos_sin[None, :, None, D:]  # (1, S, 1, D)

    q_parts: list[Tensor] = []
    k_parts: list[Tensor] = []
    for i in range(ndim):
        qi = query[..., i * chunk_size : (i + 1) * chunk_size]  # (B,S,H,chunk)
        ki = key[..., i * chunk_size : (i + 1) * chunk_size]  # (B,S,Hk,chunk)

        ci = cos_full[..., i * freq_per_dim : (i + 1) * freq_per_dim]  # (1,S,1,fpd)
        si = sin_full[..., i * freq_per_dim : (i + 1) * freq_per_dim]

        # rotate_half within chunk: pair (j, j+half_chunk) for j in [0, half_chunk)
        q1, q2 = qi[..., :half_chunk], qi[..., half_chunk:]
        k1, k2 = ki[..., :half_chunk], ki[..., half_chunk:]

        q_parts.append(torch.cat([q1 * ci - q2 * si, q2 * ci + q1 * si], dim=-1))
        k_parts.append(torch.cat([k1 * ci - k2 * si, k2 * ci + k1 * si], dim=-1))

    return torch.cat(q_parts, dim=-1), torch.cat(k_parts, dim=-1)


def apply_rotary_emb(query: Tensor, key: Tensor, cos_sin: Tensor, interleave: bool) -> Tuple[Tensor, Tensor]:

    B, S, H, D = query.shape
    _, _, Hk, _ = key.shape  # GQA: key may have fewer heads than query

    if _CPP_OPS_AVAILABLE and not torch.compiler.is_compiling():
        num_tok = B * S
        query_ = query.view(num_tok, -1, D)
        key_ = key.view(num_tok, -1, D)
        positions = torch.arange(S, device=query.device).repeat(B)
        # cuda ops change query key in-place
        rotary_embedding(positions, query_, key_, D, cos_sin, not interleave)
        return query_.view(B, S, -1, D), key_.view(B, S, -1, D)

    else:
        Rd = cos_sin.size(1)
        q_rot, q_pass = query[..., :Rd], query[..., Rd:]
        k_rot, k_pass = key[..., :Rd], key[..., Rd:]

        # Reshape based on interleave mode
        if interleave:
            # Split into pairs: (B, S, H, Rd) -> (B, S, H, Rd//2, 2)
            q1, q2 = q_rot.view(B, S, H, -1, 2).unbind(-1)
            k1, k2 = k_rot.view(B, S, Hk, -1, 2).unbind(-1)
        else:
            # Split into halves
            half = Rd // 2
            q1, q2 = q_rot[..., :half], q_rot[..., half:]
            k1, k2 = k_rot[..., :half], k_rot[..., half:]

        # Broadcast cos/sin to match
        cos = cos_sin[None, :, None, : Rd // 2]
        sin = cos_sin[None, :, None, Rd // 2 :]

        # Apply rotation (same formula for both modes)
        qr = q1 * cos - q2 * sin
        qi = q1 * sin + q2 * cos
        kr = k1 * cos - k2 * sin
        ki = k1 * sin + k2 * cos

        # Recombine based on interleave mode
        if interleave:
            q_rotated = torch.stack((qr, qi), dim=-1).flatten(-2)
            k_rotated = torch.stack((kr, ki), dim=-1).flatten(-2)
        else:
            q_rotated = torch.cat((qr, qi), dim=-1)
            k_rotated = torch.cat((kr, ki), dim=-1)

        return (
            torch.cat((q_rotated, q_pass), dim=-1),
            torch.cat((k_rotated, k_pass), dim=-1),
        )


class RotaryPosition(nn.Module):
    """
    Handles rotary position embeddings for transformer models.

    This module was refactored from multi-headed attention for improved clarity
    and to support future enhancements, such as additional scaling types.
    """

    def __init__(self, model_config, mode="1d", variant="global", ctx_len=0):
        """
        Initializes the RotaryPosition module.

        Args:
            model_config: Configuration object that contains model parameters,
                          including rotary embedding settings.

        Attributes:
            model_config: The configuration object passed during initialization.
            dim_per_head: The dimensionality of each attention head, computed
                          as `hidden_size // heads`.
            rotary_interleave: Boolean flag to determine if head dimensions should
                               be interleaved or split when applying rotary embeddings.
            rotary_theta: The base frequency for rotary embeddings.
            inv_freq: Inverse frequency values used to calculate the rotary embeddings.

        Notes:
            - If `rotary_dim` is set to 0 in the configuration, it defaults to
              `dim_per_head`.
            - Additional scaling types can be added in the future by extending this class.
        """
        super().__init__()
        self.model_config = model_config
        self.mode = mode
        self.dim_per_head = model_config.dim_per_head

        rope_config = model_config.rope_config
        # For global (full_attention) layers: use rotary_dim_global if set (Gemma4 proportional rope)
        rotary_dim_global = getattr(rope_config, "rotary_dim_global", 0)
        partial_rotary_factor = getattr(rope_config, "partial_rotary_factor", 0.0)
        if variant == "global" and rotary_dim_global > 0:
            rotary_dim = rotary_dim_global
        else:
            rotary_dim = rope_config.rotary_dim if rope_config.rotary_dim != 0 else self.dim_per_head
        self.rotary_interleave = rope_config.rotary_interleave
        self.rotary_theta = rope_config.rotary_theta if variant == "global" else rope_config.rotary_theta_local

        scaling_type = getattr(rope_config, "scaling_type", None)
        explicit_alpha = getattr(rope_config, "alpha", None)
        model_max_len = getattr(model_config, "max_position_embeddings", None) or 0

        effective_max_len = ctx_len if ctx_len > 0 else model_max_len

        if scaling_type in ["dynamic", "xdrope"] and explicit_alpha:
            base = self.rotary_theta * (explicit_alpha ** (rotary_dim / (rotary_dim - 2)))
        elif scaling_type == "dynamic" and not explicit_alpha:
            orig_len = getattr(rope_config, "original_max_position_embeddings", None) or model_max_len
            if effective_max_len > orig_len:
                derived_alpha = effective_max_len / orig_len
                base = self.rotary_theta * (derived_alpha ** (rotary_dim / (rotary_dim - 2)))
            else:
                base = self.rotary_theta
        else:
            base = self.rotary_theta

        # Proportional RoPE (Gemma4 full_attention): inv_freq has global_head_dim//2 entries where the
        # first rope_angles entries are non-zero and the remaining nope_dim entries are zero.  This means
        # the cos/sin table covers ALL global_head_dim dimensions; zero-freq dims get cos=1, sin=0 → identity.
        # This exactly matches HF's _compute_proportional_rope_parameters.
        if variant == "global" and partial_rotary_factor > 0.0:
            full_head_dim = getattr(model_config, "global_head_dim", 0) or self.dim_per_head
            rope_angles = int(partial_rotary_factor * full_head_dim / 2)
            nope_dim = full_head_dim // 2 - rope_angles
            inv_freq_rotated = 1.0 / (base ** (torch.arange(0, 2 * rope_angles, 2).float() / full_head_dim))
            inv_freq = torch.cat([inv_freq_rotated, torch.zeros(nope_dim)], dim=0)
        else:
            inv_freq = 1.0 / (base ** (torch.arange(0, rotary_dim, 2).float() / rotary_dim))

        # 2. Handle 2D Expansion
        if mode == "2d":
            inv_freq = self.init_2d_inv_freq(inv_freq)

        # Even if model.to(bf16) is called, this is manually kept as FP32
        self.register_buffer("inv_freq", inv_freq, persistent=False)

        # 3. Apply Scaling Logic (In-place on FP32 buffer)
        if scaling_type == "llama3":
            self.llama3_scaling()
        elif scaling_type == "gemma3" and variant == "global":
            self.gemma3_scaling()

        # 4. Initialize cos_sin placeholder
        self.register_buffer("cos_sin", torch.zeros(1), persistent=False)

        # Pre-allocate based on model context length for 1D to prevent initial graph recompiles
        if mode == "1d":
            self.update(effective_max_len)

    def init_2d_inv_freq(self, inv_freq):
        """
        Initialize 2d inverse frequencies for 2D rotary embeddings.
        Three styles are supported:
        * **Pixtral** (``temporal_patch_size == 1``, ``multidimensional_rope == False``):
          height uses even-indexed base frequencies (``inv_freq[::2]``),
          width uses odd-indexed ones (``inv_freq[1::2]``).
        * **Qwen VL** (``temporal_patch_size > 1``): both height and width use
          the same even-indexed base frequencies (``inv_freq[::2]``), matching
          HF's ``VisionRotaryEmbedding`` which applies the full frequency set
          to each spatial dimension independently.
        * **Gemma4 vision** (``multidimensional_rope == True``): both spatial
          dimensions use the *same* base frequencies, and the order is
          (col/x first, row/y second) to match HF's
          ``apply_multidimensional_rope`` which assigns the first head-dim
          chunk to x and the second to y.
        """
        max_patches_per_side = self.model_config.image_size // self.model_config.patch_size
        h = torch.arange(max_patches_per_side, device=inv_freq.device)
        w = torch.arange(max_patches_per_side, device=inv_freq.device)
        multidimensional = getattr(self.model_config.rope_config, "multidimensional_rope", False)
        if multidimensional:
            # Gemma4 vision: same frequencies for both dims, col-first order.
            base_freqs = inv_freq[::2]
            freqs_h = torch.outer(h, base_freqs).float()
            freqs_w = torch.outer(w, base_freqs).float()
            # HF convention: x/col = first chunk, y/row = second chunk
            inv_freq_2d = torch.cat(
                [
                    freqs_w[None, :, :].repeat(max_patches_per_side, 1, 1),  # col/x first
                    freqs_h[:, None, :].repeat(1, max_patches_per_side, 1),  # row/y second
                ],
                dim=-1,
            ).reshape(-1, self.dim_per_head // 2)
        else:
            freqs_h = torch.outer(h, inv_freq[::2]).float()
            # Qwen VL uses the same base frequencies for both spatial dimensions.
            # Pixtral interleaves even/odd frequencies between height and width.
            if getattr(self.model_config, "temporal_patch_size", 1) > 1:
                freqs_w = torch.outer(w, inv_freq[::2]).float()
            else:
                freqs_w = torch.outer(w, inv_freq[1::2]).float()
            inv_freq_2d = torch.cat(
                [
                    freqs_h[:, None, :].repeat(1, max_patches_per_side, 1),  # Use repeat, not expand
                    freqs_w[None, :, :].repeat(max_patches_per_side, 1, 1),
                ],
                dim=-1,
            ).reshape(-1, self.dim_per_head // 2)
        return inv_freq_2d

    def llama3_scaling(self):
        """
        Applies the LLaMA3.1-specific scaling to the inverse frequencies.

        This scaling is based on LLaMA3.1's handling of different frequency components
        within rotary embeddings. The method modifies `self.inv_freq` in place.

        Notes:
            - Original values for `factor`, `low_freq_factor`, `high_freq_factor`,
              and `original_max_position_embeddings` are taken from the configuration.
            - The scaling factors are applied conditionally based on the wavelength
              derived from the inverse frequencies.
        """
        rope_config = self.model_config.rope_config
        factor = rope_config.scaling_factor  # `8` in the original implementation
        low_freq_factor = rope_config.low_freq_factor  # `1` in the original implementation
        high_freq_factor = rope_config.high_freq_factor  # `4` in the original implementation
        old_context_len = rope_config.original_max_position_embeddings  # `8192` in the original implementation

        low_freq_wavelen = old_context_len / low_freq_factor
        high_freq_wavelen = old_context_len / high_freq_factor

        wavelen = 2 * math.pi / self.inv_freq
        inv_freq_llama = torch.where(wavelen > low_freq_wavelen, self.inv_freq / factor, self.inv_freq)

        smooth_factor = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
        smoothed_inv_freq = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama

        is_medium_freq = (wavelen <= low_freq_wavelen) & (wavelen >= high_freq_wavelen)
        self.inv_freq = torch.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama)

    def gemma3_scaling(self):
        self.inv_freq /= self.model_config.rope_config.scaling_factor

    def forward_1d(self, total_len):
        device = self.inv_freq.device
        tmax = torch.arange(total_len, device=device, dtype=torch.float32)
        tmax += getattr(self.model_config.rope_config, "tmax_index", 0)

        # self.inv_freq is already FP32
        rope = torch.outer(tmax, self.inv_freq)
        return torch.cos(rope), torch.sin(rope)

    # TODO: investigate if this is useful / properly implemented
    # def _dynamic_frequency_update(self, position_ids, device):
    #     """
    #     dynamic RoPE layers should recompute `inv_freq` in the following situations:
    #     1 - growing beyond the cached sequence length (allow scaling)
    #     2 - the current sequence length is in the original scale
    #           (avoid losing precision with small sequences)
    #     """
    #     seq_len = torch.max(position_ids) + 1
    #     if seq_len > self.max_seq_len_cached:  # growth
    #         inv_freq, self.attention_scaling = self.rope_init_fn(
    #             self.config, device, seq_len=seq_len, **self.rope_kwargs
    #         )
    #         self.inv_freq = inv_freq
    #         self.max_seq_len_cached = seq_len

    #     if (seq_len < self.original_max_seq_len
    #     and self.max_seq_len_cached > self.original_max_seq_len):  # reset
    #         self.inv_freq = self.original_inv_freq
    #         self.max_seq_len_cached = self.original_max_seq_len

    def forward_2d(self, positions):
        # Indexing stays in FP32
        rope = self.inv_freq[positions]
        return rope.cos(), rope.sin()

    def update(self, seq_len, reset=False, positions=None):
        # if reset:
        #    self.cos_sin = self.cos_sin[0]

        # target_dtype is what the C++ extension expects (BF16)
        target_dtype = self.cos_sin.dtype if hasattr(self, "cos_sin") else torch.float32

        if self.mode == "1d":
            if self.cos_sin.numel() == 0 or self.cos_sin.size(0) < seq_len:
                new_len = max(seq_len, 16384)
                cos, sin = self.forward_1d(new_len)
                new_data = torch.cat([cos, sin], dim=-1)  # cat as FP32

                if "cos_sin" in self._buffers:
                    del self._buffers["cos_sin"]
                self.register_buffer("cos_sin", new_data, persistent=False)

            # Slice in FP32, then return as BF16
            return self.cos_sin.to(target_dtype)

        else:
            if positions is None:
                positions = torch.arange(seq_len, device=self.inv_freq.device)

            cos, sin = self.forward_2d(positions)
            # Cat in FP32, then return as BF16
            return torch.cat([cos, sin], dim=-1).to(target_dtype)
