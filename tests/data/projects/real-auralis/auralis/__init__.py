from .core.tts import TTS
from .common.definitions.requests import TTSRequest
from .common.definitions.output import TTSOutput
from .common.logging.logger import setup_logger, set_vllm_logging_level
from .common.definitions.enhancer import AudioPreprocessingConfig

