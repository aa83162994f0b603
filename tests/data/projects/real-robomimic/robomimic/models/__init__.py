from .obs_core import EncoderCore, Randomizer
