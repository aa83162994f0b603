from .forpdn import *
from .hyminor import *
from .hyres import *
from .otvca import *
from .wsrrr import *
