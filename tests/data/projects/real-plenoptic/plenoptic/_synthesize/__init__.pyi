__all__ = ["Eigendistortion", "MADCompetition", "Metamer", "MetamerCTF"]

from .eigendistortion import Eigendistortion
from .mad_competition import MADCompetition
from .metamer import Metamer, MetamerCTF
