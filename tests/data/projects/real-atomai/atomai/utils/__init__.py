from .coords import *
from .img import *
from .nn import *
from .imgen import *
from .viz import *
from .graphx import *
from .preproc import *
from .aseutils import *
