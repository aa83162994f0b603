from .binary import *
from .select import *
from .string import *
from .fix import *
from .mapping import *
from .normalize import *
from .multilabel import *