from fastrag.rankers.bi_encoder_ranker import BiEncoderSimilarityRanker
from fastrag.rankers.colbert import ColBERTRanker
from fastrag.rankers.ipex_bi_encoder_ranker import IPEXBiEncoderSimilarityRanker

__all__ = [
    "BiEncoderSimilarityRanker",
    "IPEXBiEncoderSimilarityRanker",
]
