from .aq2009 import (
    AQ2009GM,
    AQ2009Counts,
)
from .base import (
    AbstractBenchmarkDataset,
    BenchmarkDataset,
    Bucketer,
    GeometricBucketer,
    MultiWaveformDataset,
    WaveformBenchmarkDataset,
    WaveformDataset,
    WaveformDataWriter,
)
from .bohemia import BohemiaSaxony
from .ceed import CEED
from .crew import CREW
from .cwa import CWA, CWANoise
from .das_base import (
    DASDataset,
    DASBenchmarkDataset,
    DASDataWriter,
    MultiDASDataset,
    RandomDASDataset,
)
from .dummy import (
    ChunkedDummyDataset,
    DummyDataset,
)
from .esm import ESM25GoodMP, ESM25BadCV, ESM25GoodCV, ESM25SpectraMP
from .ethz import ETHZ
from .eqsdenoiser import EQSDenoiserEvents, EQSDenoiserNoise, EQSDenoiserCombined
from .geofon import GEOFON
from .instance import (
    InstanceCounts,
    InstanceCountsCombined,
    InstanceGM,
    InstanceNoise,
)
from .iquique import Iquique
from .isc_ehb import ISC_EHB_DepthPhases
from .lendb import LenDB
from .lfe_stacks import (
    LFEStacksCascadiaBostock2015,
    LFEStacksMexicoFrank2014,
    LFEStacksSanAndreasShelly2017,
)
from .mlsubdas import MLSubDAS
from .neic import MLAAPDE, NEIC
from .obs import OBS
from .obst2024 import OBST2024
from .pisdl import PiSDL
from .pnw import (
    PNW,
    PNWAccelerometers,
    PNWExotic,
    PNWNoise,
)
from .scedc import (
    SCEDC,
    Meier2019JGR,
    Ross2018GPD,
    Ross2018JGRFM,
    Ross2018JGRPick,
)
from .spectra_base import SpectrumDataset, SpectrumBenchmarkDataset
from .stead import STEAD
from .txed import TXED
from .vcseis import VCSEIS

try:
    from .inspection import DatasetInspection
except ImportError:
    pass

__all__ = [
    "AbstractBenchmarkDataset",
    "BenchmarkDataset",
    "WaveformBenchmarkDataset",
    "Bucketer",
    "GeometricBucketer",
    "MultiWaveformDataset",
    "WaveformDataset",
    "WaveformDataWriter",
    "DASDataset",
    "DASDataWriter",
    "DASBenchmarkDataset",
    "MultiDASDataset",
    "RandomDASDataset",
    "AQ2009GM",
    "AQ2009Counts",
    "CEED",
    "CREW",
    "CWA",
    "CWANoise",
    "ChunkedDummyDataset",
    "DummyDataset",
    "ESM25BadCV",
    "ESM25GoodCV",
    "ESM25GoodMP",
    "ESM25SpectraMP",
    "ETHZ",
    "EQSDenoiserEvents",
    "EQSDenoiserNoise",
    "EQSDenoiserCombined",
    "GEOFON",
    "InstanceCounts",
    "InstanceCountsCombined",
    "InstanceGM",
    "InstanceNoise",
    "Iquique",
    "ISC_EHB_DepthPhases",
    "LenDB",
    "LFEStacksCascadiaBostock2015",
    "LFEStacksMexicoFrank2014",
    "LFEStacksSanAndreasShelly2017",
    "MLAAPDE",
    "MLSubDAS",
    "NEIC",
    "OBS",
    "OBST2024",
    "PiSDL",
    "PNW",
    "PNWAccelerometers",
    "PNWExotic",
    "PNWNoise",
    "SCEDC",
    "SpectrumDataset",
    "SpectrumBenchmarkDataset",
    "Meier2019JGR",
    "Ross2018GPD",
    "Ross2018JGRFM",
    "Ross2018JGRPick",
    "STEAD",
    "TXED",
    "VCSEIS",
    "BohemiaSaxony",
    "DatasetInspection",
]
