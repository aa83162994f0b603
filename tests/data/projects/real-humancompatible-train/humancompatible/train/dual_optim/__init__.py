from .base import DualOptimizer
from .alm import ALM
from .ialm import iALM
from .pbm import PBM
from .nupi import nuPI
from .ssg import SSG
from .moreau import MoreauEnvelope
