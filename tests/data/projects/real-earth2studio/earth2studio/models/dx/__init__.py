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

from earth2studio.models.dx.base import DiagnosticModel
from earth2studio.models.dx.cbottle_infill import CBottleInfill  # noqa
from earth2studio.models.dx.cbottle_sr import CBottleSR  # noqa
from earth2studio.models.dx.cbottle_tc import CBottleTCGuidance  # noqa
from earth2studio.models.dx.climatenet import ClimateNet  # noqa
from earth2studio.models.dx.corrdiff import (
    CorrDiff,
    CorrDiffTaiwan,
)
from earth2studio.models.dx.corrdiff_cmip6 import CorrDiffCMIP6
from earth2studio.models.dx.corrdiff_cosmo_era5 import CorrDiffCosmoEra5
from earth2studio.models.dx.corrdiff_era5_hrrr import CorrDiffEra5Hrrr
from earth2studio.models.dx.derived import (
    DerivedRH,
    DerivedRHDewpoint,
    DerivedSurfacePressure,
    DerivedTCWV,
    DerivedVPD,
    DerivedWS,
)
from earth2studio.models.dx.dlesym_v0_isccp_era5_precip import (
    DLESyMv0_ISCCP_ERA5Precip,  # noqa
)
from earth2studio.models.dx.identity import Identity  # noqa
from earth2studio.models.dx.orbit2_precip import OrbitGlobalPrecip  # noqa
from earth2studio.models.dx.precipitation_afno import PrecipitationAFNO  # noqa
from earth2studio.models.dx.precipitation_afno_v2 import PrecipitationAFNOv2  # noqa
from earth2studio.models.dx.solarradiation_afno import (
    SolarRadiationAFNO1H,
    SolarRadiationAFNO6H,
)
from earth2studio.models.dx.stormscope_dx_nsrdb import StormScopeDxNSRDB
from earth2studio.models.dx.tc_tracking import (
    TCTrackerVitart,
    TCTrackerWuDuan,
)
from earth2studio.models.dx.wind_gust import WindgustAFNO  # noqa

__all__ = [
    "ClimateNet",
    "CorrDiff",
    "CorrDiffCMIP6",
    "CorrDiffCosmoEra5",
    "CorrDiffEra5Hrrr",
    "CorrDiffTaiwan",
    "DLESyMv0_ISCCP_ERA5Precip",
    "PrecipitationAFNO",
    "PrecipitationAFNOv2",
    "SolarRadiationAFNO1H",
    "SolarRadiationAFNO6H",
    "StormScopeDxNSRDB",
    "WindgustAFNO",
    "OrbitGlobalPrecip",
]
