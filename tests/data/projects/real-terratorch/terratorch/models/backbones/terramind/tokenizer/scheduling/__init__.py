from .diffusion_pipeline import PipelineCond
from .scheduling_ddim import DDIMScheduler
from .scheduling_ddpm import DDPMScheduler
from .scheduling_utils import *
