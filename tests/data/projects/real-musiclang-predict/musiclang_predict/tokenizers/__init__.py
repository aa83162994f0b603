from .chord_tokenizer import ChordTokenizer, ChordDetokenizer
from .tokenizer import MusicLangTokenizer
from .bpe_tokenizer import MusicLangBPETokenizer
from .template_extractor import midi_file_to_template, score_to_template
