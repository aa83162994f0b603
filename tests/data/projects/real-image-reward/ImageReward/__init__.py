from .utils import *
from .models import *
from .ReFL import *