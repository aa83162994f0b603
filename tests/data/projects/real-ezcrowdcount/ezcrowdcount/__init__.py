"""Crowd Counting Configuration File."""
WEIGHTS_LINK = (
    "https://drive.google.com/file/d/11mn3mxxLkBXr4vMl_ApCBm9pWh_q2uqq/view?usp=sharing"
)
IMG_SIZE = (300, 300)
