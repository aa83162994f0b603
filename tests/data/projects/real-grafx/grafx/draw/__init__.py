from .graph import draw_grafx
