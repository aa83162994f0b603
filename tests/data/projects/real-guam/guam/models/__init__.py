
from .basemodel import *
from .xgbmodel  import *
from .RFmodel   import *