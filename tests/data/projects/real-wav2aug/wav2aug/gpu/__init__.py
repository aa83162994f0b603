from .amplitude_clipping import rand_amp_clip
from .amplitude_scaling import rand_amp_scale
from .chunk_swapping import chunk_swap
from .frequency_dropout import freq_drop
from .noise_addition import NoiseLoader, add_babble_noise, add_noise
from .polarity_inversion import invert_polarity
from .speed_perturbation import speed_perturb
from .time_dropout import time_dropout
from .wav2aug import Wav2Aug

__all__ = [
    "rand_amp_clip",
    "rand_amp_scale",
    "chunk_swap",
    "freq_drop",
    "add_noise",
    "add_babble_noise",
    "NoiseLoader",
    "invert_polarity",
    "speed_perturb",
    "time_dropout",
    "Wav2Aug",
]
