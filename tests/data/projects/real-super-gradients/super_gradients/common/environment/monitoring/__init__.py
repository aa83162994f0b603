from super_gradients.common.environment.monitoring.monitoring import SystemMonitor

__all__ = ["SystemMonitor"]
