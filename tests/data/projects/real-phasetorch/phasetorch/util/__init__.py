from phasetorch.util._utils import get_wavelength
from phasetorch.util._utils import cphase_cproj, cproj_cphase
from phasetorch.util._projs import path_lengths_cylinder, path_lengths_sphere
