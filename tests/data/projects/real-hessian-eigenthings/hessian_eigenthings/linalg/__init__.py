from hessian_eigenthings.linalg.backend import LinAlgBackend, SingleDeviceBackend

__all__ = ["LinAlgBackend", "SingleDeviceBackend"]
