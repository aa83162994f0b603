from .commands import evaluate
