from .score import Score
