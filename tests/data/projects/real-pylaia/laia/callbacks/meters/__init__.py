from laia.callbacks.meters.sequence_error import SequenceError, char_to_word_seq
from laia.callbacks.meters.timer import Timer
