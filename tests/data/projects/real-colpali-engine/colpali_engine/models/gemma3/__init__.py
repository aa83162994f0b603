from .bigemma3 import BiGemma3, BiGemmaProcessor3
from .colgemma3 import ColGemma3, ColGemmaProcessor3
