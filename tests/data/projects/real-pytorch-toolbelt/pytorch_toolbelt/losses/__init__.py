from __future__ import absolute_import

from .balanced_bce import *
from .bitempered_loss import *
from .dice import *
from .focal import *
from .focal_cosine import *
from .functional import *
from .jaccard import *
from .lovasz import *
from .soft_bce import *
from .soft_ce import *
from .soft_f1 import *
from .wing_loss import *
from .logcosh import *
from .quality_focal_loss import *
