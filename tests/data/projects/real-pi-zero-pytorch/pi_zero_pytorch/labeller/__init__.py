from pi_zero_pytorch.labeller.app import create_app
from pi_zero_pytorch.labeller.main import main

__all__ = ["create_app", "main"]
