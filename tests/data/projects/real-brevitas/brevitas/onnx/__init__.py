# Copyright (C) 2023, Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause

# for retrocompatibility

from brevitas.export import enable_debug  # noqa
from brevitas.export import export_brevitas_onnx  # noqa
from brevitas.export import export_onnx_qcdq  # noqa
from brevitas.export import export_qonnx  # noqa
