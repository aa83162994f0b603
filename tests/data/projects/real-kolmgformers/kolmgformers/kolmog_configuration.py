"""
kolmgformers/kolmog_configuration.py  v0.0.3
=============================================
KOLMOGformer model configuration.

New in v0.0.3:
  max_position_embeddings_dynamic — when True, RoPE cache auto-extends
    instead of raising an error at sequences longer than max_position_embeddings.
  ffn_type — choose FFN activation: "gelu" (default) | "silu" | "swiglu".
  context_dropout — independent dropout on the context vector (default 0.0).
  validate() — explicit config validation with helpful error messages.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field
from typing import Optional


__all__ = ["KOLMOGformerConfig"]


@dataclass
class KOLMOGformerConfig:
    """
    Configuration for the KOLMOGformer attention-free architecture.

    Based on: "KOLMOGformers: Attention-Free Sequence Modeling via
    Kolmogorov-Arnold Cumulative Context Representations" (Işık, 2026)
    """

    # Core
    vocab_size:                int   = 32000
    hidden_size:               int   = 512
    num_channels:              int   = 8
    num_layers:                int   = 6
    intermediate_size:         int   = 2048
    max_position_embeddings:   int   = 2048
    dropout:                   float = 0.1
    layer_norm_eps:            float = 1e-6
    initializer_range:         float = 0.02

    # Embeddings
    tie_word_embeddings:       bool  = True
    pad_token_id:              int   = 0
    bos_token_id:              int   = 1
    eos_token_id:              int   = 2

    # KAN depth
    phi_depth:                 int   = 2
    Phi_depth:                 int   = 1

    # Modes
    causal:                    bool  = True
    use_context_gate:          bool  = True
    use_rope:                  bool  = True
    normalize_context:         bool  = True

    # NCE
    use_nce: bool = True

    # v0.0.2 — WCC
    use_wcc: bool = True

    # v0.0.2 — PLKAN
    use_plkan: bool = True
    plkan_num_pieces: int = 4

    # v0.0.3 new fields
    context_dropout: float = 0.0
    """Dropout applied to the context vector after extraction (default 0.0 = off).
    Adds mild regularisation specifically on the context path."""

    ffn_type: str = "gelu"
    """FFN activation in the KOLMOGformerLayer:
      'gelu'   — standard GELU (default, matches v0.0.2 behaviour)
      'silu'   — SiLU/Swish
      'swiglu' — SwiGLU gated FFN (adds a gate projection; ~1.3× wider)
    """

    max_position_embeddings_dynamic: bool = True
    """When True (default), the RoPE cache in KappaProjection auto-extends
    beyond max_position_embeddings at inference time instead of raising an
    IndexError.  Set to False to hard-cap sequence length."""

    def __post_init__(self):
        self.validate()

    def validate(self):
        """Explicit validation with helpful error messages."""
        if self.hidden_size % self.num_channels != 0:
            raise ValueError(
                f"hidden_size ({self.hidden_size}) must be divisible by "
                f"num_channels ({self.num_channels}). "
                f"Try num_channels={[n for n in [2,4,8,16,32] if self.hidden_size % n == 0][:3]}"
            )
        if self.dropout < 0 or self.dropout >= 1:
            raise ValueError(f"dropout must be in [0, 1), got {self.dropout}")
        if self.phi_depth < 1:
            raise ValueError(f"phi_depth must be >= 1, got {self.phi_depth}")
        if self.Phi_depth < 1:
            raise ValueError(f"Phi_depth must be >= 1, got {self.Phi_depth}")
        if self.plkan_num_pieces < 2:
            raise ValueError(f"plkan_num_pieces must be >= 2, got {self.plkan_num_pieces}")
        if self.ffn_type not in ("gelu", "silu", "swiglu"):
            raise ValueError(f"ffn_type must be 'gelu', 'silu', or 'swiglu', got '{self.ffn_type}'")

    @property
    def channel_dim(self) -> int:
        """Per-channel dimension Dq = D / Q."""
        return self.hidden_size // self.num_channels

    # ── Serialisation ────────────────────────────────────────────────────────

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["model_type"] = "kolmogformer"
        d["_version"] = "0.0.3"
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "KOLMOGformerConfig":
        known = {f.name for f in dataclasses.fields(cls)}
        d = {k: v for k, v in d.items() if k in known}
        return cls(**d)

    def save_pretrained(self, path: str) -> None:
        import tempfile
        os.makedirs(path, exist_ok=True)
        cfg_path = os.path.join(path, "kolmog_config.json")
        tmp_fd, tmp_path = tempfile.mkstemp(dir=path, suffix=".tmp")
        try:
            os.close(tmp_fd)
            with open(tmp_path, "w") as f:
                json.dump(self.to_dict(), f, indent=2)
            os.replace(tmp_path, cfg_path)
        except Exception:
            if os.path.exists(tmp_path):
                os.remove(tmp_path)
            raise

    @classmethod
    def from_pretrained(cls, path: str) -> "KOLMOGformerConfig":
        cfg_path = os.path.join(path, "kolmog_config.json")
        if not os.path.exists(cfg_path):
            cfg_path = os.path.join(path, "config.json")
        with open(cfg_path) as f:
            return cls.from_dict(json.load(f))

    def __repr__(self) -> str:
        lines = [
            f"KOLMOGformerConfig(",
            f"  vocab_size={self.vocab_size}, hidden_size={self.hidden_size}",
            f"  num_channels={self.num_channels}, channel_dim={self.channel_dim}",
            f"  num_layers={self.num_layers}, causal={self.causal}",
            f"  use_plkan={self.use_plkan}, use_wcc={self.use_wcc}, use_nce={self.use_nce}",
            f"  ffn_type='{self.ffn_type}', dropout={self.dropout}",
            f")",
        ]
        return "\n".join(lines)
