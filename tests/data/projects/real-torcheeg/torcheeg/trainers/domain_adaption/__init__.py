from .coral import CORALTrainer
from .ddc import DDCTrainer
from .dann import DANNTrainer
from .dan import DANTrainer
from .ada import ADATrainer
from .jan import JANTrainer
from .center import CenterLossTrainer