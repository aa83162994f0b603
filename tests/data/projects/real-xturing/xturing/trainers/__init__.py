from xturing.trainers.base import BaseTrainer
from xturing.trainers.lightning_trainer import LightningTrainer
