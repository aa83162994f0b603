from .blocks import (
    SpeakerDiarization,
    Pipeline,
    SpeakerDiarizationConfig,
    PipelineConfig,
    VoiceActivityDetection,
    VoiceActivityDetectionConfig,
)
