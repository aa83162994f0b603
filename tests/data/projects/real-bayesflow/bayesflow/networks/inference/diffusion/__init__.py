from .diffusion_model import DiffusionModel
from .schedules import CosineNoiseSchedule
from .schedules import EDMNoiseSchedule
from .schedules import NoiseSchedule
from .dispatch import find_noise_schedule

from bayesflow.utils._docs import _add_imports_to_all

_add_imports_to_all()
