from .utmos_scripted import UTMOSScoreScripted, get_scripted_utmos
from .utmos_torch import UTMOSScoreTorch
