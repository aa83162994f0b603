"""mira: a multiplayer world model for Rocket League.

The :mod:`mira.data` submodule loads the 4-player dataset — time-aligned video frames,
keyboard actions, game events, and per-frame physics across all 4 co-temporal player perspectives.
"""
