from .utils.external_loggers import configure_external_loggers

configure_external_loggers()

from .datasets import BaseDataset, InstructionDataset, TextDataset
from .engines import (
    BaseEngine,
    GPT2Engine,
    GPT2LoraEngine,
    GPTJEngine,
    GPTJLoraEngine,
    LLamaEngine,
    LlamaLoraEngine,
)
from .models import GPT2, BaseModel, GPT2Lora, GPTJLora, Llama, LlamaLora
from .trainers import BaseTrainer, LightningTrainer
