from .models import *
from .utils import *
from .helper import *
