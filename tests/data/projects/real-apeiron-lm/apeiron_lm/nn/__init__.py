# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
from apeiron_lm.nn.byte_encoder      import ByteEncoder
from apeiron_lm.nn.novelty_estimator import NoveltyEstimator
from apeiron_lm.nn.latent_explorer   import LatentExplorer
from apeiron_lm.nn.unified_reasoner  import UnifiedLatentReasoner, CausalDWConv1D

__all__ = [
    "ByteEncoder",
    "NoveltyEstimator",
    "LatentExplorer",
    "UnifiedLatentReasoner",
    "CausalDWConv1D",
    "FourierSpectralConv1D",
    "GlobalContextBlock",
    "AdaptiveFourierFilter",
    "MultiScaleFourierBlock",
]
