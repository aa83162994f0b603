from xlb.experimental.ooc.out_of_core import OOCmap
from xlb.experimental.ooc.ooc_array import OOCArray
