from .base import CodecMixin
from .base import DACFile
from .dac import DAC
from .discriminator import Discriminator
