from typing import Any

import numpy as np

NDArray = np.ndarray[Any, Any]
