from .basemodel import BaseModel
from .lightning_wrapper import TaskModel
from .pretraining import pretrain_embeddings

__all__ = ["BaseModel", "TaskModel", "pretrain_embeddings"]
