"""Text processing for MyanmarTTS (Burmese only)."""
from .symbols import symbols

_symbol_to_id = {s: i for i, s in enumerate(symbols)}
_id_to_symbol = {i: s for i, s in enumerate(symbols)}


def cleaned_text_to_sequence(cleaned_text):
    return [_symbol_to_id[s] for s in cleaned_text if s in _symbol_to_id]


def sequence_to_text(sequence):
    return ''.join(_id_to_symbol[i] for i in sequence if i in _id_to_symbol)


SPACE_ID = symbols.index(" ")
