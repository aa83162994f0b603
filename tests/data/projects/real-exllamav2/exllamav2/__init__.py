from exllamav2.version import __version__

from exllamav2.model import ExLlamaV2
from exllamav2.cache import ExLlamaV2CacheBase
from exllamav2.cache import ExLlamaV2Cache
from exllamav2.cache import ExLlamaV2Cache_Q4
from exllamav2.cache import ExLlamaV2Cache_Q6
from exllamav2.cache import ExLlamaV2Cache_Q8
from exllamav2.cache import ExLlamaV2Cache_8bit
from exllamav2.cache import ExLlamaV2Cache_TP
from exllamav2.config import ExLlamaV2Config
from exllamav2.tokenizer.tokenizer import ExLlamaV2Tokenizer
from exllamav2.lora import ExLlamaV2Lora
from exllamav2.util import SeqTensor
from exllamav2.util import Timer
from exllamav2.module import Intervention

from exllamav2.vlm.mmprojector import ExLlamaV2MultimodalProjector
from exllamav2.vlm.vision_tower import ExLlamaV2VisionTower
