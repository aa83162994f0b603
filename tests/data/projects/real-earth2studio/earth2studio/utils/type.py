# SPDX-FileCopyrightText: Copyright (c) 2024-2026 NVIDIA CORPORATION & AFFILIATES.
# SPDX-FileCopyrightText: All rights reserved.
# SPDX-License-Identifier: Apache-2.0
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
# http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# --8<-- [start:type-aliases]
from collections import OrderedDict
from datetime import timedelta

import numpy as np

FrameSchema = OrderedDict[str, np.ndarray]
CoordSystem = OrderedDict[str, np.ndarray]

# Specific dimension custom types
VariableArray = np.ndarray[str]
LeadTimeArray = np.ndarray[np.timedelta64]
TimeArray = np.ndarray[np.datetime64]
FieldArray = np.ndarray[str]

TimeTolerance = (
    timedelta
    | np.timedelta64
    | tuple[timedelta, timedelta]
    | tuple[np.timedelta64, np.timedelta64]
)
# --8<-- [end:type-aliases]
