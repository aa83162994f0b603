# SPDX-FileCopyrightText: Copyright (c) 1993-2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0


from kvpress.attention_patch import patch_attention_functions
from kvpress.pipeline import KVPressTextGenerationPipeline
from kvpress.presses.adakv_press import AdaKVPress
from kvpress.presses.base_press import SUPPORTED_MODELS, BasePress
from kvpress.presses.block_press import BlockPress
from kvpress.presses.cam_press import CAMPress
from kvpress.presses.cap_press import CapPress
from kvpress.presses.chunk_press import ChunkPress
from kvpress.presses.chunkkv_press import ChunkKVPress
from kvpress.presses.compactor_press import CompactorPress
from kvpress.presses.composed_press import ComposedPress
from kvpress.presses.compression_ratio_decoding_press import CompressionRatioDecodingPress
from kvpress.presses.criticalkv_press import CriticalAdaKVPress, CriticalKVPress
from kvpress.presses.cur_press import CURPress
from kvpress.presses.decoding_press import DecodingPress
from kvpress.presses.dms_press import DMSPress
from kvpress.presses.duo_attention_press import DuoAttentionPress
from kvpress.presses.entropy_gated_chunkkv_press import EntropyGatedChunkKVPress
from kvpress.presses.expected_attention_press import ExpectedAttentionPress
from kvpress.presses.expected_attention_with_stats import ExpectedAttentionStatsPress
from kvpress.presses.fastkvzip_press import FastKVzipPress
from kvpress.presses.finch_press import FinchPress
from kvpress.presses.key_rerotation_press import KeyRerotationPress
from kvpress.presses.keydiff_press import KeyDiffPress
from kvpress.presses.knorm_press import KnormPress
from kvpress.presses.kvcompose_press import KVComposePress
from kvpress.presses.kvgrad_press import KVgradPress
from kvpress.presses.kvzap_press import KVzapPress
from kvpress.presses.kvzip_press import KVzipPress
from kvpress.presses.lagkv_press import LagKVPress
from kvpress.presses.leverage_press import LeverageScorePress
from kvpress.presses.lukv_press import LUKVPress
from kvpress.presses.merging_press import MergingPress
from kvpress.presses.non_causal_attention_press import NonCausalAttnPress
from kvpress.presses.observed_attention_press import ObservedAttentionPress
from kvpress.presses.per_layer_compression_press import PerLayerCompressionPress
from kvpress.presses.prefill_decoding_press import PrefillDecodingPress
from kvpress.presses.pyramidkv_press import PyramidKVPress
from kvpress.presses.qfilter_press import QFilterPress
from kvpress.presses.random_press import RandomPress
from kvpress.presses.restorekv_press import RestoreKVPress
from kvpress.presses.scorer_press import ScorerPress
from kvpress.presses.simlayerkv_press import SimLayerKVPress
from kvpress.presses.snapkv_press import SnapKVPress
from kvpress.presses.streaming_llm_press import StreamingLLMPress
from kvpress.presses.think_press import ThinKPress
from kvpress.presses.tova_press import TOVAPress

# Patch the attention functions to support head-wise compression
patch_attention_functions()

__all__ = [
    "CriticalAdaKVPress",
    "CriticalKVPress",
    "CURPress",
    "AdaKVPress",
    "BasePress",
    "ComposedPress",
    "ScorerPress",
    "ExpectedAttentionPress",
    "KnormPress",
    "ObservedAttentionPress",
    "RandomPress",
    "RestoreKVPress",
    "SimLayerKVPress",
    "SnapKVPress",
    "StreamingLLMPress",
    "ThinKPress",
    "TOVAPress",
    "KVPressTextGenerationPipeline",
    "PerLayerCompressionPress",
    "KeyRerotationPress",
    "ChunkPress",
    "DuoAttentionPress",
    "ChunkKVPress",
    "QFilterPress",
    "PyramidKVPress",
    "FinchPress",
    "LagKVPress",
    "BlockPress",
    "KeyDiffPress",
    "KVgradPress",
    "KVzipPress",
    "ExpectedAttentionStatsPress",
    "CAMPress",
    "DecodingPress",
    "CompressionRatioDecodingPress",
    "PrefillDecodingPress",
    "CompactorPress",
    "LeverageScorePress",
    "NonCausalAttnPress",
    "KVzapPress",
    "DMSPress",
    "FastKVzipPress",
    "KVComposePress",
    "MergingPress",
    "CapPress",
    "LUKVPress",
    "EntropyGatedChunkKVPress",
]
