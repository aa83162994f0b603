from hivemind.optim.grad_scaler import GradScaler
from hivemind.optim.optimizer import Optimizer
from hivemind.optim.training_averager import TrainingAverager
