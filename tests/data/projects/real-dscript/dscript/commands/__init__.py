__all__ = [
    "train",
    "evaluate",
    "embed",
    "predict_serial",
    "predict_block",
    "predict_bipartite",
    "extract_3di",
]
