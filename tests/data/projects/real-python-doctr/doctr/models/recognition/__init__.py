from .crnn import *
from .master import *
from .sar import *
from .vitstr import *
from .parseq import *
from .viptr import *
from .zoo import *
