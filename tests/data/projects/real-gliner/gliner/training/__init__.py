from .trainer import Trainer, TrainingArguments
