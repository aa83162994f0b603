"""
kolmgformers/configuration.py  v2.0.7
=========================================
OMGFormer model configuration.

Changes in v2.0.7:
  BUG FIX #D5 — HuggingFace uyumlu config.json:
        to_dict() artık model_type, architectures ve transformers_version
        alanlarını config.json'a yazar.  Bu sayede omg_hybridomga paketi
        AutoModelForCausalLM.from_pretrained() ile modeli yükleyebilir.

Changes in v2.0.6-BETA:
  NEW — MoEConfig fully integrated: OMGConfig.__post_init__ now accepts
        MoEConfig objects and flattens them into OMGConfig fields with proper
        type reconstruction on load.  Changelog entry was present in v2.0.5
        but implementation was missing.
  NEW — Flash Attention 2 flag added to config: use_flash_attn (bool).
  NEW — Tokenizer entegrasyonu: tokenizer_name_or_path, bos_token_id,
        eos_token_id, unk_token_id alanları eklendi.
  NEW — Gradient checkpointing bug düzeltildi: config alanı artık training
        içindeki enable_gradient_checkpointing ile tutarlı.
  FIX — GGUF export config alanı eklendi (gguf_quantization).
  FIX — from_name case-insensitive lookup v2.0.5'te düzeltildi, korundu.
  FIX — BUG FIX #C1, #C2, #C3 v2.0.5-BETA'dan korundu.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional


__all__ = [
    "MoEConfig",
    "OMGConfig",
    "OMGCONFIG_REGISTRY",
]


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── MoE sub-config ───────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

@dataclass
class MoEConfig:
    """
    Mixture-of-Experts sub-configuration.

    v2.0.6: Now fully integrated — OMGConfig.__post_init__ reads this and
    overwrites the flattened moe_* fields.  Previously MoEConfig existed
    as a dataclass but OMGConfig ignored it entirely (changelog said it was
    integrated, implementation was missing).

    Usage::

        moe_cfg = MoEConfig(num_experts=16, num_experts_per_token=2)
        config  = OMGConfig(use_moe=True, moe_config=moe_cfg)
        # config.num_experts is now 16
    """
    num_experts:           int   = 8
    num_experts_per_token: int   = 2
    expert_choice:         bool  = False
    shared_expert:         bool  = False
    capacity_factor:       float = 1.25
    aux_loss_weight:       float = 1e-2
    soft_moe:              bool  = False
    soft_moe_slots:        int   = 1


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Main configuration dataclass ─────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

@dataclass
class OMGConfig:
    """
    Full OMGFormer model configuration — v2.0.6-BETA.

    New in v2.0.6:
      moe_config:             MoEConfig sub-object (fully integrated now).
      use_flash_attn:         Enable Flash Attention 2 (real implementation).
      tokenizer_name_or_path: HuggingFace tokenizer veya yerel dizin.
      bos_token_id:           BOS token ID (tokenizer entegrasyonu).
      eos_token_id:           EOS token ID.
      unk_token_id:           UNK token ID.
      gguf_quantization:      GGUF export quantization type ("q4_0" | "q8_0" | "f16").

    (All v2.0.5 fields unchanged — full backward compat.)
    """

    # ── Core ──────────────────────────────────────────────────────────────────
    vocab_size:        int   = 32_000
    hidden_size:       int   = 768
    num_layers:        int   = 12
    num_heads:         int   = 12
    num_kv_heads:      Optional[int] = None
    head_dim:          int   = 0              # derived
    intermediate_size: int   = 0              # derived
    dropout:           float = 0.0
    attention_dropout: float = 0.0

    # ── Positional encoding ───────────────────────────────────────────────────
    pos_encoding:      str   = "rope"
    rope_base:         int   = 10_000
    rope_scaling:      float = 1.0
    rope_scaling_type: str   = "linear"
    rope_yarn_factor:  float = 32.0
    rope_ntk_factor:   float = 2.0
    max_length:        int   = 2048

    # ── Attention ─────────────────────────────────────────────────────────────
    attention_type:    str   = "gqa"
    sliding_window:    int   = 512
    mla_latent_dim:    int   = 0              # derived

    # NEW v2.0.6 — Flash Attention 2 real flag
    use_flash_attn:    bool  = False

    # ── Normalization ─────────────────────────────────────────────────────────
    norm_type:         str   = "rmsnorm"
    rms_norm_eps:      float = 1e-6
    norm_position:     str   = "pre"
    use_adaLN:         bool  = True

    # ── FFN / Activation ──────────────────────────────────────────────────────
    ffn_type:          str   = "swiglu"

    # ── MoE ───────────────────────────────────────────────────────────────────
    use_moe:                bool              = False
    moe_config:             Optional[MoEConfig] = None  # NEW v2.0.6: full integration
    moe_layer_freq:         int               = 2
    num_experts:            int               = 8
    num_experts_per_token:  int               = 2
    moe_expert_choice:      bool              = False
    moe_shared_expert:      bool              = False
    moe_capacity_factor:    float             = 1.25
    moe_aux_loss_weight:    float             = 1e-2
    moe_soft:               bool              = False
    moe_soft_slots:         int               = 1

    # ── Diffusion ─────────────────────────────────────────────────────────────
    mask_token_id:       int   = 4
    pad_token_id:        int   = 0
    mask_schedule:       str   = "cosine"
    random_token_prob:   float = 0.1
    self_conditioning:   bool  = True
    num_diffusion_steps: int   = 10

    # ── Tokenizer (NEW v2.0.6) ────────────────────────────────────────────────
    tokenizer_name_or_path: Optional[str] = None
    bos_token_id:            Optional[int] = None
    eos_token_id:            Optional[int] = None
    unk_token_id:            Optional[int] = None

    # ── LoRA ─────────────────────────────────────────────────────────────────
    lora_rank:           int   = 0
    lora_alpha:          float = 16.0
    lora_dropout:        float = 0.05
    lora_target_modules: List[str] = field(
        default_factory=lambda: ["q_proj", "k_proj", "v_proj", "out"]
    )

    # ── Regularization ────────────────────────────────────────────────────────
    stochastic_depth_rate: float = 0.0
    label_smoothing:       float = 0.0

    # ── Multimodal ────────────────────────────────────────────────────────────
    use_vision:   bool = False
    image_size:   int  = 224
    patch_size:   int  = 16
    num_channels: int  = 3

    # ── Prefix tuning ─────────────────────────────────────────────────────────
    prefix_tuning: bool = False
    prefix_length: int  = 0

    # ── Pooling ───────────────────────────────────────────────────────────────
    use_pooling_head: bool          = False
    embedding_dim:    Optional[int] = None
    pooling_type:     str           = "cls"

    # ── Register tokens ───────────────────────────────────────────────────────
    num_register_tokens: int = 0

    # ── Encoder-only / cross-attention ────────────────────────────────────────
    encoder_only:        bool = False
    use_cross_attention: bool = False

    # ── Misc ─────────────────────────────────────────────────────────────────
    tie_word_embeddings:    bool  = True
    initializer_range:      float = 0.02
    gradient_checkpointing: bool  = False
    torch_dtype:            str   = "float32"

    # ── Export (NEW v2.0.6) ───────────────────────────────────────────────────
    gguf_quantization: str = "q8_0"   # q4_0 | q8_0 | f16

    # ── v2.0.7 Architecture Family Sub-configs ────────────────────────────────
    # BUG FIX #8 & #9 (v2.0.7): These sub-config fields were previously only
    # duck-typed with getattr(config, "...", None) in modeling.py, which meant
    # they were lost on OMGConfig.save() / OMGConfig.load() round-trips and
    # all v2.0.7 features were silently disabled after checkpoint loading.
    # They are now first-class fields on OMGConfig so save/load preserves them.
    #
    # Import notes: the actual dataclass types live in their respective modules.
    # We store them as Optional[Any] here to avoid circular imports; the modules
    # themselves validate field types on construction.
    tasa_config:         Optional[Any] = None   # TASAConfig from kolmgformers.tasa
    mfs_config:          Optional[Any] = None   # MFSConfig  from kolmgformers.mfs
    di_config:           Optional[Any] = None   # DIConfig   from kolmgformers.di
    dual_stream_config:  Optional[Any] = None   # DualStreamConfig from kolmgformers.modeling
    twe_config:          Optional[Any] = None   # TWEConfig  from kolmgformers.twe
    nca_config:          Optional[Any] = None   # NCAConfig  from kolmgformers.nca

    # -------------------------------------------------------------------------

    def __post_init__(self) -> None:
        """
        Validate fields and compute derived values.

        NEW v2.0.6: MoEConfig full integration.
            If moe_config is provided, its fields overwrite the flattened
            moe_* fields on OMGConfig.  This was missing in v2.0.5 despite
            the changelog claiming it was done.

        BUG FIX #C1 (preserved): validate num_kv_heads before head_dim.
        """
        # ── NEW: MoEConfig full integration ───────────────────────────────────
        if self.moe_config is not None:
            mc = self.moe_config
            self.num_experts           = mc.num_experts
            self.num_experts_per_token = mc.num_experts_per_token
            self.moe_expert_choice     = mc.expert_choice
            self.moe_shared_expert     = mc.shared_expert
            self.moe_capacity_factor   = mc.capacity_factor
            self.moe_aux_loss_weight   = mc.aux_loss_weight
            self.moe_soft              = mc.soft_moe
            self.moe_soft_slots        = mc.soft_moe_slots

        # ── Validate num_kv_heads (BUG FIX #C1) ──────────────────────────────
        if self.num_kv_heads is None:
            self.num_kv_heads = self.num_heads
        if self.num_heads % self.num_kv_heads != 0:
            raise ValueError(
                f"num_heads ({self.num_heads}) must be divisible by "
                f"num_kv_heads ({self.num_kv_heads})."
            )

        # ── Derived: head_dim ─────────────────────────────────────────────────
        if self.head_dim == 0:
            self.head_dim = self.hidden_size // self.num_heads

        # ── Derived: intermediate_size ────────────────────────────────────────
        if self.intermediate_size == 0:
            if self.ffn_type in ("swiglu", "geglu", "reglu"):
                self.intermediate_size = int(self.hidden_size * 8 / 3)
                self.intermediate_size = (self.intermediate_size + 255) // 256 * 256
            else:
                self.intermediate_size = self.hidden_size * 4

        # ── Derived: mla_latent_dim ───────────────────────────────────────────
        if self.mla_latent_dim == 0:
            self.mla_latent_dim = self.hidden_size // 8

        # ── Validate norm_position ────────────────────────────────────────────
        if self.norm_position not in ("pre", "post"):
            raise ValueError(
                f"norm_position must be 'pre' or 'post', got '{self.norm_position}'."
            )

        # ── Validate pos_encoding ─────────────────────────────────────────────
        valid_pos = {"rope", "learned", "alibi", "t5", "none"}
        if self.pos_encoding not in valid_pos:
            raise ValueError(
                f"pos_encoding must be one of {valid_pos}, got '{self.pos_encoding}'."
            )

        # ── Validate attention_type ───────────────────────────────────────────
        valid_attn = {"gqa", "mha", "mqa", "mla", "sliding_window", "linear", "block_sparse"}
        if self.attention_type not in valid_attn:
            raise ValueError(
                f"attention_type must be one of {valid_attn}, got '{self.attention_type}'."
            )

        # ── MoE consistency ───────────────────────────────────────────────────
        if self.use_moe:
            if self.num_experts < 1:
                raise ValueError("num_experts must be >= 1 when use_moe=True.")
            if not (1 <= self.num_experts_per_token <= self.num_experts):
                raise ValueError(
                    f"num_experts_per_token ({self.num_experts_per_token}) must be "
                    f"in [1, num_experts={self.num_experts}]."
                )

        # ── Embedding dim default ─────────────────────────────────────────────
        if self.use_pooling_head and self.embedding_dim is None:
            self.embedding_dim = self.hidden_size

    # ─────────────────────────────────────────────────────────────────────────
    # JSON serialization (BUG FIX #C2 preserved + v2.0.6 MoEConfig fix)
    # ─────────────────────────────────────────────────────────────────────────

    def to_dict(self) -> Dict[str, Any]:
        """
        Serialize config to a plain dict (JSON-safe).

        v2.0.6: moe_config is explicitly serialized as a nested dict so it
        survives round-trip save/load without losing type.

        v2.0.7: tasa_config, mfs_config, di_config, dual_stream_config,
        twe_config, and nca_config are serialized as nested dicts with a
        ``__type__`` marker so load() can reconstruct the correct dataclass.
        Previously these were duck-typed with getattr() and lost on round-trip.

        BUG FIX #D5 (v2.0.8): HuggingFace uyumlu alanlar eklendi.
        ``model_type`` ve ``architectures`` olmadan AutoModelForCausalLM
        model sınıfını tanıyamıyor ve from_pretrained() başarısız oluyor.
        """
        from dataclasses import asdict as _asdict, fields as _fields

        d: Dict[str, Any] = {}
        for f in _fields(self):
            val = getattr(self, f.name)
            if val is not None and hasattr(val, "__dataclass_fields__"):
                # Serialize sub-config dataclasses with a type marker
                sub = _asdict(val)
                sub["__type__"] = type(val).__name__
                d[f.name] = sub
            else:
                d[f.name] = val

        # Legacy marker for moe_config (preserve backward compat)
        d["_moe_config_present"] = self.moe_config is not None

        # ── HuggingFace uyumluluk alanları (BUG FIX #D5) ─────────────────
        d.setdefault("model_type", "omg_hybridomga")
        d.setdefault("architectures", ["OMGForCausalLM"])
        d.setdefault("transformers_version", "4.40.0")  # minimum uyumlu sürüm
        return d

    def save(self, directory: str) -> None:
        """Save config as ``config.json`` in *directory*."""
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, "config.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_dict(), f, indent=2)

    @classmethod
    def load(cls, directory: str, **kwargs: Any) -> "OMGConfig":
        """
        Load config from ``{directory}/config.json``.

        v2.0.6: Reconstructs MoEConfig sub-object if present.
        v2.0.7: Reconstructs all v2.0.7 sub-configs (tasa_config, mfs_config,
                di_config, dual_stream_config, twe_config, nca_config) from
                their serialized dicts using the ``__type__`` marker.
        """
        path = os.path.join(directory, "config.json")
        if not os.path.exists(path):
            raise FileNotFoundError(f"config.json not found in '{directory}'.")
        with open(path, "r", encoding="utf-8") as f:
            data = json.load(f)
        data.update(kwargs)

        # Remove legacy HF-compat keys that aren't OMGConfig fields
        for hf_key in ("model_type", "architectures", "transformers_version",
                        "_moe_config_present"):
            data.pop(hf_key, None)

        # Reconstruct MoEConfig (v2.0.6 path)
        if "moe_config" in data and isinstance(data["moe_config"], dict):
            mc = dict(data["moe_config"])
            mc.pop("__type__", None)
            data["moe_config"] = MoEConfig(**mc)

        # Reconstruct v2.0.7 sub-configs using __type__ markers
        _V207_SUBCONFIG_REGISTRY: Dict[str, Any] = {}
        try:
            from kolmgformers.tasa import TASAConfig
            _V207_SUBCONFIG_REGISTRY["TASAConfig"] = TASAConfig
        except ImportError:
            pass
        try:
            from kolmgformers.mfs import MFSConfig
            _V207_SUBCONFIG_REGISTRY["MFSConfig"] = MFSConfig
        except ImportError:
            pass
        try:
            from kolmgformers.di import DIConfig
            _V207_SUBCONFIG_REGISTRY["DIConfig"] = DIConfig
        except ImportError:
            pass
        try:
            from kolmgformers.modeling import DualStreamConfig
            _V207_SUBCONFIG_REGISTRY["DualStreamConfig"] = DualStreamConfig
        except ImportError:
            pass
        try:
            from kolmgformers.twe import TWEConfig
            _V207_SUBCONFIG_REGISTRY["TWEConfig"] = TWEConfig
        except ImportError:
            pass
        try:
            from kolmgformers.nca import NCAConfig
            _V207_SUBCONFIG_REGISTRY["NCAConfig"] = NCAConfig
        except ImportError:
            pass

        for key in ("tasa_config", "mfs_config", "di_config",
                    "dual_stream_config", "twe_config", "nca_config"):
            if key in data and isinstance(data[key], dict):
                sub = dict(data[key])
                type_name = sub.pop("__type__", None)
                cls_obj = _V207_SUBCONFIG_REGISTRY.get(type_name) if type_name else None
                if cls_obj is not None:
                    try:
                        data[key] = cls_obj(**sub)
                    except Exception:
                        # Unknown fields in old checkpoint — best-effort
                        known_sub = {f.name for f in cls_obj.__dataclass_fields__.values()}
                        data[key] = cls_obj(**{k: v for k, v in sub.items() if k in known_sub})
                # If type unknown, leave as dict (duck-typing still works in modeling.py)

        # Filter to known fields to ignore stale keys from old versions
        known = {f.name for f in cls.__dataclass_fields__.values()}
        data  = {k: v for k, v in data.items() if k in known}
        return cls(**data)

    # ─────────────────────────────────────────────────────────────────────────
    # Named presets (BUG FIX #C3 preserved)
    # ─────────────────────────────────────────────────────────────────────────

    @classmethod
    def from_name(cls, name: str, **kwargs: Any) -> "OMGConfig":
        """
        Instantiate a config from a named preset (case-insensitive).
        """
        key = name.lower()
        if key not in OMGCONFIG_REGISTRY:
            raise KeyError(
                f"Unknown preset '{name}'. "
                f"Available: {list(OMGCONFIG_REGISTRY.keys())}"
            )
        base = OMGCONFIG_REGISTRY[key].copy()
        base.update(kwargs)
        return cls(**base)

    def __repr__(self) -> str:
        params_m = (
            self.vocab_size * self.hidden_size
            + self.num_layers * self.hidden_size * (4 * self.hidden_size + self.intermediate_size)
        ) / 1e6
        flash = " FA2" if self.use_flash_attn else ""
        moe   = f" MoE({self.num_experts}E)" if self.use_moe else ""
        return (
            f"OMGConfig("
            f"hidden={self.hidden_size}, "
            f"layers={self.num_layers}, "
            f"heads={self.num_heads}/{self.num_kv_heads}, "
            f"ffn={self.ffn_type}, "
            f"attn={self.attention_type}{flash}{moe}, "
            f"~{params_m:.0f}M params"
            f")"
        )


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Preset registry ────────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

OMGCONFIG_REGISTRY: Dict[str, Dict[str, Any]] = {
    "micro": dict(
        hidden_size=128, num_layers=2, num_heads=4,
        vocab_size=1_000, max_length=128, ffn_type="swiglu",
    ),
    "tiny": dict(
        hidden_size=256, num_layers=4, num_heads=8,
        vocab_size=32_000, max_length=512, ffn_type="swiglu",
    ),
    "small": dict(
        hidden_size=768, num_layers=12, num_heads=12,
        vocab_size=32_000, max_length=2048, ffn_type="swiglu",
        attention_type="gqa", num_kv_heads=4,
    ),
    "base": dict(
        hidden_size=1024, num_layers=24, num_heads=16, num_kv_heads=4,
        vocab_size=32_000, max_length=4096, ffn_type="swiglu",
        attention_type="gqa", pos_encoding="rope",
        rope_scaling_type="yarn", rope_yarn_factor=32.0,
        stochastic_depth_rate=0.1,
    ),
    "large": dict(
        hidden_size=1536, num_layers=32, num_heads=24, num_kv_heads=8,
        vocab_size=32_000, max_length=8192, ffn_type="swiglu",
        attention_type="gqa", pos_encoding="rope",
        rope_scaling_type="yarn", rope_yarn_factor=32.0,
        stochastic_depth_rate=0.15, gradient_checkpointing=True,
    ),
    "xl": dict(
        hidden_size=2048, num_layers=40, num_heads=32, num_kv_heads=8,
        vocab_size=32_000, max_length=16_384, ffn_type="swiglu",
        attention_type="gqa", pos_encoding="rope",
        rope_scaling_type="yarn", rope_yarn_factor=32.0,
        stochastic_depth_rate=0.2, gradient_checkpointing=True,
    ),
    "moe-small": dict(
        hidden_size=768, num_layers=12, num_heads=12, num_kv_heads=4,
        vocab_size=32_000, max_length=2048, ffn_type="swiglu",
        attention_type="gqa", use_moe=True, moe_layer_freq=2,
        num_experts=8, num_experts_per_token=2,
        moe_shared_expert=True, moe_aux_loss_weight=1e-2,
    ),
    "moe-base": dict(
        hidden_size=1024, num_layers=24, num_heads=16, num_kv_heads=4,
        vocab_size=32_000, max_length=4096, ffn_type="swiglu",
        attention_type="gqa", use_moe=True, moe_layer_freq=1,
        num_experts=64, num_experts_per_token=6,
        moe_shared_expert=True, moe_aux_loss_weight=1e-3,
        gradient_checkpointing=True,
    ),
    "encoder": dict(
        hidden_size=768, num_layers=12, num_heads=12,
        vocab_size=32_000, max_length=512, ffn_type="swiglu",
        attention_type="gqa", encoder_only=True,
        use_pooling_head=True, embedding_dim=768,
        pooling_type="cls", tie_word_embeddings=False,
        pos_encoding="rope",
    ),
    "vision-small": dict(
        hidden_size=768, num_layers=12, num_heads=12, num_kv_heads=4,
        vocab_size=32_000, max_length=2048, ffn_type="swiglu",
        attention_type="gqa", use_vision=True,
        image_size=224, patch_size=16, num_channels=3,
        num_register_tokens=4,
    ),
    "long-base": dict(
        hidden_size=1024, num_layers=24, num_heads=16, num_kv_heads=4,
        vocab_size=32_000, max_length=131_072, ffn_type="swiglu",
        attention_type="gqa", pos_encoding="rope",
        rope_scaling_type="yarn", rope_yarn_factor=128.0,
        gradient_checkpointing=True,
    ),
}

# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── v2.0.6 Architecture Family Sub-configs ────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
#
# These dataclasses are imported from their respective modules.
# They are referenced here for documentation purposes.
#
#   DS-PDLM config: see modeling.py  → DualStreamConfig
#   TWE config:     see twe.py       → TWEConfig
#   DLA config:     see dla/buffer.py → DLAConfig
#   NCA config:     see nca/novelty.py → NCAConfig
