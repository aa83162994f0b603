from .annotations import (
    ClassifyOutput,
    DASPick,
    Detection,
    DetectionList,
    Pick,
    PickList,
)
from .arraytools import pad_packed_sequence, torch_detrend
from .auxiliary import in_notebook, MissingOptionalDependency
from .decorators import log_lifecycle
from .file import (
    callback_if_uncached,
    download_ftp,
    download_http,
    ls_webdav,
    precheck_url,
    safe_extract_tar,
)
from .torch_helpers import worker_seeding
from .trace_ops import (
    fdsn_get_bulk_safe,
    rotate_stream_to_zne,
    stream_to_array,
    trace_has_spikes,
    waveform_id_to_network_station_location,
)

__all__ = [
    "worker_seeding",
    "ClassifyOutput",
    "DASPick",
    "Detection",
    "DetectionList",
    "MissingOptionalDependency",
    "Pick",
    "PickList",
    "pad_packed_sequence",
    "torch_detrend",
    "in_notebook",
    "log_lifecycle",
    "callback_if_uncached",
    "download_ftp",
    "download_http",
    "ls_webdav",
    "precheck_url",
    "safe_extract_tar",
    "fdsn_get_bulk_safe",
    "rotate_stream_to_zne",
    "stream_to_array",
    "trace_has_spikes",
    "waveform_id_to_network_station_location",
]
