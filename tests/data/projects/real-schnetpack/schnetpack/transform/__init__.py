"""
Transforms are applied before and/or after the model. They can be used, e.g., for calculating
neighbor lists, casting, unit conversion or data augmentation. Some can applied before batching,
i.e. to single systems, when loading the data. This is necessary for pre-processing and includes
neighbor lists, for example. On the other hand, transforms need to be able to handle batches
for post-processing. The flags `is_postprocessor` and `is_preprocessor` indicate how the tranforms
may be used. The attribute `mode` of a transform is set automatically to either "pre" or "post".q
"""

from .atomistic import *
from .casting import *
from .neighborlist import *
from .response import *
from .base import *
