from .voice_encoder import VoiceEncoder, VoiceEncConfig
