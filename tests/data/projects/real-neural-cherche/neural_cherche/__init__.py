__all__ = ["losses", "models", "retrieve", "rank", "train", "utils"]
