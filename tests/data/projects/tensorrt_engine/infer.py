"""Serves a TensorRT engine built on the A100 fleet."""

import numpy as np
import tensorrt as trt

LOGGER = trt.Logger(trt.Logger.WARNING)


def load(path: str) -> "trt.ICudaEngine":
    with open(path, "rb") as handle, trt.Runtime(LOGGER) as runtime:
        return runtime.deserialize_cuda_engine(handle.read())


def run(engine: "trt.ICudaEngine", batch: np.ndarray) -> np.ndarray:
    context = engine.create_execution_context()
    return np.asarray(context.execute_v2([batch]))
