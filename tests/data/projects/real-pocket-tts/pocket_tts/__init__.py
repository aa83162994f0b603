from pocket_tts.models.model_state import export_model_state
from pocket_tts.models.tts_model import TTSModel

# Public methods:
# TTSModel.device
# TTSModel.sample_rate
# TTSModel.load_model
# TTSModel.generate_audio
# TTSModel.generate_audio_stream
# TTSModel.get_state_for_audio_prompt

__all__ = ["TTSModel", "export_model_state"]
