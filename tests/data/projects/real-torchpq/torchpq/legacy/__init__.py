from .PQ import PQ
from .SQ import SQ
from .IVFPQBase import IVFPQBase
from .IVFPQTopk import IVFPQTopk

from .IVFPQ import IVFPQ
from .IVFPQR import IVFPQR