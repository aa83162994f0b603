"""
"Learning To Write"
--------------------------

"""

from .learning_to_write import LearningToWriteLanguageModel
