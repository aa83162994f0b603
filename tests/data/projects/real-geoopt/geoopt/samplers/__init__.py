from geoopt.samplers.sgrhmc import SGRHMC
from geoopt.samplers.rhmc import RHMC
from geoopt.samplers.rsgld import RSGLD
