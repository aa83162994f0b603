"""clip inference"""

from .main import main as clip_inference
