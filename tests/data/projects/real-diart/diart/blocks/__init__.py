from .aggregation import (
    AggregationStrategy,
    HammingWeightedAverageStrategy,
    AverageStrategy,
    FirstOnlyStrategy,
    DelayedAggregation,
)
from .clustering import OnlineSpeakerClustering
from .embedding import (
    SpeakerEmbedding,
    OverlappedSpeechPenalty,
    EmbeddingNormalization,
    OverlapAwareSpeakerEmbedding,
)
from .segmentation import SpeakerSegmentation
from .diarization import SpeakerDiarization, SpeakerDiarizationConfig
from .base import PipelineConfig, Pipeline
from .utils import Binarize, Resample, AdjustVolume
from .vad import VoiceActivityDetection, VoiceActivityDetectionConfig
