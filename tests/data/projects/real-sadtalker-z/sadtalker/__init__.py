from .aiy import SadTalkerTask, SadTalkerArgs
