"""Entry-points for mne-icalabel commands."""
