from .auc import *
from .ranking import *
from .contrastive import *
from .mil import *
from .losses import *
from .xc import *

