from .AestheticScore import *
from .BLIPScore import *
from .CLIPScore import *
from .BLIP import *