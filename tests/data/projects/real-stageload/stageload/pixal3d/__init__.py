"""Run Pixal3D-mac with one stage's weights in memory at a time."""
