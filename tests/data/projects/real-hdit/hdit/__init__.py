from . import modules
from . import utils
from .modules.models import hourglass_diffusion_transformer
from .modules.models import hdit
from .modules.models.hourglass_diffusion_transformer import HourglassVisionTransformer
from .modules.models.hourglass_diffusion_transformer import HViT
from .modules.models.hourglass_diffusion_transformer import HourglassDiffusionTransformer
from .modules.models.hourglass_diffusion_transformer import HDiT