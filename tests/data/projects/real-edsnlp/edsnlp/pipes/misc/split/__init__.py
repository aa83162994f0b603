from .split import Split
