from humming.jit.runtime import KernelRuntime

__all__ = ["KernelRuntime"]
