from .inference import inference
from .train import train
