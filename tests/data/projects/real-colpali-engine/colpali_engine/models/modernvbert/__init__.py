from .bimodernvbert import BiModernVBert, BiModernVBertProcessor
from .colmodernvbert import ColModernVBert, ColModernVBertProcessor
