from .ctr_trainer import CTRTrainer
from .match_trainer import MatchTrainer
from .mtl_trainer import MTLTrainer
from .seq_trainer import SeqTrainer
