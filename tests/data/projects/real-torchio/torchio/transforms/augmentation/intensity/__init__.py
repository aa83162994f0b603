from .random_bias_field import BiasField
from .random_bias_field import RandomBiasField
from .random_blur import Blur
from .random_blur import RandomBlur
from .random_gamma import Gamma
from .random_gamma import RandomGamma
from .random_ghosting import Ghosting
from .random_ghosting import RandomGhosting
from .random_labels_to_image import LabelsToImage
from .random_labels_to_image import RandomLabelsToImage
from .random_motion import Motion
from .random_motion import RandomMotion
from .random_noise import Noise
from .random_noise import RandomNoise
from .random_spike import RandomSpike
from .random_spike import Spike
from .random_swap import RandomSwap
from .random_swap import Swap

__all__ = [
    'RandomSwap',
    'Swap',
    'RandomBlur',
    'Blur',
    'RandomNoise',
    'Noise',
    'RandomSpike',
    'Spike',
    'RandomGamma',
    'Gamma',
    'RandomMotion',
    'Motion',
    'RandomGhosting',
    'Ghosting',
    'RandomBiasField',
    'BiasField',
    'RandomLabelsToImage',
    'LabelsToImage',
]
