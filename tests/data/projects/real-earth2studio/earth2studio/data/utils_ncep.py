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

from __future__ import annotations

import math
import pathlib
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
from loguru import logger

from earth2studio.data.utils import radiance_to_bt, table_to_dataframe
from earth2studio.data.utils_bufr import (
    HDR_DHR,
    HDR_ELV,
    HDR_SID,
    HDR_TYP,
    HDR_XOB,
    HDR_YOB,
    MNEMONIC_TO_DESCR,
    OBS_CAT,
    OBS_HRDR,
    OBS_POB,
    OBS_PQM,
    OBS_QUALITY_MAP,
    OBS_UOB,
    OBS_VOB,
    OBS_WQM,
    OBS_XDR,
    OBS_YDR,
    OBS_ZOB,
    OBSERVATION_DESCR_IDS,
    PREPBUFR_OBS_TYPES,
)
from earth2studio.data.utils_bufr import create_decoder as _create_decoder
from earth2studio.data.utils_bufr import (
    parse_prepbufr_messages as _parse_prepbufr_messages,
)
from earth2studio.data.utils_bufr import silence_bufr_noise as _silence_bufr_noise
from earth2studio.data.utils_ir import (
    CRIS_BANDS,
    cris_radiance_mw,
    iasi_radiance_mw,
    wavenumber_cm_inverse,
)
from earth2studio.lexicon.base import E2STUDIO_SCHEMA, LexiconType

# GPS RO BUFR descriptor IDs (NCEP gpsro encoding). GPSRO is not a PrepBUFR
# conventional report, so conventional semantics do not apply: there is no TYP
# report type (the decoder stores receiver SAID in the shared ``type`` column,
# matching GSI/UFS diagnostics) and no 0-15 quality mark (QFRO, a WMO/NCEP
# radio-occultation flag table, is stored in ``quality`` for schema uniformity
# and must not be read as a conventional QM).
GPSRO_SAID = 1007
GPSRO_PTID = 1050
GPSRO_QFRO = 33039
GPSRO_ELRC = 10035
GPSRO_GEODU = 10036
GPSRO_LAT = 5001
GPSRO_LON = 6001
GPSRO_YEAR = 4001
GPSRO_MONTH = 4002
GPSRO_DAY = 4003
GPSRO_HOUR = 4004
GPSRO_MIN = 4005
GPSRO_SEC = 4006
GPSRO_MEFR = 2121
GPSRO_IMPP = 7040
GPSRO_BNDA = 15037
GPSRO_HEIT = 7007
GPSRO_ARFR = 15036


NCEP_CONVENTIONAL_PUBLIC_SCHEMA = pa.schema(
    [
        E2STUDIO_SCHEMA.field("time"),
        pa.field(
            "pres",
            pa.float32(),
            nullable=True,
            metadata={
                "description": (
                    "Observation pressure coordinate (Pa); null for "
                    "source-native GPSRO rows"
                )
            },
        ),
        pa.field(
            "elev",
            pa.float32(),
            nullable=True,
            metadata={
                "description": (
                    "Observation height (m); GPSRO bending-angle rows use impact "
                    "parameter minus Earth radius of curvature, refractivity rows "
                    "the level's geometric height (HEIT)"
                )
            },
        ),
        pa.field(
            "type",
            pa.uint16(),
            nullable=True,
            metadata={
                "description": (
                    "PrepBUFR report type for conventional rows; GPSRO "
                    "receiver satellite identifier (SAID)"
                )
            },
        ),
        pa.field(
            "level_cat",
            pa.uint16(),
            nullable=True,
            metadata={"description": "PrepBUFR CAT level category"},
        ),
        E2STUDIO_SCHEMA.field("class"),
        E2STUDIO_SCHEMA.field("lat"),
        E2STUDIO_SCHEMA.field("lon"),
        E2STUDIO_SCHEMA.field("station"),
        E2STUDIO_SCHEMA.field("station_elev"),
        pa.field(
            "quality",
            pa.uint16(),
            nullable=True,
            metadata={
                "description": (
                    "PrepBUFR quality mark for conventional rows; QFRO flag "
                    "table for GPSRO rows"
                )
            },
        ),
        pa.field(
            "pressure_quality",
            pa.uint16(),
            nullable=True,
            metadata={"description": "PrepBUFR pressure quality mark (PQM)"},
        ),
        pa.field(
            "radius_curvature",
            pa.float64(),
            nullable=True,
            metadata={
                "description": (
                    "GPSRO local Earth radius of curvature (ELRC, m); null for "
                    "other rows"
                )
            },
        ),
        pa.field(
            "geoid_undulation",
            pa.float64(),
            nullable=True,
            metadata={
                "description": "GPSRO geoid undulation (GEODU, m); null for other rows"
            },
        ),
        E2STUDIO_SCHEMA.field("observation"),
        E2STUDIO_SCHEMA.field("variable"),
    ]
)


_ACFT_PROFILE_SCALAR_TYPE_MAP = {
    330: 130,
    430: 130,
    530: 130,
    331: 131,
    431: 131,
    531: 131,
    332: 132,
    432: 132,
    532: 132,
    333: 133,
    433: 133,
    533: 133,
    334: 134,
    434: 134,
    534: 134,
    335: 135,
    435: 135,
    535: 135,
}

_ACFT_PROFILE_WIND_TYPE_MAP = {
    source_type: target_type + 100
    for source_type, target_type in _ACFT_PROFILE_SCALAR_TYPE_MAP.items()
}

_NULL_FLOAT_DTYPES: dict[str, type[np.floating[Any]]] = {
    "pres": np.float32,
    "elev": np.float32,
    "station_elev": np.float32,
    "radius_curvature": np.float64,
    "geoid_undulation": np.float64,
    "lat": np.float32,
    "lon": np.float32,
    "observation": np.float32,
}


def _message_base_time(message: Any) -> datetime | None:
    """Read a BUFR Section 1 reference date without edition-3 second leakage."""
    try:
        edition = int(message.edition.value)
        year = int(message.year.value)
        if edition == 3:
            # Edition 3 stores a 2-digit year (year of century); expand to
            # 4-digit, pivoting at 70 (>=70 -> 19xx, <70 -> 20xx).
            if year < 100:
                year += 2000 if year < 70 else 1900
            second = 0
        else:
            second = int(message.second.value)
        return datetime(
            year,
            int(message.month.value),
            int(message.day.value),
            int(message.hour.value),
            int(message.minute.value),
            second,
        )
    except (AttributeError, TypeError, ValueError, OverflowError):
        return None


def _round_ratio(numerator: int, denominator: int) -> int:
    """Round an integer ratio to nearest, with halves away from zero."""
    sign = -1 if numerator < 0 else 1
    quotient, remainder = divmod(abs(numerator), denominator)
    if remainder * 2 >= denominator:
        quotient += 1
    return sign * quotient


def _time_from_offset(
    base_time: datetime, offset_hours: Any, scale: int
) -> datetime | None:
    """Add a decoded hour offset at its embedded descriptor precision."""
    if offset_hours is None:
        return None
    try:
        offset = Decimal(str(offset_hours))
        if not offset.is_finite():
            return None
        ticks_per_hour = 10**scale
        ticks = int((offset * ticks_per_hour).to_integral_value(rounding=ROUND_HALF_UP))
        microseconds = _round_ratio(ticks * 3_600_000_000, ticks_per_hour)
        return base_time + timedelta(microseconds=microseconds)
    except (InvalidOperation, OverflowError, TypeError, ValueError):
        return None


def _descriptor_scale(
    table_b: dict[int, tuple[Any, ...]], descriptor_id: int, default: int
) -> int:
    entry = table_b.get(descriptor_id)
    if entry is None or len(entry) < 3:
        return default
    try:
        return int(entry[2])
    except (TypeError, ValueError):
        return default


def _decode_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("ascii", errors="replace").strip()
    return str(value).strip()


def _decode_prepbufr_message(
    decoder: Any,
    message_bytes: bytes,
    obs_class: str,
    var_keys: Sequence[tuple[str, str]],
    dt_min: datetime,
    dt_max: datetime,
    dhr_scale: int,
    hrdr_scale: int,
) -> list[dict[str, Any]]:
    try:
        message = decoder.process(message_bytes)
    except Exception:
        return []
    if not message.n_subsets.value:
        return []
    base_time = _message_base_time(message)
    if base_time is None:
        return []

    template_data = message.template_data.value
    rows: list[dict[str, Any]] = []
    for descriptors, values in zip(
        template_data.decoded_descriptors_all_subsets,
        template_data.decoded_values_all_subsets,
    ):
        rows.extend(
            _extract_prepbufr_subset(
                descriptors,
                values,
                base_time,
                obs_class,
                var_keys,
                dt_min,
                dt_max,
                dhr_scale,
                hrdr_scale,
            )
        )
    return rows


def _extract_prepbufr_subset(
    descriptors: list[Any],
    values: list[Any],
    base_time: datetime,
    obs_class: str,
    var_keys: Sequence[tuple[str, str]],
    dt_min: datetime,
    dt_max: datetime,
    dhr_scale: int = 5,
    hrdr_scale: int = 5,
) -> list[dict[str, Any]]:
    """Extract first-event observations from CAT-delimited physical levels."""
    header: dict[str, Any] = {
        "sid": "",
        "xob": None,
        "yob": None,
        "dhr": 0.0,
        "elv": None,
        "typ": None,
    }
    for descriptor, value in zip(descriptors, values):
        descriptor_id = descriptor.id
        if descriptor_id == HDR_SID:
            header["sid"] = _decode_text(value)
        elif descriptor_id == HDR_XOB:
            header["xob"] = value
        elif descriptor_id == HDR_YOB:
            header["yob"] = value
        elif descriptor_id == HDR_DHR:
            header["dhr"] = value if value is not None else 0.0
        elif descriptor_id == HDR_ELV:
            header["elv"] = value
        elif descriptor_id == HDR_TYP:
            header["typ"] = value
        elif descriptor_id == OBS_CAT:
            break

    header_time = _time_from_offset(base_time, header["dhr"], dhr_scale) or base_time
    needed_ids: dict[str, int] = {}
    need_wind = False
    for variable, key in var_keys:
        if key.startswith("wind::"):
            need_wind = True
        elif key in MNEMONIC_TO_DESCR:
            needed_ids[variable] = MNEMONIC_TO_DESCR[key]

    base_row: dict[str, Any] = {
        "time": header_time,
        "lat": np.float32(header["yob"]) if header["yob"] is not None else None,
        "lon": (
            np.float32(float(header["xob"]) % 360.0)
            if header["xob"] is not None
            else None
        ),
        "pres": None,
        "elev": None,
        "type": np.uint16(int(header["typ"])) if header["typ"] is not None else None,
        "class": obs_class or None,
        "station": header["sid"] or None,
        "station_elev": (
            np.float32(header["elv"]) if header["elv"] is not None else None
        ),
        "quality": None,
        "pressure_quality": None,
    }

    # PrepBUFR repeats CAT blocks; each CAT starts a new physical level. Within a
    # level keep only the first occurrence of each descriptor (the observation);
    # later repeats are event-stack history, not new observations.
    rows: list[dict[str, Any]] = []
    level: dict[int, Any] = {}
    in_level = False
    for descriptor, value in zip(descriptors, values):
        descriptor_id = descriptor.id
        if descriptor_id == OBS_CAT:
            if in_level:
                _emit_prepbufr_level(
                    rows,
                    level,
                    base_row,
                    base_time,
                    dt_min,
                    dt_max,
                    hrdr_scale,
                    needed_ids,
                    need_wind,
                    var_keys,
                )
            level = {OBS_CAT: value}
            in_level = True
        elif in_level and descriptor_id in OBSERVATION_DESCR_IDS:
            level.setdefault(descriptor_id, value)
    if in_level:
        _emit_prepbufr_level(
            rows,
            level,
            base_row,
            base_time,
            dt_min,
            dt_max,
            hrdr_scale,
            needed_ids,
            need_wind,
            var_keys,
        )
    return rows


def _emit_prepbufr_level(
    rows: list[dict[str, Any]],
    level: dict[int, Any],
    base_row: dict[str, Any],
    base_time: datetime,
    dt_min: datetime,
    dt_max: datetime,
    hrdr_scale: int,
    needed_ids: dict[str, int],
    need_wind: bool,
    var_keys: Sequence[tuple[str, str]],
) -> None:
    common = base_row.copy()
    level_time = _time_from_offset(base_time, level.get(OBS_HRDR), hrdr_scale)
    if level_time is not None:
        common["time"] = level_time
    if common["time"] < dt_min or common["time"] > dt_max:
        return

    level_lat = level.get(OBS_YDR)
    level_lon = level.get(OBS_XDR)
    if level_lat is not None:
        common["lat"] = np.float32(level_lat)
    if level_lon is not None:
        common["lon"] = np.float32(float(level_lon) % 360.0)
    if common["lat"] is None or common["lon"] is None:
        return
    lat = float(common["lat"])
    lon = float(common["lon"])
    if not np.isfinite(lat) or not np.isfinite(lon) or not -90.0 <= lat <= 90.0:
        return

    pressure = level.get(OBS_POB)
    common["pres"] = np.float32(pressure) if pressure is not None else None
    # ZOB is the observation level's height; header ELV remains station_elev.
    height = level.get(OBS_ZOB)
    if height is not None:
        common["elev"] = np.float32(height)
    pressure_quality = level.get(OBS_PQM)
    common["pressure_quality"] = (
        np.uint16(int(pressure_quality)) if pressure_quality is not None else None
    )
    level_cat = level.get(OBS_CAT)
    common["level_cat"] = np.uint16(int(level_cat)) if level_cat is not None else None

    for variable, descriptor_id in needed_ids.items():
        value = level.get(descriptor_id)
        if value is None:
            continue
        row = common.copy()
        row["variable"] = variable
        row["observation"] = np.float32(value)
        quality_id = OBS_QUALITY_MAP.get(descriptor_id)
        quality = level.get(quality_id) if quality_id is not None else None
        row["quality"] = np.uint16(int(quality)) if quality is not None else None
        rows.append(row)

    if not need_wind:
        return
    # Wind decomposition: u from UOB, v from VOB, sharing WQM. Each component is
    # emitted independently so a level with only one of UOB/VOB still yields a row.
    wind_quality_value = level.get(OBS_WQM)
    wind_quality = (
        np.uint16(int(wind_quality_value)) if wind_quality_value is not None else None
    )
    for variable, key in var_keys:
        descriptor_id = OBS_UOB if key == "wind::u" else OBS_VOB
        if key not in {"wind::u", "wind::v"}:
            continue
        value = level.get(descriptor_id)
        if value is None:
            continue
        row = common.copy()
        row["variable"] = variable
        row["observation"] = np.float32(value)
        row["quality"] = wind_quality
        rows.append(row)


def _decode_gpsro_message(
    decoder: Any,
    message_bytes: bytes,
    wanted_descrs: dict[int, str],
    dt_min: datetime,
    dt_max: datetime,
) -> list[dict[str, Any]]:
    try:
        message = decoder.process(message_bytes)
    except Exception:
        return []
    if not message.n_subsets.value:
        return []
    template_data = message.template_data.value
    rows: list[dict[str, Any]] = []
    for descriptors, values in zip(
        template_data.decoded_descriptors_all_subsets,
        template_data.decoded_values_all_subsets,
    ):
        rows.extend(
            _extract_gpsro_subset(descriptors, values, wanted_descrs, dt_min, dt_max)
        )
    return rows


def _extract_gpsro_subset(
    descriptors: list[Any],
    values: list[Any],
    wanted_descrs: dict[int, str],
    dt_min: datetime,
    dt_max: datetime,
) -> list[dict[str, Any]]:
    """Extract the requested per-level fields from one occultation.

    ``BNDA`` (bending angle) rows take the MEFR=0 first-slot value with
    ``elev`` = impact parameter minus Earth radius of curvature and the level's
    tangent point, or the occultation's reference point where the level has none.
    ``ARFR`` (refractivity) rows take the first-slot value with ``elev`` = the
    level's ``HEIT`` at the reference point. Both leave ``pres`` null and carry the
    occultation's ``ELRC``/``GEODU``; no vertical coordinate is derived.
    """
    sat_id: Any = None
    transmitter_id: Any = None
    quality_flag: Any = None
    radius: float | None = None
    geoid: float | None = None
    lat: float | None = None
    lon: float | None = None
    year = month = day = hour = minute = None
    second = 0.0
    for descriptor, value in zip(descriptors, values):
        descriptor_id = descriptor.id
        if descriptor_id == GPSRO_SAID:
            sat_id = value
        elif descriptor_id == GPSRO_PTID:
            transmitter_id = value
        elif descriptor_id == GPSRO_QFRO:
            quality_flag = value
        elif descriptor_id == GPSRO_ELRC and value is not None:
            radius = float(value)
        elif descriptor_id == GPSRO_GEODU and value is not None:
            geoid = float(value)
        # The occultation reference point is the first CLATH/CLONH; later ones,
        # still ahead of the first IMPP, belong to the first level.
        elif descriptor_id == GPSRO_LAT and value is not None and lat is None:
            lat = float(value)
        elif descriptor_id == GPSRO_LON and value is not None and lon is None:
            lon = float(value)
        elif descriptor_id == GPSRO_YEAR and value is not None:
            year = int(value)
        elif descriptor_id == GPSRO_MONTH and value is not None:
            month = int(value)
        elif descriptor_id == GPSRO_DAY and value is not None:
            day = int(value)
        elif descriptor_id == GPSRO_HOUR and value is not None:
            hour = int(value)
        elif descriptor_id == GPSRO_MIN and value is not None:
            minute = int(value)
        elif descriptor_id == GPSRO_SEC and value is not None:
            try:
                second = float(value)
            except (TypeError, ValueError):
                second = 0.0
        elif descriptor_id == GPSRO_IMPP:
            break

    if lat is None or lon is None or year is None or month is None or day is None:
        return []
    try:
        if not np.isfinite(second):
            return []
        obs_time = datetime(year, month, day, hour or 0, minute or 0) + timedelta(
            seconds=second
        )
    except (TypeError, ValueError, OverflowError):
        return []
    if obs_time < dt_min or obs_time > dt_max:
        return []

    # GSI setupref.f90 writes the GPSRO station id as ``(2(i4.4))``: zero-padded
    # receiver SAID followed by transmitter PTID.
    station = (
        f"{int(sat_id):04d}{int(transmitter_id):04d}"
        if sat_id is not None and transmitter_id is not None
        else None
    )
    current_impact: float | None = None
    current_frequency: float | None = None
    current_lat: float = lat
    current_lon: float = lon
    current_height: float | None = None
    bnda_slot = 0
    arfr_slot = 0
    rows: list[dict[str, Any]] = []

    def make_row(
        variable: str, row_lat: float, row_lon: float, elev: float
    ) -> dict[str, Any]:
        return {
            "time": obs_time,
            "lat": np.float32(row_lat),
            "lon": np.float32(row_lon % 360.0),
            "pres": None,
            "elev": np.float32(elev),
            # GPSRO has no conventional TYP; store receiver SAID in this
            # shared numeric type column (matches GSI/UFS diagnostics).
            "type": np.uint16(int(sat_id)) if sat_id is not None else None,
            "level_cat": None,
            "class": "GPSRO",
            "station": station,
            "station_elev": None,
            # QFRO is a GPSRO flag table stored in ``quality`` for a uniform
            # column; it is not a PrepBUFR quality mark.
            "quality": (
                np.uint16(int(quality_flag)) if quality_flag is not None else None
            ),
            "pressure_quality": None,
            "radius_curvature": radius,
            "geoid_undulation": geoid,
            "observation": None,
            "variable": variable,
        }

    # Each frequency block lays out MEFR -> IMPP -> two BNDA per frequency; count
    # slots, not values: BNDA #1 is the observation, BNDA #2 is its error. The
    # refractivity block lays out HEIT -> two ARFR (value, error) the same way.
    for descriptor, value in zip(descriptors, values):
        descriptor_id = descriptor.id
        if descriptor_id == GPSRO_BNDA:
            bnda_slot += 1
        elif descriptor_id == GPSRO_ARFR:
            arfr_slot += 1
        if value is None:
            if descriptor_id == GPSRO_LAT:
                current_lat = lat
            elif descriptor_id == GPSRO_LON:
                current_lon = lon
            elif descriptor_id == GPSRO_IMPP:
                current_impact = None
            elif descriptor_id == GPSRO_MEFR:
                current_frequency = None
                bnda_slot = 0
            elif descriptor_id == GPSRO_HEIT:
                current_height = None
                arfr_slot = 0
            continue
        if descriptor_id == GPSRO_LAT:
            current_lat = float(value)
            continue
        if descriptor_id == GPSRO_LON:
            current_lon = float(value)
            continue
        if descriptor_id == GPSRO_MEFR:
            current_frequency = float(value)
            bnda_slot = 0
            continue
        if descriptor_id == GPSRO_IMPP:
            current_impact = float(value)
            continue
        if descriptor_id == GPSRO_HEIT:
            current_height = float(value)
            arfr_slot = 0
            continue
        if descriptor_id not in wanted_descrs:
            continue
        try:
            observation = float(value)
        except (TypeError, ValueError):
            continue
        if not np.isfinite(observation):
            continue
        if descriptor_id == GPSRO_ARFR:
            if arfr_slot != 1 or current_height is None:
                continue
            # Refractivity levels carry no per-level position; use the
            # occultation's reference point.
            row = make_row(wanted_descrs[descriptor_id], lat, lon, current_height)
            row["observation"] = np.float32(observation)
            rows.append(row)
            continue
        if descriptor_id != GPSRO_BNDA:
            continue
        # MEFR == 0 is the ionosphere-corrected (frequency-combined) angle; take
        # only its first BNDA slot (the observation, not the error).
        if current_frequency is None or round(current_frequency) != 0 or bnda_slot != 1:
            continue
        if current_impact is None or radius is None:
            continue
        # Impact height = impact parameter - local radius of curvature.
        row = make_row(
            wanted_descrs[descriptor_id],
            current_lat,
            current_lon,
            current_impact - radius,
        )
        row["observation"] = np.float32(observation)
        rows.append(row)
    return rows


def empty_dataframe(
    schema: pa.Schema = NCEP_CONVENTIONAL_PUBLIC_SCHEMA,
) -> pd.DataFrame:
    """Return an empty DataFrame with typed columns matching ``schema``."""
    # Build typed empty columns (not object-dtype ``None``) so ``pd.concat`` does
    # not emit "all-NA columns" FutureWarnings when frames from different
    # sub-archives are concatenated.
    columns: dict[str, pd.Series[Any]] = {}
    for field in schema:
        if pa.types.is_timestamp(field.type):
            dtype: Any = "datetime64[ns]"
        elif pa.types.is_float32(field.type):
            dtype = np.float32
        elif pa.types.is_float64(field.type):
            dtype = np.float64
        elif pa.types.is_unsigned_integer(field.type):
            dtype = pd.ArrowDtype(field.type)
        else:
            dtype = object
        columns[field.name] = pd.Series(dtype=dtype)
    return pd.DataFrame(columns)


def _finalize_rows(
    rows: list[dict[str, Any]] | pd.DataFrame,
    variables: Mapping[str, Callable[[pd.DataFrame], pd.DataFrame]],
    *,
    convert_pres_mb_to_pa: bool,
    schema: pa.Schema = NCEP_CONVENTIONAL_PUBLIC_SCHEMA,
) -> pd.DataFrame:
    if isinstance(rows, pd.DataFrame):
        if rows.empty:
            return empty_dataframe(schema)
        frame = rows.copy()
    elif rows:
        frame = pd.DataFrame(rows)
    else:
        return empty_dataframe(schema)

    result_frames: list[pd.DataFrame] = []
    for variable, modifier in variables.items():
        variable_frame = frame.loc[frame["variable"] == variable].copy()
        if not variable_frame.empty:
            result_frames.append(modifier(variable_frame))
    if not result_frames:
        return empty_dataframe(schema)
    frame = pd.concat(result_frames, ignore_index=True)

    # PrepBUFR levels carry POB in mb; convert the schema pressure column to Pa
    # for consistency with the lexicon's ``pres`` observation conversion.
    if convert_pres_mb_to_pa and "pres" in frame:
        frame["pres"] = (frame["pres"].astype(np.float32) * 100.0).astype(np.float32)
    frame["time"] = pd.to_datetime(frame["time"])

    for field in schema:
        if field.name in frame:
            continue
        float_dtype = _NULL_FLOAT_DTYPES.get(field.name)
        if float_dtype is not None:
            frame[field.name] = np.full(len(frame), np.nan, dtype=float_dtype)
        elif pa.types.is_timestamp(field.type):
            frame[field.name] = pd.Series(
                pd.NaT, index=frame.index, dtype="datetime64[ns]"
            )
        elif pa.types.is_unsigned_integer(field.type):
            frame[field.name] = pd.Series(
                pd.NA, index=frame.index, dtype=pd.ArrowDtype(field.type)
            )
        else:
            frame[field.name] = pd.Series([None] * len(frame), dtype=object)

    for field in schema:
        if pa.types.is_timestamp(field.type):
            frame[field.name] = pd.to_datetime(frame[field.name])
        elif pa.types.is_unsigned_integer(field.type):
            frame[field.name] = pd.to_numeric(
                frame[field.name], errors="coerce"
            ).astype(pd.ArrowDtype(field.type))
        elif pa.types.is_float32(field.type):
            frame[field.name] = pd.to_numeric(
                frame[field.name], errors="coerce"
            ).astype(np.float32)
        elif pa.types.is_float64(field.type):
            frame[field.name] = pd.to_numeric(
                frame[field.name], errors="coerce"
            ).astype(np.float64)
    return frame[schema.names]


def map_aircraft_profile_types(frame: pd.DataFrame) -> pd.DataFrame:
    """Map profile report types by scalar versus wind variable family."""
    if frame.empty:
        return frame
    output = frame.copy()
    wind = output["variable"].isin(["u", "v"])
    output.loc[wind, "type"] = output.loc[wind, "type"].replace(
        _ACFT_PROFILE_WIND_TYPE_MAP
    )
    output.loc[~wind, "type"] = output.loc[~wind, "type"].replace(
        _ACFT_PROFILE_SCALAR_TYPE_MAP
    )
    return output


_worker_decoder: Any = None


def _init_decode_worker(
    table_b: dict[int, tuple[Any, ...]], table_d: dict[int, tuple[Any, ...]]
) -> None:
    global _worker_decoder  # noqa: PLW0603
    _worker_decoder = _create_decoder(table_b, table_d)


def _prepbufr_worker(
    message_bytes: bytes,
    obs_class: str,
    var_keys: Sequence[tuple[str, str]],
    dt_min: datetime,
    dt_max: datetime,
    dhr_scale: int,
    hrdr_scale: int,
) -> list[dict[str, Any]]:
    with _silence_bufr_noise():
        return _decode_prepbufr_message(
            _worker_decoder,
            message_bytes,
            obs_class,
            var_keys,
            dt_min,
            dt_max,
            dhr_scale,
            hrdr_scale,
        )


def _gpsro_worker(
    message_bytes: bytes,
    wanted_descrs: dict[int, str],
    dt_min: datetime,
    dt_max: datetime,
) -> list[dict[str, Any]]:
    with _silence_bufr_noise():
        return _decode_gpsro_message(
            _worker_decoder, message_bytes, wanted_descrs, dt_min, dt_max
        )


def decode_prepbufr(
    path: str,
    plan: Mapping[str, tuple[str, Callable[[pd.DataFrame], pd.DataFrame]]],
    dt_min: datetime,
    dt_max: datetime,
    decode_workers: int = 8,
    exclude_message_types: Collection[str] = (),
) -> pd.DataFrame:
    """Decode a merged NCEP PrepBUFR file into a DataFrame.

    Parameters
    ----------
    path : str
        Local path to the PrepBUFR file.
    plan : Mapping
        Variable decode plan: ``{variable: (mnemonic_key, modifier)}``.
    dt_min, dt_max : datetime
        Time window for observation filtering.
    decode_workers : int
        Number of parallel decode processes (1 disables multiprocessing).
    exclude_message_types : Collection[str]
        PrepBUFR message families (e.g. ``"SATWND"``) whose messages are skipped
        without decoding.
    """
    decode_workers = max(1, decode_workers)
    var_keys = [(variable, key) for variable, (key, _) in plan.items()]
    modifiers = {variable: modifier for variable, (_, modifier) in plan.items()}
    with open(path, "rb") as file:
        file_data = file.read()
    table_b, table_d, messages = _parse_prepbufr_messages(file_data, silence_noise=True)
    dhr_scale = _descriptor_scale(table_b, HDR_DHR, 5)
    hrdr_scale = _descriptor_scale(table_b, OBS_HRDR, 5)
    work_items = [
        (message_bytes, PREPBUFR_OBS_TYPES[data_category])
        for message_bytes, data_category in messages
        if data_category in PREPBUFR_OBS_TYPES
        and PREPBUFR_OBS_TYPES[data_category] not in exclude_message_types
    ]
    if not work_items:
        return empty_dataframe()

    rows: list[dict[str, Any]] = []
    use_parallel = decode_workers > 1 and len(work_items) >= 32
    started = time.perf_counter()
    if use_parallel:
        with ProcessPoolExecutor(
            max_workers=decode_workers,
            initializer=_init_decode_worker,
            initargs=(table_b, table_d),
        ) as pool:
            futures = [
                pool.submit(
                    _prepbufr_worker,
                    message_bytes,
                    obs_class,
                    var_keys,
                    dt_min,
                    dt_max,
                    dhr_scale,
                    hrdr_scale,
                )
                for message_bytes, obs_class in work_items
            ]
            for future in futures:
                try:
                    rows.extend(future.result())
                except Exception as error:
                    logger.debug(f"PrepBUFR worker failed: {error}")
    else:
        decoder = _create_decoder(table_b, table_d)
        for message_bytes, obs_class in work_items:
            rows.extend(
                _decode_prepbufr_message(
                    decoder,
                    message_bytes,
                    obs_class,
                    var_keys,
                    dt_min,
                    dt_max,
                    dhr_scale,
                    hrdr_scale,
                )
            )
    logger.debug(
        f"Decoded {len(rows):,} PrepBUFR rows in {time.perf_counter() - started:.1f}s"
    )
    return _finalize_rows(
        rows,
        modifiers,
        convert_pres_mb_to_pa=True,
    )


def decode_gpsro(
    path: str,
    plan: Mapping[str, tuple[str | int, Callable[[pd.DataFrame], pd.DataFrame]]],
    dt_min: datetime,
    dt_max: datetime,
    decode_workers: int = 8,
) -> pd.DataFrame:
    """Decode an NCEP GPSRO bending-angle BUFR file into a DataFrame.

    Parameters
    ----------
    path : str
        Local path to the GPSRO BUFR file.
    plan : Mapping
        Variable decode plan: ``{variable: (descriptor_id, modifier)}``.
    dt_min, dt_max : datetime
        Time window for observation filtering.
    decode_workers : int
        Number of parallel decode processes (1 disables multiprocessing).
    """
    decode_workers = max(1, decode_workers)
    wanted_descrs = {int(key): variable for variable, (key, _) in plan.items()}
    modifiers = {variable: modifier for variable, (_, modifier) in plan.items()}
    with open(path, "rb") as file:
        file_data = file.read()
    table_b, table_d, messages = _parse_prepbufr_messages(file_data, silence_noise=True)
    if not messages:
        return empty_dataframe()
    rows: list[dict[str, Any]] = []
    use_parallel = decode_workers > 1 and len(messages) >= 32
    if use_parallel:
        with ProcessPoolExecutor(
            max_workers=decode_workers,
            initializer=_init_decode_worker,
            initargs=(table_b, table_d),
        ) as pool:
            futures = [
                pool.submit(
                    _gpsro_worker,
                    message_bytes,
                    wanted_descrs,
                    dt_min,
                    dt_max,
                )
                for message_bytes, _data_category in messages
            ]
            for future in futures:
                try:
                    rows.extend(future.result())
                except Exception as error:
                    logger.debug(f"GPSRO worker failed: {error}")
    else:
        decoder = _create_decoder(table_b, table_d)
        for message_bytes, _data_category in messages:
            rows.extend(
                _decode_gpsro_message(
                    decoder, message_bytes, wanted_descrs, dt_min, dt_max
                )
            )
    return _finalize_rows(
        rows,
        modifiers,
        convert_pres_mb_to_pa=False,
    )


# ──────────────────────────────────────────────────────────────────────────
# Shared NCEP observation request helpers. Keep these as stateless utilities:
# concrete data sources own transport/cache state and pass callables in where
# source-specific behavior is needed.
# ──────────────────────────────────────────────────────────────────────────

_NCEPObsModifier = Callable[[pd.DataFrame], pd.DataFrame]
# Decode plan: variable id -> (route-specific decode key, post-decode modifier).
# The key is the raw string after the lexicon "route::" prefix; each adapter
# interprets it (PrepBUFR mnemonic, or GPS RO descriptor id parsed to int).
_NCEPPlan = Mapping[str, tuple[str, _NCEPObsModifier]]


@dataclass(frozen=True)
class NCEPObsTask:
    """One conventional NCEP observation cycle file to fetch and decode."""

    uri: str
    route: str
    datetime_file: datetime
    datetime_min: datetime
    datetime_max: datetime
    var_plan: _NCEPPlan


def plan_conv_tasks(
    windows: Mapping[datetime, tuple[datetime, datetime]],
    variable: list[str],
    lexicon: LexiconType,
    build_uri: Callable[[str, datetime], str],
) -> list[NCEPObsTask]:
    """Partition variables by lexicon route prefix into per-cycle conv tasks.

    Parameters
    ----------
    windows : Mapping[datetime, tuple[datetime, datetime]]
        Cycle datetime -> (min, max) observation-time window, already merged.
    variable : list[str]
        Requested variable ids, routed by their ``"route::key"`` lexicon prefix.
    lexicon : LexiconType
        Source lexicon mapping a variable id to ``("route::key", modifier)``.
    build_uri : Callable[[str, datetime], str]
        Source hook returning the archive URI for a ``(route, cycle)`` pair.

    Returns
    -------
    list[NCEPObsTask]
        One task per ``(route, cycle)``.
    """
    plans: dict[str, dict[str, tuple[str, _NCEPObsModifier]]] = {}
    for v in variable:
        try:
            source_key, modifier = lexicon[v]
        except KeyError:
            logger.error(f"Variable id '{v}' not found in {lexicon.__name__}")
            raise
        route, _, rest = source_key.partition("::")
        plans.setdefault(route, {})[v] = (rest, modifier)

    tasks: list[NCEPObsTask] = []
    for cycle, (tmin, tmax) in windows.items():
        for route, plan in plans.items():
            tasks.append(
                NCEPObsTask(
                    uri=build_uri(route, cycle),
                    route=route,
                    datetime_file=cycle,
                    datetime_min=tmin,
                    datetime_max=tmax,
                    var_plan=plan,
                )
            )
    return tasks


def observation_cycle_times(
    time: datetime,
    tolerance_lower: timedelta,
    tolerance_upper: timedelta,
    cadence: timedelta = timedelta(hours=6),
) -> list[datetime]:
    """Return cadence file times whose observation windows overlap a request.

    Each file timestamp is treated as the end of its observation window, so a
    file at ``T`` may contain observations from ``(T - cadence, T]``. This means
    requests often need the next cycle file as well as the cycle at or before
    the requested time.

    Parameters
    ----------
    time : datetime
        Requested observation timestamp.
    tolerance_lower : timedelta
        Lower tolerance bound relative to ``time``.
    tolerance_upper : timedelta
        Upper tolerance bound relative to ``time``.
    cadence : timedelta, optional
        Cadence between published files, by default ``timedelta(hours=6)``.

    Returns
    -------
    list[datetime]
        Cadence-aligned file timestamps whose backward-looking observation
        windows overlap ``[time + tolerance_lower, time + tolerance_upper]``.

    Raises
    ------
    ValueError
        If ``cadence`` is not positive.
    """
    if cadence <= timedelta(0):
        raise ValueError("cadence must be positive")

    tmin = time + tolerance_lower
    tmax = time + tolerance_upper
    day_start = tmin.replace(hour=0, minute=0, second=0, microsecond=0)
    cycle = day_start + ((tmin - day_start) // cadence) * cadence
    if cycle < tmin:
        cycle += cadence

    cycles: list[datetime] = []
    while cycle < tmax + cadence:
        cycles.append(cycle)
        cycle += cadence
    return cycles


def cycle_windows(
    time_list: list[datetime],
    tolerance_lower: timedelta,
    tolerance_upper: timedelta,
    cadence: timedelta = timedelta(hours=6),
) -> dict[datetime, tuple[datetime, datetime]]:
    """Map cadence file times to merged requested observation windows.

    Parameters
    ----------
    time_list : list[datetime]
        Requested observation timestamps.
    tolerance_lower : timedelta
        Lower tolerance bound relative to each requested timestamp.
    tolerance_upper : timedelta
        Upper tolerance bound relative to each requested timestamp.
    cadence : timedelta, optional
        Cadence between published files, by default ``timedelta(hours=6)``.

    Returns
    -------
    dict[datetime, tuple[datetime, datetime]]
        Mapping from each required cadence file timestamp to the merged
        observation-time window covered by requests for that file.
    """
    windows: dict[datetime, tuple[datetime, datetime]] = {}
    for t in time_list:
        tmin = t + tolerance_lower
        tmax = t + tolerance_upper
        for cycle in observation_cycle_times(
            t, tolerance_lower, tolerance_upper, cadence
        ):
            existing = windows.get(cycle)
            windows[cycle] = (
                (min(existing[0], tmin), max(existing[1], tmax))
                if existing is not None
                else (tmin, tmax)
            )
    return windows


def resolve_output_schema(
    schema: pa.Schema,
    fields: str | list[str] | pa.Schema | None,
    *,
    class_name: str,
) -> pa.Schema:
    """Resolve a requested field subset against a source schema."""
    if fields is None:
        return schema
    if isinstance(fields, str):
        fields = [fields]
    if isinstance(fields, pa.Schema):
        for f in fields:
            if f.name not in schema.names:
                raise KeyError(
                    f"Field '{f.name}' not in {class_name} SCHEMA. "
                    f"Available: {schema.names}"
                )
            expected = schema.field(f.name).type
            if f.type != expected:
                raise TypeError(
                    f"Field '{f.name}' has type {f.type}, expected "
                    f"{expected} from class SCHEMA"
                )
        return fields
    selected = []
    for name in fields:
        if name not in schema.names:
            raise KeyError(
                f"Field '{name}' not in {class_name} SCHEMA. Available: {schema.names}"
            )
        selected.append(schema.field(name))
    return pa.schema(selected)


def compile_dataframe(
    tasks: Sequence[Any],
    schema: pa.Schema,
    source_id: str,
    local_path: Callable[[str], str],
    decode_task: Callable[[str, Any], pd.DataFrame],
    on_error: Callable[[str, int, int, Exception], None] | None = None,
) -> pd.DataFrame:
    """Decode cached task files and concatenate them into a DataFrame.

    Parameters
    ----------
    tasks : Sequence
        Task objects; each must expose a ``.uri`` attribute.
    schema : pa.Schema
        Output schema for column selection and empty-frame creation.
    source_id : str
        Identifier string attached to ``df.attrs["source"]``.
    local_path : Callable[[str], str]
        Maps a URI to its local cache path.
    decode_task : Callable[[str, task], pd.DataFrame]
        Decodes one local file given ``(path, task)``.
    on_error : Callable[[str, int, int, Exception], None] | None
        Optional error callback invoked as ``on_error(uri, idx, n_tasks, exc)``
        when ``decode_task`` raises.  If ``None`` the error is logged and the
        task is skipped.
    """
    frames: list[pd.DataFrame] = []
    n_tasks = len(tasks)
    compile_t0 = time.perf_counter()
    for idx, task in enumerate(tasks, start=1):
        uri = task.uri
        path = local_path(uri)
        if not pathlib.Path(path).is_file():
            logger.warning(f"Cached file missing for {uri}, skipping")
            continue
        short_uri = uri.rsplit("/", 1)[-1]
        logger.info(f"[{source_id}] decode {idx}/{n_tasks} start: {short_uri}")
        t0 = time.perf_counter()
        try:
            df = decode_task(path, task)
        except Exception as exc:  # pragma: no cover - defensive
            if on_error is not None:
                on_error(uri, idx, n_tasks, exc)
            logger.error(f"Failed to decode {path}: {exc}")
            continue
        elapsed = time.perf_counter() - t0
        if df is None or df.empty:
            logger.info(
                f"[{source_id}] decode {idx}/{n_tasks} done : "
                f"{short_uri} (empty) in {elapsed:.1f}s"
            )
            continue
        logger.info(
            f"[{source_id}] decode {idx}/{n_tasks} done : "
            f"{short_uri} ({len(df):,} rows) in {elapsed:.1f}s"
        )
        df.attrs["source"] = source_id
        frames.append(df)

    logger.info(
        f"[{source_id}] compile finished: {len(frames)} non-empty "
        f"frames, total {time.perf_counter() - compile_t0:.1f}s"
    )

    if not frames:
        result = empty_dataframe(schema)
    else:
        result = pd.concat(frames, ignore_index=True)
        result = result[[name for name in schema.names if name in result.columns]]
    result.attrs["source"] = source_id
    return result


# NCEP aggregate microwave BUFR decoding.
_C_CM_S = 2.99792458e10
_DECODE_BATCH_SIZE = 32

_NCEP_SATELLITE_NAME_BY_SAID: dict[int, str] = {
    3: "metop-b",
    4: "metop-a",
    5: "metop-c",
    206: "n15",
    207: "n16",
    208: "n17",
    209: "n18",
    223: "n19",
    224: "npp",
    225: "n20",
    226: "n21",
    # IR sounder platforms
    784: "aqua",  # Aqua AIRS
}
NCEP_MICROWAVE_SATELLITES = frozenset(_NCEP_SATELLITE_NAME_BY_SAID.values())

# BUFR descriptors used by the NCEP aggregate microwave templates.
_SAID = 1007
_YEAR = 4001
_MONTH = 4002
_DAY = 4003
_HOUR = 4004
_MINUTE = 4005
_SECOND = 4006
_SCAN_LINE = 5041
_CHANNEL_NUMBER = 5042
_FOV_NUMBER = 5043
_LAT_HIGH = 5001
_LAT_COARSE = 5002
_LON_HIGH = 6001
_LON_COARSE = 6002
_SATELLITE_ZENITH = 7024
_SOLAR_ZENITH = 7025
_SURFACE_ELEVATION = 10001
_BEARING_OR_AZIMUTH = 5021
_SOLAR_AZIMUTH = 5022
_CHANNEL_FREQUENCY = 2153
_ANTENNA_TEMPERATURE = 12066
_BRIGHTNESS_TEMPERATURE = 12163
_CHANNEL_QUALITY = 33081

_SCALAR_DESCRIPTORS = {
    _SAID,
    _YEAR,
    _MONTH,
    _DAY,
    _HOUR,
    _MINUTE,
    _SECOND,
    _SCAN_LINE,
    _FOV_NUMBER,
    _LAT_HIGH,
    _LAT_COARSE,
    _LON_HIGH,
    _LON_COARSE,
    _SATELLITE_ZENITH,
    _SOLAR_ZENITH,
    _SURFACE_ELEVATION,
    _BEARING_OR_AZIMUTH,
    _SOLAR_AZIMUTH,
}

_CHANNEL_DESCRIPTORS = {
    _CHANNEL_FREQUENCY,
    _ANTENNA_TEMPERATURE,
    _BRIGHTNESS_TEMPERATURE,
    _CHANNEL_QUALITY,
}

_SOURCE_FIELD_DESCRIPTORS = {
    "TMANT": _ANTENNA_TEMPERATURE,
    "TMBR": _BRIGHTNESS_TEMPERATURE,
}

# Signed nominal cross-track geometry. These are the instrument defaults used
# by GSI's ``satstep`` routine, not experiment-specific ``scaninfo`` overrides:
# https://github.com/NOAA-EMC/GSI/blob/860d13740352004fca0136a8c3d0ac9dea30e0da/src/gsi/radinfo.f90#L1523-L1643
_NCEP_MICROWAVE_SCAN_GEOMETRY: dict[str, tuple[float, float]] = {
    "atms": (-52.725, 1.11),
    "amsua": (-48.0 - 1.0 / 3.0, 3.0 + 1.0 / 3.0),
    "amsub": (-48.95, 1.1),
    "mhs": (-445.0 / 9.0, 10.0 / 9.0),
}


class _NCEPMicrowaveDecodeError(RuntimeError):
    def __init__(self, path: str, failed_messages: int, total_messages: int) -> None:
        self.context: dict[str, object] = {
            "path": path,
            "decoded_messages": total_messages - failed_messages,
            "failed_messages": failed_messages,
            "total_messages": total_messages,
        }
        super().__init__(f"Incomplete microwave BUFR decode: {self.context}")


NCEP_MICROWAVE_OUTPUT_SCHEMA = pa.schema(
    [
        E2STUDIO_SCHEMA.field("time"),
        E2STUDIO_SCHEMA.field("class"),
        E2STUDIO_SCHEMA.field("lat"),
        E2STUDIO_SCHEMA.field("lon"),
        E2STUDIO_SCHEMA.field("elev"),
        E2STUDIO_SCHEMA.field("scan_angle"),
        pa.field(
            "scan_position",
            pa.uint16(),
            metadata={"description": "Encoded one-based field-of-view number"},
        ),
        pa.field("scan_line", pa.uint32(), nullable=True),
        E2STUDIO_SCHEMA.field("sensor_index"),
        E2STUDIO_SCHEMA.field("wavenumber"),
        E2STUDIO_SCHEMA.field("solza"),
        E2STUDIO_SCHEMA.field("solaza"),
        E2STUDIO_SCHEMA.field("satellite_za"),
        E2STUDIO_SCHEMA.field("satellite_aza"),
        pa.field(
            "quality",
            pa.uint32(),
            nullable=True,
            metadata={
                "description": (
                    "Encoded channel-quality flags; interpretation is sensor "
                    "and product specific. Microwave: per-channel 0-33-081 "
                    "flags as encoded. AIRS: 24-bit ACQF. CrIS: "
                    "NFQF (bits 0-18) | NCQF<<19 (bits 19-27) for the "
                    "channel's band. IASI: null (mtiasi carries no "
                    "per-channel flag)."
                )
            },
        ),
        E2STUDIO_SCHEMA.field("satellite"),
        E2STUDIO_SCHEMA.field("observation"),
        E2STUDIO_SCHEMA.field("variable"),
    ]
)


def _as_float(value: Any) -> float:
    if value is None:
        return np.nan
    try:
        result = float(value)
    except (TypeError, ValueError):
        return np.nan
    return result if np.isfinite(result) else np.nan


def _as_optional_int(value: Any) -> int | None:
    number = _as_float(value)
    if not np.isfinite(number):
        return None
    return int(round(number))


def _nominal_microwave_scan_angle(sensor: str, scan_position: int) -> float:
    """Return the signed nominal instrument look angle in degrees."""
    try:
        start, step = _NCEP_MICROWAVE_SCAN_GEOMETRY[sensor]
    except KeyError as exc:
        raise ValueError(f"Unsupported NCEP microwave sensor: {sensor}") from exc
    return start + (scan_position - 1) * step


def _observation_time(scalars: Mapping[int, Any]) -> np.datetime64 | None:
    required = (_YEAR, _MONTH, _DAY, _HOUR, _MINUTE, _SECOND)
    if any(descriptor not in scalars for descriptor in required):
        return None
    second = _as_float(scalars[_SECOND])
    if not np.isfinite(second) or second < 0.0 or second >= 61.0:
        return None
    try:
        minute = datetime(
            int(scalars[_YEAR]),
            int(scalars[_MONTH]),
            int(scalars[_DAY]),
            int(scalars[_HOUR]),
            int(scalars[_MINUTE]),
        )
    except (TypeError, ValueError, OverflowError):
        return None

    # Fractional SECO is source data; no per-FOV timing is synthesized.
    second_ns = int(np.rint(second * 1_000_000_000.0))
    return np.datetime64(minute, "ns") + np.timedelta64(second_ns, "ns")


def _decode_microwave_subset(
    descriptors: Sequence[Any],
    values: Sequence[Any],
    sensor: str,
    variable_fields: tuple[tuple[str, int], ...],
    datetime_min: datetime,
    datetime_max: datetime,
    satellites: frozenset[str] | None,
) -> list[dict[str, Any]]:
    """Decode one aggregate microwave subset directly to long rows."""
    scalars: dict[int, Any] = {}
    channels: dict[int, dict[int, Any]] = {}
    current_channel: int | None = None

    for descriptor, value in zip(descriptors, values):
        descriptor_id = int(descriptor.id)
        if descriptor_id == _CHANNEL_NUMBER:
            current_channel = _as_optional_int(value)
            if current_channel is not None:
                channels.setdefault(current_channel, {})
            continue
        if descriptor_id in _CHANNEL_DESCRIPTORS and current_channel is not None:
            channels[current_channel].setdefault(descriptor_id, value)
            continue
        if (
            descriptor_id in _SCALAR_DESCRIPTORS
            and value is not None
            and descriptor_id not in scalars
        ):
            scalars[descriptor_id] = value

    observation_time = _observation_time(scalars)
    satellite_id = _as_optional_int(scalars.get(_SAID))
    scan_position = _as_optional_int(scalars.get(_FOV_NUMBER))
    if (
        observation_time is None
        or satellite_id is None
        or scan_position is None
        or not channels
    ):
        return []
    if observation_time < np.datetime64(
        datetime_min, "ns"
    ) or observation_time > np.datetime64(datetime_max, "ns"):
        return []

    latitude = _as_float(scalars.get(_LAT_HIGH))
    longitude = _as_float(scalars.get(_LON_HIGH))
    if not np.isfinite(latitude) or not np.isfinite(longitude):
        latitude = _as_float(scalars.get(_LAT_COARSE))
        longitude = _as_float(scalars.get(_LON_COARSE))
    if (
        not np.isfinite(latitude)
        or latitude < -90.0
        or latitude > 90.0
        or not np.isfinite(longitude)
    ):
        return []

    satellite = _NCEP_SATELLITE_NAME_BY_SAID.get(
        satellite_id, f"satellite-{satellite_id}"
    )
    if satellites is not None and satellite not in satellites:
        return []

    scalar_values = {
        "time": observation_time,
        "class": "rad",
        "lat": latitude,
        "lon": longitude % 360.0,
        "elev": _as_float(scalars.get(_SURFACE_ELEVATION)),
        "scan_angle": _nominal_microwave_scan_angle(sensor, scan_position),
        "scan_position": scan_position,
        "scan_line": _as_optional_int(scalars.get(_SCAN_LINE)),
        "solza": _as_float(scalars.get(_SOLAR_ZENITH)),
        "solaza": _as_float(scalars.get(_SOLAR_AZIMUTH)),
        "satellite_za": _as_float(scalars.get(_SATELLITE_ZENITH)),
        "satellite_aza": _as_float(scalars.get(_BEARING_OR_AZIMUTH)),
        "satellite": satellite,
    }

    rows: list[dict[str, Any]] = []
    # Dict insertion order is the encoded CHNM order.
    for channel_number in channels:
        channel = channels[channel_number]
        frequency = _as_float(channel.get(_CHANNEL_FREQUENCY))
        channel_values = {
            "sensor_index": channel_number,
            "wavenumber": frequency / _C_CM_S,
            "quality": _as_optional_int(channel.get(_CHANNEL_QUALITY)),
        }
        for variable, source_descriptor in variable_fields:
            observation = _as_float(channel.get(source_descriptor))
            if not np.isfinite(observation):
                continue
            rows.append(
                {
                    **scalar_values,
                    **channel_values,
                    "observation": observation,
                    "variable": variable,
                }
            )
    return rows


def _decode_message_batch(
    arguments: tuple[
        str,
        list[tuple[int, bytes]],
        tuple[tuple[str, int], ...],
        datetime,
        datetime,
        tuple[str, ...] | None,
    ],
) -> tuple[list[dict[str, Any]], int]:
    sensor, messages, variable_fields, datetime_min, datetime_max, satellite_names = (
        arguments
    )
    satellites = frozenset(satellite_names) if satellite_names is not None else None
    if _worker_decoder is None:
        raise RuntimeError("BUFR decoder worker is not initialized")

    rows: list[dict[str, Any]] = []
    failures = 0
    with _silence_bufr_noise():
        for _message_index, message_bytes in messages:
            try:
                message = _worker_decoder.process(message_bytes)
                template_data = message.template_data.value
                descriptors_all = template_data.decoded_descriptors_all_subsets
                values_all = template_data.decoded_values_all_subsets
            except Exception:
                failures += 1
                continue

            for descriptors, values in zip(descriptors_all, values_all):
                rows.extend(
                    _decode_microwave_subset(
                        descriptors,
                        values,
                        sensor,
                        variable_fields,
                        datetime_min,
                        datetime_max,
                        satellites,
                    )
                )
    return rows, failures


# This module's low-cardinality string columns: a handful of platform and
# sensor names per frame, so int8 dictionary indices always suffice
_DICT_STRING_COLUMNS = frozenset({"satellite", "variable", "class"})


def _table_to_dataframe(table: pa.Table) -> pd.DataFrame:
    """Shared Arrow-to-pandas conversion with this module's string policy."""
    return table_to_dataframe(table, dict_string_columns=_DICT_STRING_COLUMNS)


def _rows_to_dataframe(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return _table_to_dataframe(
        pa.Table.from_pylist(rows, schema=NCEP_MICROWAVE_OUTPUT_SCHEMA)
    )


def decode_microwave(
    path: str,
    sensor: str,
    plan: Mapping[str, str],
    datetime_min: datetime,
    datetime_max: datetime,
    satellites: tuple[str, ...] | None = None,
    decode_workers: int = 8,
) -> pd.DataFrame:
    """Decode one NCEP aggregate microwave BUFR file into a DataFrame.

    Parameters
    ----------
    path : str
        Local path to the aggregate microwave BUFR file.
    sensor : str
        Sensor name (``"atms"``, ``"mhs"``, ``"amsua"``, ``"amsub"``).
    plan : Mapping[str, str]
        Variable decode plan: ``{variable: source_field_mnemonic}``.
    datetime_min, datetime_max : datetime
        Time window for observation filtering.
    satellites : tuple[str, ...] | None
        Platform filter; ``None`` includes all.
    decode_workers : int
        Number of parallel decode processes (1 disables multiprocessing).
    """
    decode_workers = max(1, decode_workers)
    variable_fields = tuple(
        (variable, _SOURCE_FIELD_DESCRIPTORS[source_field])
        for variable, source_field in plan.items()
    )
    file_data = pathlib.Path(path).read_bytes()
    table_b, table_d, messages = _parse_prepbufr_messages(file_data, silence_noise=True)
    if not table_b or not table_d:
        raise ValueError(f"Embedded NCEP BUFR tables are missing from {path}")
    indexed_messages = list(enumerate(message for message, _ in messages))
    batches = [
        indexed_messages[index : index + _DECODE_BATCH_SIZE]
        for index in range(0, len(indexed_messages), _DECODE_BATCH_SIZE)
    ]
    arguments = [
        (
            sensor,
            batch,
            variable_fields,
            datetime_min,
            datetime_max,
            satellites,
        )
        for batch in batches
    ]

    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    failures = 0
    if decode_workers > 1 and len(batches) > 1:
        with ProcessPoolExecutor(
            max_workers=min(decode_workers, len(batches)),
            initializer=_init_decode_worker,
            initargs=(table_b, table_d),
        ) as pool:
            # Executor.map preserves input order, so batch assembly remains
            # in exact source-message order even when workers finish out of order.
            for batch_rows, batch_failures in pool.map(
                _decode_message_batch, arguments
            ):
                rows.extend(batch_rows)
                failures += batch_failures
    else:
        _init_decode_worker(table_b, table_d)
        for argument in arguments:
            batch_rows, batch_failures = _decode_message_batch(argument)
            rows.extend(batch_rows)
            failures += batch_failures

    if failures:
        raise _NCEPMicrowaveDecodeError(path, failures, len(messages))
    logger.debug(
        f"Decoded {len(rows):,} {sensor} channel rows in "
        f"{time.perf_counter() - started:.1f}s"
    )
    return _rows_to_dataframe(rows)


# ---------------------------------------------------------------------------
# IR sounder decode (AIRS, IASI, CrIS)
# ---------------------------------------------------------------------------

# BUFR element descriptor IDs for IR sounder aggregate files.
# AIRS:  observation field is TMBR (already brightness temperature)
# IASI:  SCRA (scaled integer radiance, W m⁻² sr⁻¹ m — per unit wavenumber);
#        per-band CHSF exponent
# CrIS:  SRAD (float radiance, W m⁻² sr⁻¹ (cm⁻¹)⁻¹)
_SCRA = 14046  # IASI scaled radiance integer
_SRAD = 14044  # CrIS channel radiance float
_ACQF = 33032  # AIRS channel quality flags (24-bit)
_STCH = 25140  # IASI start-channel for CHSF band
_ENCH = 25141  # IASI end-channel for CHSF band
_CHSF = 25142  # IASI channel scale factor (exponent)
_FORN = 5045  # CrIS field-of-regard number (cross-track, 1-30)
_LOG10_CENTRAL_WAVENUMBER = 25076  # LOGRCW: log10 of centre wavenumber in m⁻¹
_NFQF = 33077  # CrIS noise-figure quality flag (19-bit, per-band ×3)
_NCQF = 33076  # CrIS channel quality flag (9-bit, per-band ×3)

_IR_OBS_DESCRIPTOR: dict[str, int] = {
    "airs": _BRIGHTNESS_TEMPERATURE,
    "iasi": _SCRA,
    "cris": _SRAD,
}

_IR_QUALITY_DESCRIPTOR: dict[str, int] = {
    "airs": _ACQF,
    # mtiasi carries no per-channel flag; the footprint-level QGFQ/QGQI/QGQIL/
    # QGQIR/QGQIS scalars (0-33-060..064) exist but do not fit the per-channel
    # `quality` column.
    "iasi": 0,
    # CrIS quality is handled separately: NFQF (0-33-077) and NCQF (0-33-076)
    # are per-band (×3) and decoded in _decode_ir_subset outside this table.
    "cris": 0,
}


class _NCEPIRSounderDecodeError(RuntimeError):
    # Raised on the first decode batch containing failures, so
    # ``failed_messages`` counts that batch only, not the whole file.
    def __init__(self, path: str, failed_messages: int, total_messages: int) -> None:
        self.context: dict[str, object] = {
            "path": path,
            "failed_messages": failed_messages,
            "total_messages": total_messages,
        }
        super().__init__(
            "Incomplete IR sounder BUFR decode (first failing batch): "
            f"{self.context}"
        )


def _decode_ir_subset(
    descriptors: Sequence[Any],
    values: Sequence[Any],
    sensor: str,
    channels_filter: frozenset[int] | None,
    datetime_min: datetime,
    datetime_max: datetime,
    satellites: frozenset[str] | None,
) -> list[dict[str, Any]]:
    """Decode one BUFR subset (one IR footprint) into long rows."""
    obs_descriptor = _IR_OBS_DESCRIPTOR[sensor]
    quality_descriptor = _IR_QUALITY_DESCRIPTOR[sensor]

    scalars: dict[int, Any] = {}
    # IASI per-band CHSF table: [(start_ch, end_ch, chsf), ...]
    chsf_bands: list[tuple[int, int, int]] = []
    _stch: int | None = None
    _ench: int | None = None

    # CrIS per-band quality flags; crisf4 emits 3 occurrences of NFQF and NCQF
    # (one per band: LW, MW, SW) in the BCFQFSQ block before the channel loop
    cris_nfqf: list[int] = []
    cris_ncqf: list[int] = []

    channels: dict[int, dict[int, Any]] = {}
    current_channel: int | None = None
    in_channel_loop = False
    channel_budget: int | None = None
    channels_seen = 0

    for descriptor, value in zip(descriptors, values):
        did = int(descriptor.id)

        # ---- IASI band scale factor accumulation (header section) ----
        if did == _STCH and not in_channel_loop:
            _stch = _as_optional_int(value)
            continue
        if did == _ENCH and not in_channel_loop:
            _ench = _as_optional_int(value)
            continue
        if did == _CHSF and not in_channel_loop:
            chsf = _as_optional_int(value)
            if _stch is not None and _ench is not None and chsf is not None:
                chsf_bands.append((_stch, _ench, chsf))
            _stch = _ench = None
            continue

        # ---- CrIS per-band quality flags (header section, 3 bands) ----
        if did == _NFQF and not in_channel_loop:
            val = _as_optional_int(value)
            if val is not None:
                cris_nfqf.append(val)
            continue
        if did == _NCQF and not in_channel_loop:
            val = _as_optional_int(value)
            if val is not None:
                cris_ncqf.append(val)
            continue

        # ---- Channel loop markers ----
        # DRF16BIT (0-31-002) opens the sounder channel block. The declared
        # replication count (channel_budget) is the primary terminator:
        # airsev's trailing AMSU-A/HSB blocks reuse the TMBR descriptor and
        # are not always preceded by another marker in the decoded stream.
        # Markers seen after the block opens are explicit backstops on top
        # of the budget: a second 31002 ends the AIRS sounder block, and
        # DRF8BIT (0-31-001) opens crisf4's guard-spectrum block, whose
        # CHNM/SRAD slots must not be decoded as science channels. The
        # second-31002 break is AIRS-only so that a nested replication
        # block added to a future IASI/CrIS product cannot silently
        # truncate footprints.
        if did == 31002:
            if in_channel_loop:
                if sensor == "airs":
                    break
                continue
            in_channel_loop = True
            channel_budget = _as_optional_int(value)
            continue
        if did == 31001 and in_channel_loop:
            # crisf4 guard-spectrum replication (empty in practice; twelve
            # reserved slots, no values observed in the archive)
            break

        # ---- Channel data ----
        if did == _CHANNEL_NUMBER and in_channel_loop:
            channels_seen += 1
            if channel_budget is not None and channels_seen > channel_budget:
                break
            current_channel = _as_optional_int(value)
            if current_channel is not None:
                channels.setdefault(current_channel, {})
            continue

        if in_channel_loop and current_channel is not None:
            if did == obs_descriptor:
                channels[current_channel].setdefault(obs_descriptor, value)
            elif did == _LOG10_CENTRAL_WAVENUMBER:
                channels[current_channel].setdefault(did, value)
            elif quality_descriptor and did == quality_descriptor:
                channels[current_channel].setdefault(quality_descriptor, value)
            continue

        # ---- Scalar header fields ----
        if did in _SCALAR_DESCRIPTORS and value is not None and did not in scalars:
            scalars[did] = value
        elif did == _FORN and value is not None:
            scalars[_FORN] = value  # CrIS field-of-regard

    observation_time = _observation_time(scalars)
    satellite_id = _as_optional_int(scalars.get(_SAID))
    if observation_time is None or satellite_id is None or not channels:
        return []
    if observation_time < np.datetime64(
        datetime_min, "ns"
    ) or observation_time > np.datetime64(datetime_max, "ns"):
        return []

    latitude = _as_float(scalars.get(_LAT_HIGH))
    longitude = _as_float(scalars.get(_LON_HIGH))
    if not np.isfinite(latitude) or not np.isfinite(longitude):
        latitude = _as_float(scalars.get(_LAT_COARSE))
        longitude = _as_float(scalars.get(_LON_COARSE))
    if (
        not np.isfinite(latitude)
        or latitude < -90.0
        or latitude > 90.0
        or not np.isfinite(longitude)
    ):
        return []

    satellite = _NCEP_SATELLITE_NAME_BY_SAID.get(
        satellite_id, f"satellite-{satellite_id}"
    )
    if satellites is not None and satellite not in satellites:
        return []

    # For CrIS, FOVN is the within-FoR detector index (1-9 across the 3×3
    # array); the cross-track position is FORN (1-30). All other sensors use
    # FOVN as the cross-track FOV number, consistent with the scan_position
    # semantics.
    if sensor == "cris":
        scan_position = _as_optional_int(scalars.get(_FORN))
    else:
        scan_position = _as_optional_int(scalars.get(_FOV_NUMBER))
    # scan_position is non-nullable uint16 in the output schema, so a
    # footprint without it cannot be represented; drop the footprint, as the
    # microwave path does
    if scan_position is None:
        return []

    scalar_values = {
        "time": observation_time,
        "class": "rad",
        "lat": latitude,
        "lon": longitude % 360.0,
        "elev": _as_float(scalars.get(_SURFACE_ELEVATION)),
        "scan_angle": np.nan,  # IR scan geometry is sensor-specific; omitted here
        "scan_position": scan_position,
        "scan_line": _as_optional_int(scalars.get(_SCAN_LINE)),
        "solza": _as_float(scalars.get(_SOLAR_ZENITH)),
        "solaza": _as_float(scalars.get(_SOLAR_AZIMUTH)),
        "satellite_za": _as_float(scalars.get(_SATELLITE_ZENITH)),
        "satellite_aza": _as_float(scalars.get(_BEARING_OR_AZIMUTH)),
        "satellite": satellite,
    }

    # Build per-channel CHSF lookup for IASI
    def _iasi_chsf(ch: int) -> int | None:
        for s, e, c in chsf_bands:
            if s <= ch <= e:
                return c
        return None

    # Vectorized conversion: one numpy pass over the footprint's channel
    # vector rather than roughly a dozen numpy entries per channel, which
    # dominated decode cost for the hyperspectral channel counts. Dict
    # insertion order is the encoded CHNM order and is preserved.
    ch_kept = [c for c in channels if channels_filter is None or c in channels_filter]
    if not ch_kept:
        return []
    obs = np.array(
        [_as_float(channels[c].get(obs_descriptor)) for c in ch_kept],
        dtype=np.float64,
    )
    keep = np.isfinite(obs)

    # Convert to brightness temperature. The output wavenumber comes from
    # the instrument grids for IASI/CrIS (also used for the Planck
    # inversion); AIRS has no formulaic grid, so its wavenumber is read
    # from the per-channel LOGRCW field encoded in the aggregate itself
    if sensor == "airs":
        bt = obs  # already Kelvin
        log10_wn = np.array(
            [_as_float(channels[c].get(_LOG10_CENTRAL_WAVENUMBER)) for c in ch_kept],
            dtype=np.float64,
        )
        # LOGRCW is log10 of the central wavenumber in m⁻¹
        with np.errstate(over="ignore", invalid="ignore"):
            wn = np.where(np.isfinite(log10_wn), 10.0**log10_wn / 100.0, np.nan)
    elif sensor == "iasi":
        chsf_list = [_iasi_chsf(ch) for ch in ch_kept]
        has_chsf = np.array([c is not None for c in chsf_list], dtype=bool)
        iasi_skipped_no_chsf = int(np.count_nonzero(keep & ~has_chsf))
        if iasi_skipped_no_chsf:
            # Distinguishes a product with a narrower CHSF band table than
            # expected from a product with no data
            logger.debug(
                f"IASI footprint skipped {iasi_skipped_no_chsf} channel(s) "
                f"outside every CHSF band"
            )
        keep &= has_chsf
        chsf_arr = np.array(
            [c if c is not None else 0 for c in chsf_list], dtype=np.float64
        )
        wn = np.asarray(wavenumber_cm_inverse("iasi", ch_kept), dtype=np.float64)
        bt = radiance_to_bt(iasi_radiance_mw(obs, chsf_arr), wn)
    elif sensor == "cris":
        wn = np.asarray(wavenumber_cm_inverse("cris", ch_kept), dtype=np.float64)
        bt = radiance_to_bt(cris_radiance_mw(obs), wn)
    else:
        return []

    with np.errstate(invalid="ignore"):
        keep &= np.isfinite(bt)
    if not keep.any():
        return []

    # Per-channel quality resolution
    quality_list: list[int | None]
    if sensor == "cris" and cris_nfqf:
        # Resolve each channel to its band (0=LW, 1=MW, 2=SW) and pack that
        # band's flags as NFQF | NCQF<<19. NFQF is 19 bits and NCQF 9, so
        # the packed value is 28 bits and fits the uint32 quality column.
        # NFQF is the flag that fires on real sensor failures such as the
        # NOAA-21 neon event, whose damaged radiances are otherwise finite
        # and physically plausible.
        quality_list = []
        for ch in ch_kept:
            band = next(
                (i for i, (_, lo, hi) in enumerate(CRIS_BANDS) if lo <= ch <= hi),
                None,
            )
            if band is not None and band < len(cris_nfqf):
                ncqf_val = cris_ncqf[band] if band < len(cris_ncqf) else 0
                quality_list.append(cris_nfqf[band] | (ncqf_val << 19))
            else:
                quality_list.append(None)
    elif quality_descriptor:
        quality_list = [
            _as_optional_int(channels[c].get(quality_descriptor)) for c in ch_kept
        ]
    else:
        quality_list = [None] * len(ch_kept)

    rows: list[dict[str, Any]] = []
    for i, channel_number in enumerate(ch_kept):
        if not keep[i]:
            continue
        rows.append(
            {
                **scalar_values,
                "sensor_index": channel_number,
                "wavenumber": float(wn[i]),
                "quality": quality_list[i],
                "observation": float(bt[i]),
                "variable": sensor,
            }
        )
    return rows


def _decode_ir_message_batch(
    arguments: tuple[
        str,
        list[tuple[int, bytes]],
        frozenset[int] | None,
        datetime,
        datetime,
        frozenset[str] | None,
    ],
) -> tuple[pa.Table, int]:
    """Decode one batch of IR messages into a single Arrow table.

    Row dicts are converted to Arrow per message and freed immediately, so
    the worker's peak holds one message's rows rather than the whole batch,
    and the batch crosses the process boundary as Arrow buffers rather than
    a pickled list of per-row dicts (~550 B/row measured).
    """
    (
        sensor,
        indexed_messages,
        channels_filter,
        datetime_min,
        datetime_max,
        satellites,
    ) = arguments
    if _worker_decoder is None:
        # Same contract as the microwave batch worker: a worker-init bug is a
        # programming error, not a per-message decode failure
        raise RuntimeError("BUFR decoder worker is not initialized")
    tables: list[pa.Table] = []
    failures = 0
    for _index, message_bytes in indexed_messages:
        try:
            with _silence_bufr_noise():
                message = _worker_decoder.process(message_bytes)
            if not message.n_subsets.value:
                continue
            td = message.template_data.value
            rows: list[dict[str, Any]] = []
            for descs, vals in zip(
                td.decoded_descriptors_all_subsets,
                td.decoded_values_all_subsets,
            ):
                rows.extend(
                    _decode_ir_subset(
                        descs,
                        vals,
                        sensor,
                        channels_filter,
                        datetime_min,
                        datetime_max,
                        satellites,
                    )
                )
            if rows:
                tables.append(
                    pa.Table.from_pylist(rows, schema=NCEP_MICROWAVE_OUTPUT_SCHEMA)
                )
        except Exception:
            failures += 1
    if tables:
        return pa.concat_tables(tables), failures
    return NCEP_MICROWAVE_OUTPUT_SCHEMA.empty_table(), failures


def _decode_ir_sounder_chunks(
    path: str,
    sensor: str,
    channels: frozenset[int] | None,
    datetime_min: datetime,
    datetime_max: datetime,
    satellites: tuple[str, ...] | None = None,
    decode_workers: int = 8,
) -> Iterator[pa.Table]:
    """Yield one Arrow table per completed decode batch for ``path``.

    Lets callers pipeline decode and downstream work (e.g. concat across
    cycles) without waiting for all batches to finish.  This body contains no
    ``yield``, so argument validation and file I/O run eagerly at call time;
    the returned iterator raises ``_NCEPIRSounderDecodeError`` on the first
    batch containing failed messages, so a consumer that stops early cannot
    silently accept a partial decode.
    """
    if sensor not in _IR_OBS_DESCRIPTOR:
        raise ValueError(
            f"unsupported IR sensor {sensor!r}; valid: {sorted(_IR_OBS_DESCRIPTOR)}"
        )

    decode_workers = max(1, decode_workers)
    file_data = pathlib.Path(path).read_bytes()
    table_b, table_d, messages = _parse_prepbufr_messages(file_data, silence_noise=True)
    if not table_b or not table_d:
        raise ValueError(f"Embedded NCEP BUFR tables missing from {path}")

    sat_filter = frozenset(satellites) if satellites is not None else None
    indexed_messages = list(enumerate(msg for msg, _ in messages))
    batches = [
        indexed_messages[i : i + _DECODE_BATCH_SIZE]
        for i in range(0, len(indexed_messages), _DECODE_BATCH_SIZE)
    ]
    arguments = [
        (sensor, batch, channels, datetime_min, datetime_max, sat_filter)
        for batch in batches
    ]
    return _yield_ir_batches(
        path, arguments, table_b, table_d, len(messages), decode_workers
    )


def _yield_ir_batches(
    path: str,
    arguments: list[
        tuple[
            str,
            list[tuple[int, bytes]],
            frozenset[int] | None,
            datetime,
            datetime,
            frozenset[str] | None,
        ]
    ],
    table_b: dict[int, tuple[Any, ...]],
    table_d: dict[int, tuple[Any, ...]],
    message_count: int,
    decode_workers: int,
) -> Iterator[pa.Table]:
    """Streaming half of ``_decode_ir_sounder_chunks``.

    Raises on the first batch with failures rather than after the last yield,
    so the completeness contract holds even if the consumer stops early.  The
    reported failure count covers the first failing batch, not the whole file.
    """
    if decode_workers > 1 and len(arguments) > 1:
        with ProcessPoolExecutor(
            max_workers=min(decode_workers, len(arguments)),
            initializer=_init_decode_worker,
            initargs=(table_b, table_d),
        ) as pool:
            for batch_table, batch_failures in pool.map(
                _decode_ir_message_batch, arguments
            ):
                if batch_failures:
                    raise _NCEPIRSounderDecodeError(path, batch_failures, message_count)
                if batch_table.num_rows:
                    yield batch_table
    else:
        _init_decode_worker(table_b, table_d)
        for argument in arguments:
            batch_table, batch_failures = _decode_ir_message_batch(argument)
            if batch_failures:
                raise _NCEPIRSounderDecodeError(path, batch_failures, message_count)
            if batch_table.num_rows:
                yield batch_table


def decode_ir_sounder(
    path: str,
    sensor: str,
    channels: frozenset[int] | None,
    datetime_min: datetime,
    datetime_max: datetime,
    satellites: tuple[str, ...] | None = None,
    decode_workers: int = 8,
) -> pd.DataFrame:
    """Decode one NNJA IR sounder aggregate BUFR file into a long-format DataFrame.

    Parameters
    ----------
    path : str
        Local path to the aggregate BUFR file (``airsev``, ``mtiasi``, ``cris``).
    sensor : str
        One of ``"airs"``, ``"iasi"``, ``"cris"``.
    channels : frozenset[int] | None
        Channel numbers to keep; ``None`` keeps all.
    datetime_min, datetime_max : datetime
        Observation time window.
    satellites : tuple[str, ...] | None
        Platform name filter; ``None`` includes all.
    decode_workers : int
        Number of parallel decode worker processes.
    """
    started = time.perf_counter()
    tables = list(
        _decode_ir_sounder_chunks(
            path,
            sensor,
            channels,
            datetime_min,
            datetime_max,
            satellites,
            decode_workers,
        )
    )
    if tables:
        result_table = pa.concat_tables(tables)
    else:
        result_table = NCEP_MICROWAVE_OUTPUT_SCHEMA.empty_table()
    logger.debug(
        f"Decoded {result_table.num_rows:,} {sensor} IR rows in "
        f"{time.perf_counter() - started:.1f}s"
    )
    # Arrow-typed like the microwave path so mixed MW+IR requests concat
    # with one dtype contract (uint16 scan_position, uint32 scan_line, ...)
    return _table_to_dataframe(result_table)


# ─────────────────────────────────────────────────────────────────────
# SATWND (atmospheric motion vector) dumps
# ─────────────────────────────────────────────────────────────────────
# Decode NCEP ``satwnd`` atmospheric-motion-vector BUFR dumps.
#
# The SATWND dump is the raw AMV stream (``NC005xxx`` subsets) before PrepBUFR
# merges and thins it. Each subset is one wind: producer, satellite, channel,
# computation method, a height assignment as pressure, direction/speed, and one or
# more quality-indicator blocks. Layouts differ by producer and era and NCEP-local
# descriptor ids drift between table versions, so fields are resolved by mnemonic
# from each file's embedded Table B.
#
# A field repeated within a template (several ``PRLC`` height assignments, the
# five-slot wind layouts) is read from its first slot that is populated anywhere
# in the message. All subsets of a message share one template, so this picks the
# same slot for every wind; a wind missing that slot stays missing rather than
# being filled from a different slot. No report typing, quality control or
# thinning is applied.


# Standard WMO descriptor ids used when a mnemonic is absent from the file's
# Table B. NCEP-local ids (SWQM, CMCM) drift between table versions and are
# always taken from the file when present.
_STANDARD_IDS: dict[str, int] = {
    "SAID": 1007,
    "GNAP": 1032,
    "GNAPS": 1044,
    "SWCM": 2023,
    "HAMD": 2163,
    "YEAR": 4001,
    "MNTH": 4002,
    "DAYS": 4003,
    "HOUR": 4004,
    "MINU": 4005,
    "SECO": 4006,
    "CLATH": 5001,
    "CLAT": 5002,
    "CLONH": 6001,
    "CLON": 6002,
    "PRLC": 7004,
    "SAZA": 7024,
    "WDIR": 11001,
    "WSPD": 11002,
    "PCCF": 33007,
    "SWQM": 33216,
}
_LOCAL_MNEMONICS = ("CMCM",)
_QUALITY_MNEMONICS = ("GNAP", "GNAPS", "PCCF")
_SCALAR_MNEMONICS = tuple(
    name
    for name in (*_STANDARD_IDS, *_LOCAL_MNEMONICS)
    if name not in _QUALITY_MNEMONICS
)
_SATWND_BATCH_SIZE = 64


def resolve_mnemonics(table_b: Mapping[int, tuple[Any, ...]]) -> dict[str, int]:
    """Mnemonic -> descriptor id from an embedded NCEP Table B, with WMO fallbacks."""
    ids = dict(_STANDARD_IDS)
    known = {*_STANDARD_IDS, *_LOCAL_MNEMONICS}
    for descriptor_id, entry in table_b.items():
        mnemonic = str(entry[0]).split()[0] if entry and entry[0] else ""
        if mnemonic in known:
            ids[mnemonic] = int(descriptor_id)
    return ids


def bufr_local_subcategory(message: bytes) -> int:
    """Section-1 local data subcategory (the ``NC005xxx`` subset number)."""
    edition = message[7]
    return message[17] if edition == 3 else message[20]


# ──────────────────────────────────────────────────────────────────────────
# Output schema
# ──────────────────────────────────────────────────────────────────────────

_QUALITY_LIST = pa.list_(
    pa.struct([("application", pa.uint16()), ("confidence", pa.float32())])
)

NCEP_SATWND_PUBLIC_SCHEMA = pa.schema(
    [
        *NCEP_CONVENTIONAL_PUBLIC_SCHEMA,
        pa.field(
            "satellite_id",
            pa.uint16(),
            nullable=True,
            metadata={"description": "BUFR SAID satellite identifier"},
        ),
        pa.field(
            "subset",
            pa.string(),
            nullable=True,
            metadata={"description": "NCEP dump subset, e.g. NC005030"},
        ),
        pa.field(
            "wind_method",
            pa.uint8(),
            nullable=True,
            metadata={
                "description": (
                    "SWCM satellite-derived wind computation method: 1 IR, 2 VIS, "
                    "3 WV cloud top, 4-7 WV clear-sky/deep-layer"
                )
            },
        ),
        pa.field(
            "wind_method_local",
            pa.uint8(),
            nullable=True,
            metadata={
                "description": (
                    "CMCM, the NCEP-local computation method carried by templates "
                    "that predate SWCM"
                )
            },
        ),
        pa.field(
            "height_method",
            pa.uint8(),
            nullable=True,
            metadata={"description": "HAMD height assignment method"},
        ),
        pa.field(
            "satellite_za",
            pa.float32(),
            nullable=True,
            metadata={
                "description": (
                    "SAZA satellite zenith angle (deg), signed for cross-track "
                    "scanners"
                )
            },
        ),
        pa.field(
            "quality_indicators",
            _QUALITY_LIST,
            nullable=True,
            metadata={
                "description": (
                    "Percent confidence (PCCF) per generating application (GNAP, "
                    "0-01-032); code meanings are producer specific"
                )
            },
        ),
        pa.field(
            "amv_quality_indicators",
            _QUALITY_LIST,
            nullable=True,
            metadata={
                "description": (
                    "Percent confidence (PCCF) per AMV quality-indicator application "
                    "(GNAPS, 0-01-044)"
                )
            },
        ),
    ]
)

_WIND_COLUMNS = (
    "time",
    "lat",
    "lon",
    "pres",
    "quality",
    "satellite_id",
    "subset",
    "wind_method",
    "wind_method_local",
    "height_method",
    "satellite_za",
    "quality_indicators",
    "amv_quality_indicators",
    "u",
    "v",
)


# ──────────────────────────────────────────────────────────────────────────
# Message decode
# ──────────────────────────────────────────────────────────────────────────


def _populated(value: Any) -> bool:
    if value is None:
        return False
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def _scan_subset(
    descriptors: list[Any], values: list[Any], ids: Mapping[str, int]
) -> tuple[dict[str, list[Any]], dict[int, float], dict[int, float]]:
    """Every occurrence of each scalar mnemonic, plus GNAP/GNAPS -> PCCF maps."""
    names = {ids[name]: name for name in _SCALAR_MNEMONICS if name in ids}
    id_gnap, id_gnaps, id_pccf = ids["GNAP"], ids["GNAPS"], ids["PCCF"]
    occurrences: dict[str, list[Any]] = {}
    gnap: dict[int, float] = {}
    gnaps: dict[int, float] = {}
    pending: dict[int, float] | None = None
    code = 0
    for descriptor, value in zip(descriptors, values):
        descriptor_id = descriptor.id
        if descriptor_id in (id_gnap, id_gnaps):
            pending = None
            if value is not None:
                pending = gnap if descriptor_id == id_gnap else gnaps
                code = int(value)
            continue
        if descriptor_id == id_pccf:
            if pending is not None and value is not None:
                pending.setdefault(code, float(value))
            pending = None
            continue
        name = names.get(descriptor_id)
        if name is not None:
            occurrences.setdefault(name, []).append(value)
    return occurrences, gnap, gnaps


def _first_populated_slots(scans: list[dict[str, list[Any]]]) -> dict[str, int]:
    """Per mnemonic, the first slot populated in any subset of the message."""
    slots: dict[str, int] = {}
    for name in {name for scan in scans for name in scan}:
        depth = max(len(scan.get(name, ())) for scan in scans)
        slots[name] = next(
            (
                slot
                for slot in range(depth)
                if any(
                    slot < len(scan.get(name, ())) and _populated(scan[name][slot])
                    for scan in scans
                )
            ),
            0,
        )
    return slots


def _quality_list(codes: Mapping[int, float]) -> list[dict[str, float]] | None:
    return [
        {"application": code, "confidence": value} for code, value in codes.items()
    ] or None


def _decode_satwnd_message(
    decoder: Any,
    message_bytes: bytes,
    ids: Mapping[str, int],
    dt_min: datetime,
    dt_max: datetime,
) -> dict[str, list[Any]]:
    """Columnar winds for one BUFR message; empty lists when nothing decodes."""
    columns: dict[str, list[Any]] = {name: [] for name in _WIND_COLUMNS}
    message = decoder.process(message_bytes)
    if not message.n_subsets.value:
        return columns
    subset = f"NC005{bufr_local_subcategory(message_bytes):03d}"
    template_data = message.template_data.value
    scans = [
        _scan_subset(descriptors, values, ids)
        for descriptors, values in zip(
            template_data.decoded_descriptors_all_subsets,
            template_data.decoded_values_all_subsets,
        )
    ]
    slots = _first_populated_slots([occurrences for occurrences, _, _ in scans])
    # High-accuracy CLATH/CLONH when the template carries them, else CLAT/CLON.
    lat_name = "CLATH" if "CLATH" in slots else "CLAT"
    lon_name = "CLONH" if "CLONH" in slots else "CLON"

    for occurrences, gnap, gnaps in scans:

        def get(name: str) -> Any:
            values = occurrences.get(name, ())
            slot = slots.get(name, 0)
            return values[slot] if slot < len(values) else None

        lat, lon = get(lat_name), get(lon_name)
        direction, speed = get("WDIR"), get("WSPD")
        year, month, day = get("YEAR"), get("MNTH"), get("DAYS")
        if not all(
            _populated(v) for v in (lat, lon, direction, speed, year, month, day)
        ):
            continue
        second = get("SECO")
        try:
            obs_time = datetime(
                int(year),
                int(month),
                int(day),
                int(get("HOUR") or 0),
                int(get("MINU") or 0),
            ) + timedelta(seconds=float(second) if _populated(second) else 0.0)
        except (TypeError, ValueError, OverflowError):
            continue
        if obs_time < dt_min or obs_time > dt_max:
            continue
        radians = math.radians(float(direction))
        pressure = get("PRLC")
        columns["time"].append(obs_time)
        columns["lat"].append(float(lat))
        columns["lon"].append(float(lon) % 360.0)
        columns["pres"].append(float(pressure) if _populated(pressure) else math.nan)
        columns["quality"].append(get("SWQM"))
        columns["satellite_id"].append(get("SAID"))
        columns["subset"].append(subset)
        columns["wind_method"].append(get("SWCM"))
        columns["wind_method_local"].append(get("CMCM"))
        columns["height_method"].append(get("HAMD"))
        zenith = get("SAZA")
        columns["satellite_za"].append(
            float(zenith) if _populated(zenith) else math.nan
        )
        columns["quality_indicators"].append(_quality_list(gnap))
        columns["amv_quality_indicators"].append(_quality_list(gnaps))
        columns["u"].append(-float(speed) * math.sin(radians))
        columns["v"].append(-float(speed) * math.cos(radians))
    return columns


def _decode_satwnd_batch(
    arguments: tuple[list[bytes], Mapping[str, int], datetime, datetime],
) -> tuple[dict[str, list[Any]], int]:
    messages, ids, dt_min, dt_max = arguments
    columns: dict[str, list[Any]] = {name: [] for name in _WIND_COLUMNS}
    failures = 0
    with _silence_bufr_noise():
        for message_bytes in messages:
            try:
                decoded = _decode_satwnd_message(
                    _worker_decoder, message_bytes, ids, dt_min, dt_max
                )
            except Exception:  # noqa: BLE001 - one corrupt message is skipped
                failures += 1
                continue
            for name, values in decoded.items():
                columns[name].extend(values)
    return columns, failures


def _winds_to_rows(
    columns: Mapping[str, list[Any]], wanted: Mapping[str, str]
) -> pd.DataFrame:
    """One row per (wind, requested component), components in ``wanted`` order."""
    base = pd.DataFrame(
        {name: columns[name] for name in _WIND_COLUMNS if name not in ("u", "v")}
    )
    base["class"] = "SATWND"
    frames = []
    for component, variable in wanted.items():
        frame = base.copy()
        frame["observation"] = np.asarray(columns[component], dtype=np.float32)
        frame["variable"] = variable
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def decode_satwnd(
    path: str,
    plan: Mapping[str, tuple[str, Callable[[pd.DataFrame], pd.DataFrame]]],
    dt_min: datetime,
    dt_max: datetime,
    decode_workers: int = 8,
) -> pd.DataFrame:
    """Decode an NCEP ``satwnd`` AMV BUFR dump into a DataFrame.

    Parameters
    ----------
    path : str
        Local path to the ``gdas.*.satwnd.tm00.bufr_d`` file.
    plan : Mapping
        Variable decode plan ``{variable: (component, modifier)}`` where
        component is ``"u"`` or ``"v"``.
    dt_min, dt_max : datetime
        Time window for observation filtering.
    decode_workers : int
        Number of parallel decode processes (1 disables multiprocessing).

    Returns
    -------
    pd.DataFrame
        One row per (wind, component) in :data:`NCEP_SATWND_PUBLIC_SCHEMA`, in
        source-message order within each component.
    """
    started = time.perf_counter()
    wanted = {component: variable for variable, (component, _) in plan.items()}
    modifiers = {variable: modifier for variable, (_, modifier) in plan.items()}
    with open(path, "rb") as file:
        file_data = file.read()
    table_b, table_d, messages = _parse_prepbufr_messages(file_data, silence_noise=True)
    if not messages:
        return empty_dataframe(NCEP_SATWND_PUBLIC_SCHEMA)
    ids = resolve_mnemonics(table_b)
    message_bytes = [message for message, _data_category in messages]
    arguments: Iterable[tuple[list[bytes], Mapping[str, int], datetime, datetime]] = (
        (message_bytes[i : i + _SATWND_BATCH_SIZE], ids, dt_min, dt_max)
        for i in range(0, len(message_bytes), _SATWND_BATCH_SIZE)
    )
    n_batches = math.ceil(len(message_bytes) / _SATWND_BATCH_SIZE)
    columns: dict[str, list[Any]] = {name: [] for name in _WIND_COLUMNS}
    failures = 0
    workers = min(max(1, decode_workers), n_batches)
    if workers > 1:
        with ProcessPoolExecutor(
            max_workers=workers,
            initializer=_init_decode_worker,
            initargs=(table_b, table_d),
        ) as pool:
            # Executor.map keeps source-message order.
            results = pool.map(_decode_satwnd_batch, arguments)
            for batch, batch_failures in results:
                for name, values in batch.items():
                    columns[name].extend(values)
                failures += batch_failures
    else:
        _init_decode_worker(table_b, table_d)
        for argument in arguments:
            batch, batch_failures = _decode_satwnd_batch(argument)
            for name, values in batch.items():
                columns[name].extend(values)
            failures += batch_failures
    logger.debug(
        f"Decoded {len(columns['time']):,} SATWND winds from {len(message_bytes):,} "
        f"messages in {time.perf_counter() - started:.1f}s"
    )
    if failures:
        logger.warning(
            f"{path}: skipped {failures} of {len(message_bytes)} undecodable "
            "SATWND messages"
        )
    if not columns["time"]:
        return empty_dataframe(NCEP_SATWND_PUBLIC_SCHEMA)
    return _finalize_rows(
        _winds_to_rows(columns, wanted),
        modifiers,
        convert_pres_mb_to_pa=False,
        schema=NCEP_SATWND_PUBLIC_SCHEMA,
    )
