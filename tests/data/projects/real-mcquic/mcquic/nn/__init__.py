from .blocks import *
from .convs import *
from .gdn import *
from .base import *
