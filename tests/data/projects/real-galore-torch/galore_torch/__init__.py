from .adafactor import Adafactor as GaLoreAdafactor
from .adamw import AdamW as GaLoreAdamW
from .adamw8bit import AdamW8bit as GaLoreAdamW8bit