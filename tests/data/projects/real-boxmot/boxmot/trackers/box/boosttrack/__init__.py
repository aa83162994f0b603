"""BoostTrack box-tracker implementation package."""
