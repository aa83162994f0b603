from embetter.finetune._forward import FeedForwardTuner
from embetter.finetune._contrastive_tuner import ContrastiveTuner
from embetter.finetune._constrastive_learn import ContrastiveLearner
from embetter.finetune._sbert_learn import SbertLearner


__all__ = ["FeedForwardTuner", "ContrastiveTuner", "SbertLearner", "ContrastiveLearner"]
