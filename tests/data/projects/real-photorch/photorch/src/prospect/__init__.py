from .prospectmodels import prospectdcore as prospectd
from .prospectmodels import fitparams as prospectdparams