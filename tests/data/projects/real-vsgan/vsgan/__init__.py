from vsgan import archs, utilities
from vsgan.networks import ESRGAN, EGVSR

__ALL__ = (archs, utilities, ESRGAN, EGVSR)
