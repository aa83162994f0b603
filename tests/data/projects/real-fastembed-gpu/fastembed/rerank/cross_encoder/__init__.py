from fastembed.rerank.cross_encoder.text_cross_encoder import TextCrossEncoder

__all__ = ["TextCrossEncoder"]
