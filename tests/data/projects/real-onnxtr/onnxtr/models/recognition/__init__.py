from .models import *
from .zoo import *
