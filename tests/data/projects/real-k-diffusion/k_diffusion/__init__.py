from . import augmentation, config, evaluation, external, gns, layers, models, sampling, utils
from .layers import Denoiser
