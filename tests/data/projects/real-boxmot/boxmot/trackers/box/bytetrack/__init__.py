"""ByteTrack box-tracker implementation package."""
