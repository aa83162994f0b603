from .great import GReaT
from . import metrics
