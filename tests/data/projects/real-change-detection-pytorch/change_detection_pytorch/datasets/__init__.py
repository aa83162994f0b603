from .custom import *
from .LEVIR_CD import *
from .SVCD import *
