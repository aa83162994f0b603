"""
Implementation of N-BEATS model blocks and utilities.
"""

from pytorch_forecasting.layers._nbeats._blocks import (
    NBEATSBlock,
    NBEATSBlockKAN,
    NBEATSGenericBlock,
    NBEATSGenericBlockKAN,
    NBEATSSeasonalBlock,
    NBEATSSeasonalBlockKAN,
    NBEATSTrendBlock,
    NBEATSTrendBlockKAN,
)

__all__ = [
    "NBEATSBlock",
    "NBEATSGenericBlock",
    "NBEATSSeasonalBlock",
    "NBEATSTrendBlock",
    "NBEATSBlockKAN",
    "NBEATSGenericBlockKAN",
    "NBEATSSeasonalBlockKAN",
    "NBEATSTrendBlockKAN",
]
