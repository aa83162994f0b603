from .noise_schedule import NoiseSchedule
from .cosine_noise_schedule import CosineNoiseSchedule
from .edm_noise_schedule import EDMNoiseSchedule
