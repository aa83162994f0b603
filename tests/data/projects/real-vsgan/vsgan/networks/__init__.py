from vsgan.networks.egvsr import EGVSR
from vsgan.networks.esrgan import ESRGAN

__ALL__ = (ESRGAN, EGVSR)
