from . import ddp
from . import vision