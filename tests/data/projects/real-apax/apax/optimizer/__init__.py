from apax.optimizer.get_optimizer import get_opt

__all__ = ["get_opt"]
