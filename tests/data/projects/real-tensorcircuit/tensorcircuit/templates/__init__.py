from . import ansatz
from . import blocks
from . import chems
from . import dataset
from . import graphs
from . import measurements
from . import conversions

costfunctions = measurements
