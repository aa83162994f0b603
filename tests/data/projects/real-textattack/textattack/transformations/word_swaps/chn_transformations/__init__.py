"""
chinese_transformations package
-----------------------------------

"""

from textattack.transformations.word_swaps.word_swap import WordSwap
from .chinese_homophone_character_swap import ChineseHomophoneCharacterSwap
from .chinese_morphonym_character_swap import ChineseMorphonymCharacterSwap
from .chinese_word_swap_masked import ChineseWordSwapMaskedLM
from .chinese_word_swap_hownet import ChineseWordSwapHowNet
