from voicebox_pytorch.voicebox_pytorch import (
    Transformer,
    EncodecVoco,
    VoiceBox,
    DurationPredictor,
    ConditionalFlowMatcherWrapper,
)

from voicebox_pytorch.trainer import (
    VoiceBoxTrainer
)

from spear_tts_pytorch import TextToSemantic

from audiolm_pytorch import HubertWithKmeans
