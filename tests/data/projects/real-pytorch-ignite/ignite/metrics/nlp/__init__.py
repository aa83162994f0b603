from ignite.metrics.nlp.bleu import Bleu
from ignite.metrics.nlp.character_error_rate import CharacterErrorRate
from ignite.metrics.nlp.perplexity import Perplexity
from ignite.metrics.nlp.rouge import Rouge, RougeL, RougeN

__all__ = [
    "Bleu",
    "CharacterErrorRate",
    "Perplexity",
    "Rouge",
    "RougeN",
    "RougeL",
]
