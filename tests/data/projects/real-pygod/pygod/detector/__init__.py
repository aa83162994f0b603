from .base import Detector
from .base import DeepDetector

from .adone import AdONE
from .anomalous import ANOMALOUS
from .anomalydae import AnomalyDAE
from .cola import CoLA
from .conad import CONAD
from .dmgd import DMGD
from .dominant import DOMINANT
from .done import DONE
from .gaan import GAAN
from .gadnr import GADNR
from .gae import GAE
from .guide import GUIDE
from .ocgnn import OCGNN
from .one import ONE
from .radar import Radar
from .scan import SCAN

__all__ = [
    "Detector", "DeepDetector", "AdONE", "ANOMALOUS", "AnomalyDAE", "CoLA",
    "CONAD", "DMGD", "DOMINANT", "DONE", "GAAN", "GADNR", "GAE", "GUIDE",
    "OCGNN", "ONE", "Radar", "SCAN"
]
