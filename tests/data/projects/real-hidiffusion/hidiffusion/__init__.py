from .hidiffusion import apply_hidiffusion, remove_hidiffusion

__all__ = ["apply_hidiffusion", "remove_hidiffusion"]
