from .random import *
from .resize import *
from .to import *
from .contrastive import *