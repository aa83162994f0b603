"""
KOLMGformers  v0.0.3
======================
Unified library merging KOLMOGformers (attention-free KAN sequence modeling)
and OMGformers (parallel diffusion language modeling).

Two complete model families in one package — v0.0.3 adds bug fixes & improvements:

KOLMOG Family — Attention-Free Sequence Modeling (Işık, 2026)
  Architecture: Kolmogorov-Arnold Cumulative Context Representations.
  No attention matrices. O(n·d) time, O(d) memory — length-invariant gradients.

OMG Family — Parallel Diffusion Language Modeling
  Architecture: Masked Diffusion + full Transformer (GQA, MoE, DS-PDLM, …).
  Rich feature set: LoRA, TASA, MFS, Delta Inference, Dual-Stream, NCA, TWE.

Quick start::

    # KOLMOG — attention-free
    from kolmgformers import KOLMOGformerConfig, KOLMOGformerForCausalLM
    config = KOLMOGformerConfig(vocab_size=32000, hidden_size=512,
                                num_channels=8, num_layers=6, causal=True)
    model = KOLMOGformerForCausalLM(config)

    # OMG — diffusion
    from kolmgformers import OMGConfig, OMGModel
    config = OMGConfig(vocab_size=32000, hidden_size=768, num_layers=12)
    model  = OMGModel(config)
"""

__version__ = "0.0.3"
__author__  = "Ömür Bera Işık"
__license__ = "Apache-2.0"

# ── KOLMOG Family ──────────────────────────────────────────────────────────

from kolmgformers.kolmog_configuration import KOLMOGformerConfig

from kolmgformers.modeling_kolmogformer import (
    KappaProjection,
    CumulativeContextExtractor,
    InnerKolmogorovFunction,
    OuterKolmogorovFunction,
    KOLMOGformerLayer,
    KANLayer,
    PLKANLayer,         # v0.0.2 — Piecewise Linear KAN
    build_kan_layer,    # v0.0.2 — factory (PLKAN or B-spline)
    RotaryEmbedding as KOLMOGRotaryEmbedding,
    KOLMOGformerModel,
    KOLMOGformerForCausalLM,
    KOLMOGformerForMaskedLM,
    KOLMOGformerForSequenceClassification,
    KOLMOGformerModelOutput,
)

from kolmgformers.kolmog_training import (
    TrainingArguments as KOLMOGTrainingArguments,
    Trainer as KOLMOGTrainer,
    DataCollatorForCausalLM as KOLMOGDataCollatorForCausalLM,
    DataCollatorForMaskedLM as KOLMOGDataCollatorForMaskedLM,
    get_scheduler as kolmog_get_scheduler,
)

from kolmgformers.kolmog_tokenization import (
    KOLMOGformerTokenizer,
    HuggingFaceTokenizerWrapper,
    TextDataset,
    ChunkedTextDataset,
    MaskedTextDataset,
    InMemoryDataset,
    count_parameters,
)

from kolmgformers.kolmog_benchmarks import (
    complexity_table,
    memory_benchmark,
    speed_benchmark,
    theoretical_memory_scaling,
    profile_forward,
    evaluate_perplexity,
)

from kolmgformers.rank_compression import (
    RankCompressionConfig,
    RankCompressionCodebook,
    RankCompressedLinear,
    compress_model,
    decompress_model,
    apply_rank_compression,
    compute_rank_indices,
    reconstruct_from_ranks,
    fit_R_theta,
)

# ── OMG Family ─────────────────────────────────────────────────────────────

from kolmgformers.configuration import OMGConfig, MoEConfig, OMGCONFIG_REGISTRY

from kolmgformers.attention import (
    RotaryEmbedding, YaRNRotaryEmbedding, NTKRotaryEmbedding,
    LongRoPEEmbedding, ALiBiBias, T5RelativePositionBias,
    GroupedQueryAttention, MultiHeadLatentAttention,
    SlidingWindowAttention, LinearAttention, BlockSparseAttention,
    build_attention, flash_attention_forward,
)

from kolmgformers.layers import (
    RMSNorm, ScaleNorm, build_norm,
    SwiGLUFFN, GeGLUFFN, ReGLUFFN, StandardFFN, build_ffn,
    AdaLNModulation, SelfCondProjection,
    LearnedPositionalEmbedding, StochasticDepth, TokenMerge, OMGBlock,
)

from kolmgformers.modeling import (
    OMGModelOutput, TimestepEmbedding, DualStreamConfig, BridgeChannel, OMGModel,
)

from kolmgformers.diffusion import MaskScheduler, ParallelDecoder

from kolmgformers.moe import MoEFFN, SoftMoEFFN, RouterLoadBalancingLoss

from kolmgformers.lora import (
    LoRAConfig, LoRALinear, DoRALinear,
    add_lora, merge_lora, save_lora, load_lora, lora_parameter_count,
)

from kolmgformers.training import (
    TrainingConfig, FineTuneConfig,
    EMA, Lion, Muon, Trainer as OMGTrainer, FineTuner,
    CheckpointManager, create_base_model,
    get_warmup_cosine_schedule, get_warmup_cosine_restarts_schedule,
    enable_gradient_checkpointing, wrap_fsdp,
    init_distributed, AutoTuner,
)

from kolmgformers.tokenizer import OMGTokenizer, SPECIAL_TOKENS

from kolmgformers.advanced import (
    KVCache, MultiTokenPredictionHead,
    merge_models_slerp, merge_models_dare, merge_models_ties,
    RewardModelHead, ppo_step,
    quantize_int8, quantize_int4, simulate_int4, export_gguf,
    RAGContextInjector, DynamicBatchingEngine,
    ChunkedLongDocumentAttention,
)

from kolmgformers.twe import (
    TWEConfig, TemporalEntry, TemporalRegistry,
    TemporalEmbedding, TemporalCalibrationLoss, TWEAttentionBias,
    compute_output_reliability,
)

from kolmgformers.dla import (
    DLAConfig, InteractionBufferEntry, InteractionBuffer,
    DigestivePipeline, AbsorptionEngine,
)

from kolmgformers.nca import (
    NCAConfig, NoveltyDetector, FreeAssociationEngine,
    PreverbalReasoningLayer, EvaluationEngine,
    CreativeModeRouter, CreativeOutput,
)

try:
    from kolmgformers.tasa import TASAConfig, TASAGatingNetwork, apply_tasa_mask
except ImportError:
    pass

try:
    from kolmgformers.mfs import MFSConfig, MFSMode, MFSLayer, apply_mfs
except ImportError:
    pass

try:
    from kolmgformers.di import DIConfig, DeltaCache
except ImportError:
    pass

# ── Convenience aliases — KOLMOG names win for the unqualified exports ─────
Trainer = KOLMOGTrainer
TrainingArguments = KOLMOGTrainingArguments
DataCollatorForCausalLM = KOLMOGDataCollatorForCausalLM
DataCollatorForMaskedLM = KOLMOGDataCollatorForMaskedLM
get_scheduler = kolmog_get_scheduler

__all__ = [
    "__version__",
    # KOLMOG config
    "KOLMOGformerConfig",
    # KOLMOG models
    "KOLMOGformerModel", "KOLMOGformerForCausalLM",
    "KOLMOGformerForMaskedLM", "KOLMOGformerForSequenceClassification",
    "KOLMOGformerModelOutput",
    # KOLMOG internals
    "KappaProjection", "CumulativeContextExtractor",
    "InnerKolmogorovFunction", "OuterKolmogorovFunction",
    "KOLMOGformerLayer", "KANLayer", "KOLMOGRotaryEmbedding",
    # KOLMOG training
    "KOLMOGTrainingArguments", "KOLMOGTrainer",
    "KOLMOGDataCollatorForCausalLM", "KOLMOGDataCollatorForMaskedLM",
    "kolmog_get_scheduler",
    # Convenience aliases
    "Trainer", "TrainingArguments", "DataCollatorForCausalLM",
    "DataCollatorForMaskedLM", "get_scheduler",
    # KOLMOG tokenization & datasets
    "KOLMOGformerTokenizer", "HuggingFaceTokenizerWrapper",
    "TextDataset", "ChunkedTextDataset", "MaskedTextDataset",
    "InMemoryDataset", "count_parameters",
    # KOLMOG benchmarks
    "complexity_table", "memory_benchmark", "speed_benchmark",
    "theoretical_memory_scaling", "profile_forward", "evaluate_perplexity",
    # RankCompression
    "RankCompressionConfig", "RankCompressionCodebook", "RankCompressedLinear",
    "compress_model", "decompress_model", "apply_rank_compression",
    "compute_rank_indices", "reconstruct_from_ranks", "fit_R_theta",
    # OMG config
    "OMGConfig", "MoEConfig", "OMGCONFIG_REGISTRY",
    # OMG attention
    "RotaryEmbedding", "YaRNRotaryEmbedding", "NTKRotaryEmbedding",
    "LongRoPEEmbedding", "ALiBiBias", "T5RelativePositionBias",
    "GroupedQueryAttention", "MultiHeadLatentAttention",
    "SlidingWindowAttention", "LinearAttention", "BlockSparseAttention",
    "build_attention", "flash_attention_forward",
    # OMG layers
    "RMSNorm", "ScaleNorm", "build_norm",
    "SwiGLUFFN", "GeGLUFFN", "ReGLUFFN", "StandardFFN", "build_ffn",
    "AdaLNModulation", "SelfCondProjection",
    "LearnedPositionalEmbedding", "StochasticDepth", "TokenMerge", "OMGBlock",
    # OMG modeling
    "OMGModelOutput", "TimestepEmbedding",
    "DualStreamConfig", "BridgeChannel", "OMGModel",
    # OMG diffusion
    "MaskScheduler", "ParallelDecoder",
    # OMG MoE
    "MoEFFN", "SoftMoEFFN", "RouterLoadBalancingLoss",
    # OMG LoRA
    "LoRAConfig", "LoRALinear", "DoRALinear",
    "add_lora", "merge_lora", "save_lora", "load_lora", "lora_parameter_count",
    # OMG training
    "TrainingConfig", "FineTuneConfig",
    "EMA", "Lion", "Muon", "OMGTrainer", "FineTuner",
    "CheckpointManager", "create_base_model",
    "get_warmup_cosine_schedule", "get_warmup_cosine_restarts_schedule",
    "enable_gradient_checkpointing", "wrap_fsdp",
    "init_distributed", "AutoTuner",
    # OMG tokenizer
    "OMGTokenizer", "SPECIAL_TOKENS",
    # OMG advanced
    "KVCache", "MultiTokenPredictionHead",
    "merge_models_slerp", "merge_models_dare", "merge_models_ties",
    "RewardModelHead", "ppo_step",
    "quantize_int8", "quantize_int4", "simulate_int4", "export_gguf",
    "RAGContextInjector", "DynamicBatchingEngine",
    "ChunkedLongDocumentAttention",
    # OMG TWE
    "TWEConfig", "TemporalEntry", "TemporalRegistry",
    "TemporalEmbedding", "TemporalCalibrationLoss", "TWEAttentionBias",
    "compute_output_reliability",
    # OMG DLA
    "DLAConfig", "InteractionBufferEntry", "InteractionBuffer",
    "DigestivePipeline", "AbsorptionEngine",
    # OMG NCA
    "NCAConfig", "NoveltyDetector", "FreeAssociationEngine",
    "PreverbalReasoningLayer", "EvaluationEngine",
    "CreativeModeRouter", "CreativeOutput",
    # OMG TASA/MFS/DI
    "TASAConfig", "TASAGatingNetwork", "apply_tasa_mask",
    "MFSConfig", "MFSMode", "MFSLayer", "apply_mfs",
    "DIConfig", "DeltaCache",
]
