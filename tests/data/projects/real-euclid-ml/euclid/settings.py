import json
from pathlib import Path

import numpy as np


class BackendProxy:
    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        backend = globals()["_backend"]
        return getattr(backend, attr)

    def __call__(self, *args, **kwargs):
        return globals()["_backend"](*args, **kwargs)

    def __repr__(self):
        return repr(globals()["_backend"])


device = "cpu"
_backend = np
_backend_xpx = np


def _load_config():
    config_path = Path(__file__).with_name("settings.json")
    if config_path.exists():
        try:
            with config_path.open("r", encoding="utf-8") as fh:
                data = json.load(fh)
            return data.get("device", "cpu").lower()
        except Exception:
            return "cpu"
    return "cpu"


def set_backend(selected_device=None):
    global _backend, _backend_xpx, device, xp, xpx, dtype

    chosen = (selected_device or _load_config() or "cpu").lower()

    if chosen == "gpu":
        try:
            import cupy as cp
            import cupyx as cpx

            _backend = cp
            _backend_xpx = cpx
            device = "gpu"
        except Exception:
            _backend = np
            _backend_xpx = np
            device = "cpu"
    else:
        _backend = np
        _backend_xpx = np
        device = "cpu"

    dtype = _backend.float32
    globals()["xp"] = BackendProxy("xp")
    globals()["xpx"] = BackendProxy("xpx")


set_backend()

xp = BackendProxy("xp")
xpx = BackendProxy("xpx")

