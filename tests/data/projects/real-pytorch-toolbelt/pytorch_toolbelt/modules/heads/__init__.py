from .resize import *
from .progressive_shuffle import *
from .deep_supervision import *
from .hypercolumn import *
from .segformer_head import *
from .classification_heads import *
