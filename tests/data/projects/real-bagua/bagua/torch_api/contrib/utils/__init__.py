__all__ = ["redis_store", "store"]
