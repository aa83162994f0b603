from . import counts
from . import readout_mitigation

rem = readout_mitigation  # alias
