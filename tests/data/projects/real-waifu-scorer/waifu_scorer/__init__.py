from waifu_scorer.predict import WaifuScorer

__all__ = [
    "WaifuScorer",
]
