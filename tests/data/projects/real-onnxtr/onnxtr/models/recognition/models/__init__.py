from .crnn import *
from .sar import *
from .master import *
from .vitstr import *
from .parseq import *
from .viptr import *
