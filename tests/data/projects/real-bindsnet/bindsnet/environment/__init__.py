from bindsnet.environment.environment import Environment, GymEnvironment

__all__ = ["Environment", "GymEnvironment"]
