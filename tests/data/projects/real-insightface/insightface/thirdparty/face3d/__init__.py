#import mesh
#import morphable_model
from . import mesh
from . import morphable_model
