from jamba.model import JambaBlock, Jamba

__all__ = ["JambaBlock", "Jamba"]
