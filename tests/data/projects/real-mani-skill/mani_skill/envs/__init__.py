from .scenes import *
from .tasks import *
