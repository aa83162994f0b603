from .tokenizers import MusicLangTokenizer, midi_file_to_template, score_to_template, MusicLangBPETokenizer
from .predict import MusicLangPredictor

__all__ = [
           'MusicLangTokenizer', 'predict', 'midi_file_to_template', 'score_to_template',
           'MusicLangBPETokenizer', 'MusicLangPredictor'
           ]