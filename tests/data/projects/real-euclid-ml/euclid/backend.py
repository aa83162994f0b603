import json
from pathlib import Path

settings_path = Path(__file__).parent / "settings.json"

with open(settings_path, "r") as f:
    settings = json.load(f)

if settings["device"] == "gpu":
    try:
        import cupy as xp
        import cupyx as xpx

        if not hasattr(xp, "cuda") or not xp.cuda.is_available():
            raise RuntimeError("No GPU devices are available")

        if xp.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("No GPU devices are available")
    except Exception:
        import numpy as xp
        import numpy as xpx
else:
    import numpy as xp
    import numpy as xpx