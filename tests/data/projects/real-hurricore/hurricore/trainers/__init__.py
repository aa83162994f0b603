from hurricore.trainers.trainer import Trainer  # noqa: F401
from hurricore.trainers.hf_llm_trainer import HFLLMTrainer  # noqa: F401
