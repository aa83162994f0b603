name = "resemblyzer"

from resemblyzer.audio import preprocess_wav, wav_to_mel_spectrogram, trim_long_silences, \
    normalize_volume
from resemblyzer.hparams import sampling_rate
from resemblyzer.voice_encoder import VoiceEncoder
