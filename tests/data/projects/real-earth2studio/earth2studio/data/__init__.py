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

from .ace2 import ACE2ERA5Data
from .arco import ARCO, ARCO_ERA5
from .base import DataSource, ForecastSource
from .cams import CAMS_FX
from .camulator import CAMulatorForcing
from .cbottle import CBottle3D
from .cds import CDS, CDS_ERA5
from .cfs import CFS_FX, CFS_FX_Flux
from .cfs_reforecast import CFS_Reforecast_FX, CFS_Reforecast_FX_Flux
from .cmip6 import CMIP6, CMIP6MultiRealm
from .const import Constant, Constant_FX
from .dynamical import (
    DynamicalAIFS,
    DynamicalAIFS_ENS,
    DynamicalAIFS_FX,
    DynamicalAIFSENS_FX,
    DynamicalGEFS,
    DynamicalGEFS_FX,
    DynamicalGFS,
    DynamicalGFS_FX,
    DynamicalHRRR,
    DynamicalHRRR_FX,
    DynamicalICON_EU_FX,
    DynamicalIFS_ENS,
    DynamicalIFS_ENS_FX,
    DynamicalMRMS,
)
from .earthmover import (
    EarthMoverBrightBandIFS,
    EarthMoverBrightBandIFS_FX,
    EarthMoverERA5,
)
from .ecmwf import AIFS_ENS_FX, AIFS_FX, IFS, IFS_ENS, IFS_ENS_FX, IFS_FX
from .gdas import NomadsGDASObsConv
from .gefs import GEFS_FX, GEFS_FX_721x1440
from .gfs import GFS, GFS_FX
from .ghcn import GHCNDaily, GHCNHourly
from .goes import GOES
from .goes_glm import GOESGLM, GOESGLMGrid
from .himawari_ahi import HimawariAHI
from .hrrr import HRRR, HRRR_FX
from .ibtracs import IBTrACS
from .iem import IEM_ASOS
from .isd import ISD
from .jpss import JPSS
from .jpss_atms import JPSS_ATMS
from .jpss_cris import JPSS_CRIS
from .meteosat_fci import MeteosatFCI
from .meteosat_li import MeteosatLI
from .metop_amsua import MetOpAMSUA
from .metop_avhrr import MetOpAVHRR
from .metop_iasi import MetOpIASI
from .metop_mhs import MetOpMHS
from .mrms import MRMS
from .ncar import NCAR_ERA5
from .nclimgrid import NClimGridDaily
from .nnja import NNJAObsConv, NNJAObsSat, NNJAObsSatwnd
from .opera import OPERA
from .planetary_computer import (
    PlanetaryComputerECMWFOpenDataIFS,
    PlanetaryComputerGOES,
    PlanetaryComputerMODISFire,
    PlanetaryComputerOISST,
    PlanetaryComputerSentinel3AOD,
)
from .rand import Random, Random_FX, RandomDataFrame
from .rx import CosineSolarZenith, LandSeaMask, SurfaceGeoPotential
from .samudrace import SamudrACEData, SamudrACEForcingData
from .time_window import TimeWindow
from .ufs import UFSObsConv, UFSObsSat
from .utils import datasource_to_file, fetch_data, fetch_dataframe, prep_data_array
from .wb2 import WB2ERA5, WB2Climatology, WB2ERA5_32x64, WB2ERA5_121x240
from .xr import (
    DataArrayDirectory,
    DataArrayFile,
    DataArrayPathList,
    DataSetFile,
    InferenceOutputSource,
)
