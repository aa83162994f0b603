from .flownet2 import *
from .flownetc import *
from .flownetcs import *
from .flownetcss import *
from .flownets import *
from .flownetsd import *
