from .trainer import DMCTrainer
