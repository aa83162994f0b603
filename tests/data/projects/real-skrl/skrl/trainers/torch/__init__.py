from skrl.trainers.torch.base import Trainer, TrainerCfg, generate_equally_spaced_scopes  # isort:skip

from skrl.trainers.torch.parallel import ParallelTrainer, ParallelTrainerCfg
from skrl.trainers.torch.sequential import SequentialTrainer, SequentialTrainerCfg
from skrl.trainers.torch.step import StepTrainer, StepTrainerCfg
