from .proc_manager import ProcessorManager

__all__ = ["ProcessorManager"]
