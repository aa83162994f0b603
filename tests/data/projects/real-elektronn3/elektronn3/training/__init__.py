from .trainer import Trainer, Backup
from .padam import Padam
from .swa import SWA
