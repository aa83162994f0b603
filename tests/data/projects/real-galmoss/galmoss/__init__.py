from .Parameter.basic import Parameters as p
from .data import Profiles, DataSet
from .profile.basic import LightProfile, Ellip
from .fitting import Fitting
from .profile import light_profile as lp
__version__ = '2.2'