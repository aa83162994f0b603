from olaverse.utils.constants import CURRENCIES, CONTINENTS, format_currency
from olaverse.utils.audio import save_audio, load_audio

__all__ = ["CURRENCIES", "CONTINENTS", "format_currency", "save_audio", "load_audio"]
