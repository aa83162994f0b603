from .hit import AirHockeyHit
from .defend import AirHockeyDefend
from .prepare import AirHockeyPrepare
from .repel import AirHockeyRepel