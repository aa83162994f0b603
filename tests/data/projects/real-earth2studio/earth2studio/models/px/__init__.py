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

import warnings

from earth2studio.models.px.ace2 import ACE2ERA5
from earth2studio.models.px.aifs import AIFS
from earth2studio.models.px.aifs2 import AIFS2
from earth2studio.models.px.aifs2ens import AIFS2ENS
from earth2studio.models.px.aifsens import AIFSENS
from earth2studio.models.px.atlas import Atlas
from earth2studio.models.px.atlas_crps import AtlasCRPS
from earth2studio.models.px.aurora import Aurora
from earth2studio.models.px.aurora1p5 import (
    Aurora1p5,
    Aurora1p5_6h,
    Aurora1p5Ensemble,
    Aurora1p5Ensemble_6h,
)
from earth2studio.models.px.base import PrognosticModel
from earth2studio.models.px.camulator import CAMulator
from earth2studio.models.px.cbottle_video import CBottleVideo
from earth2studio.models.px.datareplay import DataReplay
from earth2studio.models.px.dlesym import DLESyM, DLESyMLatLon
from earth2studio.models.px.dlesym_v0_isccp_era5 import (
    DLESyMv0_ISCCP_ERA5,
    DLESyMv0_ISCCP_ERA5LatLon,
)
from earth2studio.models.px.dlwp import DLWP
from earth2studio.models.px.dxwrapper import DiagnosticWrapper
from earth2studio.models.px.fcn import FCN
from earth2studio.models.px.fcn3 import FCN3
from earth2studio.models.px.fengwu import FengWu
from earth2studio.models.px.fuxi import FuXi
from earth2studio.models.px.fuxi_s2s import FuXiS2S
from earth2studio.models.px.gencast_mini import GenCastMini
from earth2studio.models.px.graphcast_operational import GraphCastOperational
from earth2studio.models.px.graphcast_small import GraphCastSmall
from earth2studio.models.px.interpmodafno import InterpModAFNO
from earth2studio.models.px.pangu import Pangu3, Pangu6, Pangu24
from earth2studio.models.px.persistence import Persistence
from earth2studio.models.px.samudrace import SamudrACE
from earth2studio.models.px.sfno import SFNO
from earth2studio.models.px.stormcast import StormCast
from earth2studio.models.px.stormcastconus import StormCastCONUS
from earth2studio.models.px.stormscope import (
    StormScopeGOES,
    StormScopeMRMS,
)
from earth2studio.models.px.stormscope_meteosat import StormScopeMeteosatEU
from earth2studio.models.px.ucast import UCast
from earth2studio.models.px.weathernext2_cyclones import (
    WeatherNext2Cyclones,
    WeatherNext2CyclonesMini,
)

# Silence warning spam from various models
warnings.filterwarnings("ignore")
warnings.filterwarnings("ignore", category=FutureWarning)
