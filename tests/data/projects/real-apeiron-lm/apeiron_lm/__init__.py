# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
Apeiron LM  v0.0.2
===================
Byte-native parallel language model with unified latent reasoning.

No tokenizer. No vocabulary. No autoregressive loop.

Quick start
-----------
>>> from apeiron_lm import ApeironLM, ApeironConfig
>>> config = ApeironConfig.small()
>>> model  = ApeironLM(config)
>>> output = model.generate_text("Hello, world!")
>>> print(output)

Embedding extraction
--------------------
>>> v = model.encode("The quick brown fox")   # (1, C)

Batched generation
------------------
>>> outputs = model.generate_batch(["Hello", "World"], max_generate=128)

Streaming generation
--------------------
>>> for char in model.generate_stream("Once upon a time"):
...     print(char, end="", flush=True)

HuggingFace-style usage
-----------------------
>>> from apeiron_lm.integrations import ApeironForCausalLM, ApeironByteTokenizer
>>> model = ApeironForCausalLM.from_pretrained("path/to/checkpoint")
>>> tok   = ApeironByteTokenizer()
>>> sim   = model.similarity("cat", "kitten")   # cosine similarity in latent space
"""

__version__     = "0.0.3.2"
__author__      = "Ömür Bera Işık"
__license__     = "Apache-2.0"
__description__ = (
    "Byte-native parallel language model with unified latent reasoning. "
    "No tokenizer. No vocabulary. No autoregressive decoding loop."
)

# ── Core model ────────────────────────────────────────────────────────────────
from apeiron_lm.configuration import ApeironConfig
from apeiron_lm.modeling      import ApeironLM

# ── Sub-modules ───────────────────────────────────────────────────────────────
from apeiron_lm.nn import (
    ByteEncoder,
    NoveltyEstimator,
    LatentExplorer,
    UnifiedLatentReasoner,
)
from apeiron_lm.lora       import (
    LoRAConfig,
    apply_lora,
    merge_lora,
    unmerge_lora,
    save_lora,
    load_lora,
    lora_trainable_parameters,
    lora_parameter_count,
)
from apeiron_lm.parallel    import (
    DDPContext,
    wrap_data_parallel,
    wrap_ddp,
    wrap_fsdp,
    make_distributed_loader,
    ApeironDDPTrainer,
)
from apeiron_lm.attention   import (
    set_attention_backend,
    current_attention_backend,
    efficient_attention,
    attention_diagnostics,
)
from apeiron_lm.sdps       import SDPSTrainer, SDPSResult, sdps_fit
from apeiron_lm.finetune    import ApeironFinetuner, FinetuneConfig, finetune
from apeiron_lm.multimodal  import (
    ApeironMultimodal,
    build_multimodal_input,
    image_to_tensor,
    image_file_to_tensor,
    bytes_to_image,
    audio_to_tensor,
    bytes_to_audio,
)
from apeiron_lm.convert     import ModelConverter, ConversionConfig
from apeiron_lm.training import (
    ApeironLoss,
    ApeironTrainer,
    TrainingArguments,
    get_cosine_schedule_with_warmup,
    get_linear_schedule_with_warmup,
    get_constant_schedule_with_warmup,
)
from apeiron_lm.utils import (
    bytes_to_tensor,
    tensor_to_bytes,
    text_to_tensor,
    tensor_to_text,
    pad_sequence_batch,
    count_parameters,
    set_seed,
    get_device,
    ApeironLogger,
    model_summary,
    human_readable_size,
)

# ── Optional integrations (import lazily to avoid hard deps) ──────────────────
def _load_hf_integration():
    """Lazy import for HuggingFace integration."""
    try:
        from apeiron_lm.integrations.huggingface import (
            ApeironForCausalLM,
            ApeironPreTrainedModel,
            ApeironHFConfig,
            ApeironByteTokenizer,
        )
        return ApeironForCausalLM, ApeironPreTrainedModel, ApeironHFConfig, ApeironByteTokenizer
    except ImportError as e:
        raise ImportError(
            "HuggingFace integration requires `transformers` to be installed. "
            "Install it with: pip install transformers"
        ) from e


__all__ = [
    # Version
    "__version__",
    "__author__",
    "__license__",
    # Config
    "ApeironConfig",
    # Model
    "ApeironLM",
    # NN building blocks
    "ByteEncoder",
    "NoveltyEstimator",
    "LatentExplorer",
    "UnifiedLatentReasoner",
    # Training
    "ApeironLoss",
    "ApeironTrainer",
    "TrainingArguments",
    "get_cosine_schedule_with_warmup",
    "get_linear_schedule_with_warmup",
    "get_constant_schedule_with_warmup",
    # Utils
    "bytes_to_tensor",
    "tensor_to_bytes",
    "text_to_tensor",
    "tensor_to_text",
    "pad_sequence_batch",
    "count_parameters",
    "set_seed",
    "get_device",
    "ApeironLogger",
    "model_summary",
    "human_readable_size",
]
