"""A TensorFlow 2.6 CUDA build that chatters on stdout at import, as native libraries do.

The build info is the one conda-forge/tensorflow-feedstock#157 printed for its CUDA 11.2 build;
the chatter is a real TensorFlow log line, written to fd 1 the way C++ code would.
"""

import os
from collections import OrderedDict

_LOG = "I tensorflow/stream_executor/platform/default/dso_loader.cc:48] Successfully opened dynamic library"
os.write(1, (_LOG + " libcudart.so.10.1\n").encode())

__version__ = "2.6.0"
_COMPILER = (
    "/home/conda/feedstock_root/build_artifacts/tensorflow-split_1635580013918"
    "/_build_env/bin/x86_64-conda-linux-gnu-gcc"
)
_ARCHS = ["sm_35", "sm_50", "sm_60", "sm_62", "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "compute_86"]


class sysconfig:
    @staticmethod
    def get_build_info():
        return OrderedDict(
            [
                ("cpu_compiler", _COMPILER),
                ("cuda_compute_capabilities", _ARCHS),
                ("cuda_version", "11.2"),
                ("cudnn_version", "8"),
                ("is_cuda_build", True),
                ("is_rocm_build", False),
                ("is_tensorrt_build", False),
            ]
        )


class config:
    @staticmethod
    def list_physical_devices(device_type=None):
        return []
