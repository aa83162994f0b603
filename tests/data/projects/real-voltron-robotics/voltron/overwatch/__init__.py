from .overwatch import OverwatchRich
