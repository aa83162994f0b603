from .dp_optimizer import DPSGD, DPAdam, DPAdagrad, DPRMSprop
