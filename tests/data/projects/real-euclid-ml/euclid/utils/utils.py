from euclid.settings import xp
from euclid.core.tensor import Tensor
import euclid.settings as settings


def to_numpy(x):
    if isinstance(x, Tensor):
        x = x.data

    if hasattr(x, "get"):
        return x.get()

    if hasattr(x, "toarray"):
        return x.toarray()

    if getattr(settings._backend, "__name__", "") == "cupy":
        try:
            return settings._backend.asnumpy(x)
        except Exception:
            return x

    return x


def to_xp(x):
    if isinstance(x, Tensor):
        return x.data

    return settings.xp.asarray(x)


def change_precision(dtype):
    if dtype not in (settings._backend.float16, settings._backend.float32, settings._backend.float64):
        raise ValueError(
            f"Unsupported precision: {dtype}. "
            "Expected float16, float32, or float64."
        )

    settings.dtype = dtype
    print(f"Successfully changed precision to {dtype}")


def change_device(device):
    import os
    import platform

    device = device.lower()

    if device == "cpu":
        settings.set_backend("cpu")
        print("=" * 50)
        print("Successfully changed device")
        print("Backend: NumPy")
        print("Device: CPU")
        print("NumPy version:", settings._backend.__version__)
        print("CPU:", platform.processor())
        print("CPU cores:", os.cpu_count())
        print("=" * 50)

    elif device == "gpu":
        settings.set_backend("gpu")
        if getattr(settings._backend, "__name__", "") != "cupy":
            print("GPU requested, but CuPy is unavailable; falling back to CPU.")
            return

        gpu = settings._backend.cuda.Device()
        properties = settings._backend.cuda.runtime.getDeviceProperties(gpu.id)

        name = properties["name"]
        if isinstance(name, bytes):
            name = name.decode()

        free, total = settings._backend.cuda.runtime.memGetInfo()

        print("=" * 50)
        print("Successfully changed device")
        print("Backend: CuPy")
        print("Device: GPU")
        print("GPU ID:", gpu.id)
        print("GPU:", name)
        print("CuPy version:", settings._backend.__version__)
        print(
            f"VRAM: {free / 1024**3:.2f} GB free / {total / 1024**3:.2f} GB"
        )
        print("=" * 50)

    else:
        raise ValueError(
            f"Unknown device '{device}'. "
            "Expected 'cpu' or 'gpu'."
        )