__all__ = ["contact", "embedding", "interaction"]
