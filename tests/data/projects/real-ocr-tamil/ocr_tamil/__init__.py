__all__ = ["craft_text_detector", "strhub", "configs"]
