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

import hashlib
import os
import pathlib
import shutil
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import numpy as np
import pandas as pd
import pyarrow as pa
import xarray as xr
from loguru import logger

from earth2studio.data.utils import (
    AsyncListableStore,
    _sync_async,
    async_retry,
    datasource_cache_root,
    gather_with_concurrency,
    obstore_list_prefix,
    obstore_read_range,
    obstore_store_from_url,
    prep_data_inputs,
)
from earth2studio.lexicon import GOESGLMLexicon
from earth2studio.lexicon.base import E2STUDIO_SCHEMA
from earth2studio.utils.imports import (
    OptionalDependencyFailure,
    check_optional_dependencies,
)
from earth2studio.utils.time import normalize_time_tolerance
from earth2studio.utils.type import TimeArray, TimeTolerance, VariableArray

try:
    import netCDF4
except ImportError:
    OptionalDependencyFailure("data")
    netCDF4 = None  # type: ignore[assignment]


_GLM_PREFIX = "GLM-L2-LCFA"

_BUCKETS = {
    "G16": "noaa-goes16",
    "G17": "noaa-goes17",
    "G18": "noaa-goes18",
    "G19": "noaa-goes19",
}

# Each entry: (platform, start, end) - the platform is the active GOES
# satellite for the slot during ``[start, end)``. Boundaries are inclusive
# on the lower side and exclusive on the upper side. These dates reflect
# the public AWS GLM-L2-LCFA archive coverage; explicit-satellite requests
# outside a platform's window will simply return no events from S3.
_SLOT_HISTORY: dict[str, tuple[tuple[str, datetime, datetime], ...]] = {
    "east": (
        ("G16", datetime(2018, 2, 13), datetime(2025, 4, 4)),
        ("G19", datetime(2025, 4, 4), datetime.max),
    ),
    "west": (
        ("G17", datetime(2018, 12, 10), datetime(2023, 1, 4)),
        ("G18", datetime(2023, 1, 4), datetime.max),
    ),
}

_GLM_MIN_DATE = datetime(2018, 2, 13)

# Each LCFA file covers a ~20 s scan; widen the lower file-start bound by
# this much so detections at the leading edge of a tight tolerance window
# are not silently dropped.
_GLM_FILE_DURATION = timedelta(seconds=20)

# The three tiers of the GLM detection hierarchy stored in every LCFA file,
# mapped onto the native NetCDF variable / dimension names that carry each
# record's position, measurements and timestamp. Flashes have no single time
# variable, so the offset of their first constituent event is used. Only
# groups and flashes carry ``area``: an event is a single pixel, so LCFA
# stores no event-level footprint area.
_LEVEL_FIELDS: dict[str, dict[str, str]] = {
    "event": {
        "dim": "number_of_events",
        "lat": "event_lat",
        "lon": "event_lon",
        "energy": "event_energy",
        "time": "event_time_offset",
    },
    "group": {
        "dim": "number_of_groups",
        "lat": "group_lat",
        "lon": "group_lon",
        "energy": "group_energy",
        "area": "group_area",
        "time": "group_time_offset",
    },
    "flash": {
        "dim": "number_of_flashes",
        "lat": "flash_lat",
        "lon": "flash_lon",
        "energy": "flash_energy",
        "area": "flash_area",
        "time": "flash_time_offset_of_first_event",
    },
}

# Per-record measurement fields of ``_LEVEL_FIELDS``, as opposed to the
# position, time and dimension entries. A level only carries the subset it
# declares, so these are read (and named in the parsed frame) per level.
_MEASUREMENT_FIELDS = ("energy", "area")

# Declared measurements a file is still allowed to omit. Every LCFA level
# stores ``energy``, so a nonempty level lacking it is a malformed file
# rather than one serving a narrower set of variables. Footprint area is
# not part of the detection itself, so a file without it still serves its
# energy and counts.
_OPTIONAL_MEASUREMENT_FIELDS = ("area",)


@dataclass(frozen=True)
class _GOESGLMFile:
    """One GLM L2 LCFA NetCDF file scheduled for download."""

    s3_uri: str
    satellite: str
    file_start: datetime


@check_optional_dependencies()
class GOESGLM:
    """NOAA GOES Geostationary Lightning Mapper (GLM) Level 2 Lightning
    Cluster-Filter Algorithm (LCFA) point lightning data source.

    Returns per-detection lightning observations from the GLM instrument
    on GOES-16/17/18/19, served as point observations in a pandas
    DataFrame. Each row corresponds to a single detection with a
    sub-second timestamp, latitude/longitude and the requested
    measurement.

    All three tiers of the GLM detection hierarchy are exposed, and may
    be mixed freely in one request since they are read from the same
    files:

    - **events** (``lightning_event_*``) — individual illuminated pixels
      in a single 2 ms frame
    - **groups** (``lightning_group_*``) — spatially adjacent events
      within one frame
    - **flashes** (``lightning_flash_*``) — groups clustered in space and
      time; timestamped by their first constituent event

    Each level offers ``*_energy`` (optical energy, Joules) and
    ``*_count`` (a constant 1.0 per record, suitable for density
    aggregation). Groups and flashes additionally offer ``*_area``, the
    native footprint area of the detection in m2, for aggregating
    detections as an extent density rather than as centroid counts.
    Events are single pixels and have no area field in LCFA.

    Files in the public NOAA AWS bucket are NetCDFs produced at roughly
    20 second cadence covering the GOES full-disk field of view. A
    spatial bounding box can be supplied to restrict detections at parse
    time and reduce memory usage for large windows.

    Parameters
    ----------
    satellite : str, optional
        Source satellite selector. Pass ``"east"`` (default) or
        ``"west"`` to auto-select the active GOES-East / GOES-West
        platform for each requested timestamp; pass ``"G16"``,
        ``"G17"``, ``"G18"`` or ``"G19"`` to pin a single platform.
    lat_lon_bbox : tuple[float, float, float, float] | None, optional
        Bounding box ``(lat_min, lon_min, lat_max, lon_max)`` in
        degrees, applied at parse time. Accepts either ``[-180, 180)``
        or ``[0, 360)`` longitude convention (auto-detected when
        ``lon_max >= 180``). ``None`` (default) returns the full disk.
        For example, CONUS in the ``[-180, 180)`` convention is
        ``(24.5, -125.0, 49.5, -66.0)``.
    time_tolerance : TimeTolerance, optional
        Time tolerance window for selecting detections around each
        requested timestamp. Accepts a single value (symmetric ±
        window) or a tuple ``(lower, upper)`` for asymmetric windows,
        by default ``np.timedelta64(2, "m")``.
    cache : bool, optional
        Cache downloaded NetCDF files on local disk, by default True.
    verbose : bool, optional
        Show download progress bar, by default True.
    async_timeout : int, optional
        Total timeout in seconds for the entire fetch operation,
        by default 600.
    async_workers : int, optional
        Maximum number of concurrent S3 fetch tasks, by default 24.
    retries : int, optional
        Number of retry attempts per failed fetch task with
        exponential backoff, by default 3.

    Warning
    -------
    GLM produces hundreds of files per hour. Large time windows can
    download tens to hundreds of gigabytes of NetCDFs. Use
    ``lat_lon_bbox`` to discard out-of-region detections on parse and
    keep ``time_tolerance`` bounded.

    Note
    ----
    Output longitudes are normalised to ``[0, 360)`` (Earth2Studio
    convention). Each record's timestamp is computed from the file's
    per-level time offset variable so sub-second precision (~ms) is
    preserved.

    Note
    ----
    The pre-0.19 variable ids ``flashe`` and ``flashc`` are deprecated
    aliases of ``lightning_event_energy`` and ``lightning_event_count``.
    They still select the correct measurement and are echoed back in the
    output ``variable`` column, but emit a ``FutureWarning`` and will be
    removed in a future release.

    Note
    ----
    Additional information on the data repository:

    - https://www.goes-r.gov/products/baseline-lightning-detection.html
    - https://registry.opendata.aws/noaa-goes/
    - https://www.ncei.noaa.gov/products/goes-terrestrial-weather-abi-glm

    Example
    -------
    ```python
    from datetime import datetime
    import numpy as np
    from earth2studio.data import GOESGLM

    ds = GOESGLM(
        satellite="east",
        lat_lon_bbox=(24.5, -125.0, 49.5, -66.0),  # CONUS
        time_tolerance=np.timedelta64(5, "m"),
    )
    df = ds(
        datetime(2024, 6, 1, 18, 0),
        ["lightning_event_energy", "lightning_event_count"],
    )

    ```
    Badges
    ------
    region:na region:sa dataclass:observation product:sat provider:noaa
    """

    SOURCE_ID = "earth2studio.data.goes_glm"
    SCHEMA = pa.schema(
        [
            E2STUDIO_SCHEMA.field("time"),
            E2STUDIO_SCHEMA.field("lat"),
            E2STUDIO_SCHEMA.field("lon"),
            E2STUDIO_SCHEMA.field("observation"),
            E2STUDIO_SCHEMA.field("variable"),
            pa.field(
                "satellite",
                pa.string(),
                metadata={"description": "GOES satellite platform (G16/G17/G18/G19)"},
            ),
        ]
    )

    def __init__(
        self,
        satellite: str = "east",
        lat_lon_bbox: tuple[float, float, float, float] | None = None,
        time_tolerance: TimeTolerance = np.timedelta64(2, "m"),
        cache: bool = True,
        verbose: bool = True,
        async_timeout: int = 600,
        async_workers: int = 24,
        retries: int = 3,
    ) -> None:
        sat = (
            satellite.lower()
            if satellite.lower() in ("east", "west")
            else satellite.upper()
        )
        if sat not in ("east", "west") and sat not in _BUCKETS:
            raise ValueError(
                f"Unknown satellite {satellite!r}; expected one of "
                f"'east', 'west', {sorted(_BUCKETS)}"
            )
        self._satellite = sat

        self._lat_lon_bbox = _normalize_lat_lon_bbox(lat_lon_bbox)

        lower, upper = normalize_time_tolerance(time_tolerance)
        self._tolerance_lower = pd.to_timedelta(lower).to_pytimedelta()
        self._tolerance_upper = pd.to_timedelta(upper).to_pytimedelta()

        self._cache = cache
        self._verbose = verbose
        self._async_workers = async_workers
        self._retries = retries
        self.async_timeout = async_timeout
        self._tmp_cache_hash: str | None = None

        # One obstore store per satellite bucket, built lazily. Unlike async
        # fsspec filesystems, obstore stores are event-loop independent, so
        # they can safely be reused across repeated fetch calls (e.g. one per
        # 5-min bin from ``GOESGLMGrid``).
        self.stores: dict[str, AsyncListableStore] = {}
        # Per-bucket memoized S3 hour-directory listings (bucket -> prefix ->
        # keys). Only complete (past) hours are cached so a long-lived
        # instance polling near-real-time data still sees newly arriving files.
        self._hour_listing_cache: dict[str, dict[str, list[str]]] = {}

    def _store_for_bucket(self, bucket: str) -> AsyncListableStore:
        """Return (building if needed) the obstore store for an S3 bucket"""
        if bucket not in self.stores:
            self.stores[bucket] = obstore_store_from_url(
                f"s3://{bucket}", max_pool_connections=self._async_workers
            )
        return self.stores[bucket]

    def __call__(
        self,
        time: datetime | list[datetime] | TimeArray,
        variable: str | list[str] | VariableArray,
        fields: str | list[str] | pa.Schema | None = None,
    ) -> pd.DataFrame:
        """Fetch GLM lightning detections for a set of timestamps.

        Parameters
        ----------
        time : datetime | list[datetime] | TimeArray
            Timestamps to return detections for (UTC). Timezone-aware
            datetimes are converted to UTC automatically.
        variable : str | list[str] | VariableArray
            Variable ids defined in
            :py:class:`earth2studio.lexicon.GOESGLMLexicon`, e.g.
            ``"lightning_event_energy"`` or ``"lightning_flash_count"``.
            Event-, group- and flash-level ids may be mixed.
        fields : str | list[str] | pa.Schema | None, optional
            Output column subset. ``None`` (default) returns all
            schema fields.

        Returns
        -------
        pd.DataFrame
            Long-format lightning observations with columns matching
            the resolved schema.
        """
        try:
            df = _sync_async(
                self.fetch, time, variable, fields, timeout=self.async_timeout
            )
        finally:
            if not self._cache:
                shutil.rmtree(self.cache, ignore_errors=True)
        return df

    async def fetch(
        self,
        time: datetime | list[datetime] | TimeArray,
        variable: str | list[str] | VariableArray,
        fields: str | list[str] | pa.Schema | None = None,
    ) -> pd.DataFrame:
        """Async function to fetch GLM detections.

        Parameters
        ----------
        time : datetime | list[datetime] | TimeArray
            Timestamps to return detections for (UTC).
        variable : str | list[str] | VariableArray
            Variable ids defined in :py:class:`GOESGLMLexicon`.
        fields : str | list[str] | pa.Schema | None, optional
            Output column subset. ``None`` (default) returns all
            schema fields.

        Returns
        -------
        pd.DataFrame
            Long-format lightning observations.
        """
        time_list, variable_list = prep_data_inputs(time, variable)
        self._validate_time(time_list)
        # Deprecated ids resolve to their canonical replacement (with a
        # FutureWarning); the requested id is still echoed back in the output
        # so existing pipelines keep matching on the name they asked for
        canonical = {v: GOESGLMLexicon.resolve_alias(v) for v in variable_list}
        for v, cv in canonical.items():
            if cv not in GOESGLMLexicon.VOCAB:
                raise KeyError(
                    f"Variable id {v!r} not found in GOESGLMLexicon. "
                    f"Available: {list(GOESGLMLexicon.VOCAB)}"
                )

        schema = self.resolve_fields(fields)
        pathlib.Path(self.cache).mkdir(parents=True, exist_ok=True)

        files = await self._discover_files(time_list)
        unique_uris = sorted({f.s3_uri for f in files})
        logger.info(
            f"[{self.SOURCE_ID}] discovered {len(unique_uris)} unique GLM "
            f"files across {len(time_list)} requested times"
        )

        coros = [
            async_retry(
                self._fetch_remote_file,
                uri,
                retries=self._retries,
                backoff=1.0,
                task_timeout=120.0,
                exceptions=(OSError, IOError, TimeoutError, ConnectionError),
            )
            for uri in unique_uris
        ]
        await gather_with_concurrency(
            coros,
            max_workers=self._async_workers,
            desc="Fetching GLM L2 LCFA files",
            verbose=(not self._verbose),
        )

        return self._compile_dataframe(
            files, time_list, variable_list, canonical, schema
        )

    async def _discover_files(self, time_list: list[datetime]) -> list[_GOESGLMFile]:
        """List GLM L2 LCFA keys whose file-start times fall in any
        requested ``[t-tol, t+tol]`` window.

        Hourly S3 prefixes are listed once each (deduplicated within the
        call) and the per-file start timestamps are parsed from the LCFA
        filename convention. Listings of complete (past) hours are memoized
        on the instance, so repeated fetches over the same hour (e.g. one
        per 5-min bin from ``GOESGLMGrid``) issue a single LIST request; the
        still-filling current hour is always re-listed.
        """
        prefix_jobs: dict[tuple[str, str], datetime] = {}
        windows: list[tuple[datetime, datetime, str]] = []
        for t in time_list:
            tmin = t + self._tolerance_lower
            tmax = t + self._tolerance_upper
            sat = self._satellite_for_time(t)
            windows.append((tmin, tmax, sat))
            hr = (tmin - _GLM_FILE_DURATION).replace(minute=0, second=0, microsecond=0)
            while hr <= tmax:
                prefix_jobs.setdefault((sat, self._hour_prefix(sat, hr)), hr)
                hr += timedelta(hours=1)

        now = datetime.now(timezone.utc).replace(tzinfo=None)

        async def _list_one(
            sat: str, prefix: str, hr: datetime
        ) -> list[tuple[str, str]]:
            bucket = _BUCKETS[sat]
            paths = await obstore_list_prefix(
                self._store_for_bucket(bucket),
                prefix,
                cache=self._hour_listing_cache.setdefault(bucket, {}),
                cacheable=hr + timedelta(hours=1) <= now,
            )
            return [(sat, f"{bucket}/{p}") for p in paths if p.endswith(".nc")]

        listings = await gather_with_concurrency(
            [_list_one(sat, prefix, hr) for (sat, prefix), hr in prefix_jobs.items()],
            max_workers=self._async_workers,
            desc="Listing GLM L2 LCFA prefixes",
            verbose=(not self._verbose),
        )

        out: list[_GOESGLMFile] = []
        seen_uris: set[str] = set()
        for entries in listings:
            for sat, key in entries:
                file_start = self._parse_filename_start(key)
                if file_start is None:
                    continue
                for tmin, tmax, win_sat in windows:
                    if win_sat != sat:
                        continue
                    # GLM files cover ~20 s; accept any file whose scan
                    # starts within one file duration before ``tmin`` so
                    # events at the leading edge of the window are not
                    # silently dropped for tight tolerances.
                    if tmin - _GLM_FILE_DURATION <= file_start <= tmax:
                        uri = (
                            f"s3://{key}"
                            if key.startswith(_BUCKETS[sat])
                            else (f"s3://{_BUCKETS[sat]}/{key}")
                        )
                        if uri in seen_uris:
                            continue
                        seen_uris.add(uri)
                        out.append(
                            _GOESGLMFile(
                                s3_uri=uri,
                                satellite=sat,
                                file_start=file_start,
                            )
                        )
                        break
        return out

    async def _fetch_remote_file(self, uri: str) -> None:
        """Download one GLM NetCDF file into the cache directory."""
        cache_path = self._cache_path(uri)
        if pathlib.Path(cache_path).is_file():
            return
        bucket, key = uri.removeprefix("s3://").split("/", 1)
        store = self._store_for_bucket(bucket)
        try:
            data = await obstore_read_range(store, key)
        # obstore_read_range translates obstore's NotFoundError into
        # FileNotFoundError; catch it here (before async_retry's OSError
        # retry loop sees it) so a missing file warns and skips
        except FileNotFoundError:
            logger.warning(f"GLM file {uri} not found, skipping")
            return
        with open(cache_path, "wb") as fh:
            fh.write(data)

    def _compile_dataframe(
        self,
        files: list[_GOESGLMFile],
        time_list: list[datetime],
        variable_list: list[str],
        canonical: dict[str, str],
        schema: pa.Schema,
    ) -> pd.DataFrame:
        """Parse each cached file once, filter per requested time, and
        emit one long-format DataFrame across all variables and times.

        ``canonical`` maps each requested variable id onto its canonical
        name, so deprecated aliases select the right measurement while the
        output still reports the id the caller asked for.
        """
        # Requested variable -> (hierarchy level, native field). Only the
        # levels actually asked for are read off disk.
        keys = {
            v: GOESGLMLexicon.VOCAB[canonical[v]].split("::", 1) for v in variable_list
        }
        levels = {level for level, _ in keys.values()}
        # Native NetCDF field name -> the column ``_parse_glm_file`` stores it
        # under, per level, so each variable's observation is read from the
        # column holding the measurement it actually selects.
        measurement_columns = {
            level: {
                _LEVEL_FIELDS[level][name]: name
                for name in _MEASUREMENT_FIELDS
                if name in _LEVEL_FIELDS[level]
            }
            for level in levels
        }

        # (satellite, {level: records}) per successfully parsed file
        parsed: list[tuple[str, dict[str, pd.DataFrame]]] = []
        for f in files:
            local = self._cache_path(f.s3_uri)
            if not pathlib.Path(local).is_file():
                continue
            records = self._parse_glm_file(local, self._lat_lon_bbox, levels)
            if not records:
                continue
            parsed.append((f.satellite, records))

        if not parsed:
            return self._empty_result(schema)

        frames: list[pd.DataFrame] = []
        for t in time_list:
            tmin = pd.Timestamp(t + self._tolerance_lower)
            tmax = pd.Timestamp(t + self._tolerance_upper)
            sat = self._satellite_for_time(t)
            for file_sat, records in parsed:
                if file_sat != sat:
                    continue
                for v in variable_list:
                    level, field = keys[v]
                    level_records = records.get(level)
                    if level_records is None:
                        continue
                    column = (
                        None if field == "_count" else measurement_columns[level][field]
                    )
                    # An optional measurement the file does not carry is
                    # skipped, the same way a level absent from the file
                    # is; a missing required one never reaches here
                    if column is not None and column not in level_records.columns:
                        continue
                    mask = (level_records["time"] >= tmin) & (
                        level_records["time"] <= tmax
                    )
                    if not mask.any():
                        continue
                    window = level_records.loc[mask]
                    sub = window[["time", "lat", "lon"]].copy()
                    sub["satellite"] = file_sat
                    if column is None:
                        sub["observation"] = np.float32(1.0)
                    else:
                        sub["observation"] = window[column].astype(np.float32)
                    sub["variable"] = v
                    frames.append(sub)

        if not frames:
            return self._empty_result(schema)

        df = pd.concat(frames, ignore_index=True)
        # Normalise longitude from GLM's [-180, 180) to Earth2Studio's [0, 360)
        df["lon"] = (df["lon"].astype(np.float32) + 360.0) % 360.0
        df["lat"] = df["lat"].astype(np.float32)
        df.attrs["source"] = self.SOURCE_ID
        return df[[name for name in schema.names if name in df.columns]]

    def _empty_result(self, schema: pa.Schema) -> pd.DataFrame:
        empty = pd.DataFrame(
            {name: pd.Series(dtype="object") for name in self.SCHEMA.names}
        )
        empty.attrs["source"] = self.SOURCE_ID
        return empty[[name for name in schema.names if name in empty.columns]]

    @classmethod
    def _validate_time(cls, times: Iterable[datetime]) -> None:
        """Verify date times fall within the GLM archive window.

        Per-platform availability (G16/G17/G18/G19 cutovers) is enforced
        downstream in :py:meth:`_satellite_for_time`; this classmethod
        only screens out timestamps before the earliest archive date.
        """
        for t in times:
            if t < _GLM_MIN_DATE:
                raise ValueError(
                    f"Requested datetime {t} is earlier than the GLM "
                    f"archive start ({_GLM_MIN_DATE.isoformat()})."
                )
            now_utc = datetime.now(timezone.utc).replace(tzinfo=None)
            if t > now_utc + timedelta(hours=1):
                raise ValueError(
                    f"Requested datetime {t} is in the future; "
                    f"GLM L2 LCFA archive has no entries beyond now."
                )

    def _satellite_for_time(self, t: datetime) -> str:
        """Resolve the configured satellite selector to a concrete
        platform code for a given timestamp."""
        if self._satellite in _BUCKETS:
            return self._satellite
        for sat, start, end in _SLOT_HISTORY[self._satellite]:
            if start <= t < end:
                return sat
        raise ValueError(
            f"No active GOES-{self._satellite} satellite known for "
            f"{t.isoformat()}; check the SLOT_HISTORY in goes_glm.py."
        )

    @staticmethod
    def _hour_prefix(sat: str, t: datetime) -> str:
        doy = t.timetuple().tm_yday
        return f"{_GLM_PREFIX}/{t.year:04d}/{doy:03d}/{t.hour:02d}/"

    def _cache_path(self, s3_uri: str) -> str:
        sha = hashlib.sha256(s3_uri.encode()).hexdigest()
        return os.path.join(self.cache, sha + ".nc")

    @property
    def cache(self) -> str:
        """Local cache directory for this data source."""
        cache_location = os.path.join(datasource_cache_root(), "goes_glm")
        if not self._cache:
            if self._tmp_cache_hash is None:
                self._tmp_cache_hash = uuid.uuid4().hex[:8]
            cache_location = os.path.join(
                cache_location, f"tmp_goes_glm_{self._tmp_cache_hash}"
            )
        return cache_location

    @classmethod
    def available(cls, time: datetime | np.datetime64) -> bool:
        """Check whether data is available for a given time.

        Offline check against the GLM archive window; per-slot
        platform cutovers are enforced when the source is called.

        Parameters
        ----------
        time : datetime | np.datetime64
            Date-time to check.

        Returns
        -------
        bool
        """
        if isinstance(time, np.datetime64):
            time = time.astype("datetime64[ns]").astype("datetime64[us]").item()
        try:
            cls._validate_time([time])
        except ValueError:
            return False
        return True

    @classmethod
    def resolve_fields(cls, fields: str | list[str] | pa.Schema | None) -> pa.Schema:
        """Resolve a ``fields`` selector into a validated PyArrow schema."""
        if fields is None:
            return cls.SCHEMA
        if isinstance(fields, str):
            fields = [fields]
        if isinstance(fields, pa.Schema):
            for f in fields:
                if f.name not in cls.SCHEMA.names:
                    raise KeyError(
                        f"Field '{f.name}' not in {cls.__name__} SCHEMA. "
                        f"Available: {cls.SCHEMA.names}"
                    )
                expected = cls.SCHEMA.field(f.name).type
                if f.type != expected:
                    raise TypeError(
                        f"Field '{f.name}' has type {f.type}, expected "
                        f"{expected} from class SCHEMA"
                    )
            return fields
        selected = []
        for name in fields:
            if name not in cls.SCHEMA.names:
                raise KeyError(
                    f"Field '{name}' not in {cls.__name__} SCHEMA. "
                    f"Available: {cls.SCHEMA.names}"
                )
            selected.append(cls.SCHEMA.field(name))
        return pa.schema(selected)

    @classmethod
    def _parse_filename_start(cls, key: str) -> datetime | None:
        """Extract the file-start datetime from a GLM L2 LCFA S3 key.

        Filenames follow
        ``OR_GLM-L2-LCFA_<G16|G17|G18|G19>_s<YYYYJJJHHMMSSF>_e..._c....nc``
        where ``F`` is a decisecond digit (rounded down here).
        """
        base = os.path.basename(key)
        idx = base.find("_s")
        if idx < 0:
            return None
        stamp = base[idx + 2 : idx + 2 + 13]
        if len(stamp) != 13 or not stamp.isdigit():
            return None
        try:
            return datetime.strptime(stamp, "%Y%j%H%M%S")
        except ValueError:
            return None

    @classmethod
    def _parse_glm_file(
        cls,
        path: str,
        lat_lon_bbox: tuple[float, float, float, float] | None,
        levels: Iterable[str] = ("event",),
    ) -> dict[str, pd.DataFrame]:
        """Parse a GLM L2 LCFA NetCDF file into flat per-level DataFrames.

        Parameters
        ----------
        path : str
            Local path of the LCFA NetCDF file.
        lat_lon_bbox : tuple[float, float, float, float] | None
            Parse-time bounding box in the native ``[-180, 180)``
            convention, or ``None`` for the full disk.
        levels : Iterable[str], optional
            Which tiers of the detection hierarchy to read; any of
            ``"event"``, ``"group"``, ``"flash"``. By default only
            ``"event"``.

        Returns
        -------
        dict[str, pd.DataFrame]
            One frame of ``(time, lat, lon)`` plus the measurement columns
            the level declares per requested level: ``energy`` for every
            level and ``area`` for groups and flashes. Levels with no
            records, or none inside ``lat_lon_bbox``, are omitted, so the
            mapping is empty for a file with nothing of interest in it.
            The ``area`` column is dropped for a level whose file lacks
            the variable.

        Raises
        ------
        ValueError
            If a level with records is missing its ``energy`` variable,
            which every LCFA level carries.
        """
        out: dict[str, pd.DataFrame] = {}
        with netCDF4.Dataset(path) as ds:
            # A small number of NOAA LCFA objects are valid, zero-record
            # NetCDF files with no global attributes at all. Their epoch is
            # immaterial: no timestamp can be constructed from an empty
            # level. Resolve time_coverage_start lazily so those files are
            # skipped without weakening the requirement for files that carry
            # actual detections.
            epoch: datetime | None = None
            for level in levels:
                fields = _LEVEL_FIELDS[level]
                if fields["lat"] not in ds.variables:
                    continue
                if ds.dimensions[fields["dim"]].size == 0:
                    continue
                if epoch is None:
                    epoch = (
                        pd.Timestamp(ds.time_coverage_start)
                        .to_pydatetime()
                        .replace(tzinfo=None)
                    )

                lat = np.asarray(ds.variables[fields["lat"]][:], dtype=np.float32)
                lon = np.asarray(ds.variables[fields["lon"]][:], dtype=np.float32)
                offset = np.asarray(ds.variables[fields["time"]][:], dtype=np.float64)
                # A level only carries the measurements it declares. Of
                # those, only the optional ones may be missing from the
                # file: dropping a required measurement would silently
                # serve a subset of what the caller asked for, so a
                # nonempty level without it is reported as malformed
                measurements: dict[str, np.ndarray] = {}
                for name in _MEASUREMENT_FIELDS:
                    if name not in fields:
                        continue
                    variable = fields[name]
                    if variable not in ds.variables:
                        if name in _OPTIONAL_MEASUREMENT_FIELDS:
                            continue
                        raise ValueError(
                            f"GLM file {path} has {level} records but no "
                            f"{variable} variable"
                        )
                    measurements[name] = np.asarray(
                        ds.variables[variable][:], dtype=np.float32
                    )

                if lat_lon_bbox is not None:
                    lat_min, lon_min, lat_max, lon_max = lat_lon_bbox
                    mask = (
                        (lat >= lat_min)
                        & (lat <= lat_max)
                        & (lon >= lon_min)
                        & (lon <= lon_max)
                    )
                    if not mask.any():
                        continue
                    lat = lat[mask]
                    lon = lon[mask]
                    offset = offset[mask]
                    measurements = {k: v[mask] for k, v in measurements.items()}

                times = np.asarray(
                    [
                        np.datetime64(epoch + timedelta(seconds=float(s)), "us")
                        for s in offset
                    ],
                    dtype="datetime64[us]",
                )
                out[level] = pd.DataFrame(
                    {
                        "time": pd.to_datetime(times),
                        "lat": lat,
                        "lon": lon,
                        **measurements,
                    }
                )
        return out


def _normalize_lat_lon_bbox(
    lat_lon_bbox: tuple[float, float, float, float] | None,
) -> tuple[float, float, float, float] | None:
    """Validate a ``(lat_min, lon_min, lat_max, lon_max)`` box.

    Accepts either ``[-180, 180)`` or ``[0, 360)`` longitude
    conventions and normalises to the native GLM ``[-180, 180)``
    convention used by the on-disk event coordinates.
    """
    if lat_lon_bbox is None:
        return None
    lat_min, lon_min, lat_max, lon_max = lat_lon_bbox
    if lat_min >= lat_max or lon_min >= lon_max:
        raise ValueError(
            "lat_lon_bbox bounds must be "
            "(lat_min < lat_max, lon_min < lon_max); "
            f"got {lat_lon_bbox}"
        )
    if lon_max >= 180.0:
        lon_min = ((lon_min + 180.0) % 360.0) - 180.0
        lon_max = ((lon_max + 180.0) % 360.0) - 180.0
        if lon_min >= lon_max:
            raise ValueError(
                "lat_lon_bbox crosses the antimeridian after "
                "normalising from [0, 360) to [-180, 180); split it "
                f"into two boxes. Got {lat_lon_bbox}."
            )
    return (lat_min, lon_min, lat_max, lon_max)


@check_optional_dependencies()
class GOESGLMGrid:
    """Gridded GOES GLM (Geostationary Lightning Mapper) lightning product for StormScope.

    Wraps :py:class:`GOESGLM` (a per-event LCFA source) and accumulates events
    into a regular **0.1-degree** lat/lon grid via 5-minute binning and 2D
    histogramming, matching the GLM grid the StormScope MRMS+GLM nowcast model
    was trained on.

    Available variables:

    - ``glm_density``        : raw event count per cell (unweighted, matching training).
    - ``glm_energy_density`` : summed event energy (J) per cell.

    Counts are not mean/std normalized; the StormScope model applies ``log1p``
    internally. This source emits raw counts/sums on the 0.1-degree grid; the
    model bilinearly regrids to its own native grid.

    Parameters
    ----------
    satellite : str, optional
        GOES platform selector passed to :py:class:`GOESGLM` (``"east"`` default).
    cache : bool, optional
        Cache downloaded NetCDFs, by default True.
    verbose : bool, optional
        Show progress, by default True.
    async_timeout : int, optional
        Total timeout in seconds for each fetch operation, by default 600.
    async_workers : int, optional
        Maximum number of concurrent S3 fetch tasks, by default 24.
    retries : int, optional
        Number of retry attempts per failed fetch task, by default 3.

    Note
    ----
    Grid geometry (must match training): regular 0.1-degree grid over
    lat ``[20, 55]`` / lon ``[-130, -60]`` (350 x 700 cells), with cell centres at
    ``edge + 0.5 * resolution``. Output longitudes are returned in the Earth2Studio
    ``[0, 360)`` convention. The accumulation window is fixed at 5 minutes,
    bin-start labeled (the training cadence); do not substitute a 10-minute window.

    Badges
    ------
    region:na dataclass:observation product:sat provider:noaa
    """

    # Accumulation window (minutes), bin-start labeled. Fixed to match training.
    BIN_MINUTES = 5
    # Regular 0.1-degree CONUS grid (degrees, [-180, 180) longitude internally).
    _RES = 0.1
    _LAT_MIN, _LAT_MAX = 20.0, 55.0
    _LON_MIN, _LON_MAX = -130.0, -60.0
    # CONUS parse-time bounding box (lat_min, lon_min, lat_max, lon_max).
    _CONUS_BBOX = (24.5, -125.0, 49.5, -66.0)
    # E2S variable -> underlying GOESGLM event variable.
    _VARIABLE_MAP = {
        "glm_density": "lightning_event_count",
        "glm_energy_density": "lightning_event_energy",
    }

    def __init__(
        self,
        satellite: str = "east",
        cache: bool = True,
        verbose: bool = True,
        async_timeout: int = 600,
        async_workers: int = 24,
        retries: int = 3,
    ) -> None:
        self._events = GOESGLM(
            satellite=satellite,
            lat_lon_bbox=self._CONUS_BBOX,
            time_tolerance=(
                np.timedelta64(0, "m"),
                np.timedelta64(self.BIN_MINUTES, "m"),
            ),
            cache=cache,
            verbose=verbose,
            async_timeout=async_timeout,
            async_workers=async_workers,
            retries=retries,
        )

        # Bin edges and centres. arange end padded by a small epsilon so the final
        # edge is included; centres sit at edge + 0.5 * resolution.
        self._lat_edges = np.arange(self._LAT_MIN, self._LAT_MAX + 1e-9, self._RES)
        self._lon_edges = np.arange(self._LON_MIN, self._LON_MAX + 1e-9, self._RES)
        self._lat_centres = 0.5 * (self._lat_edges[:-1] + self._lat_edges[1:])
        lon_centres = 0.5 * (self._lon_edges[:-1] + self._lon_edges[1:])
        # Return longitudes in the Earth2Studio [0, 360) convention.
        self._lon_centres = (lon_centres + 360.0) % 360.0

    def __call__(
        self,
        time: datetime | list[datetime] | TimeArray,
        variable: str | list[str] | VariableArray,
    ) -> xr.DataArray:
        """Fetch the gridded GLM product for the requested times and variables.

        Parameters
        ----------
        time : datetime | list[datetime] | TimeArray
            5-minute-aligned timestamps (UTC). Each labels a ``[t, t+5min)`` bin.
        variable : str | list[str] | VariableArray
            One or more of ``"glm_density"`` / ``"glm_energy_density"``.

        Returns
        -------
        xr.DataArray
            Array with dims ``[time, variable, lat, lon]`` on the 0.1-degree grid.
        """
        time_list, variable_list = prep_data_inputs(time, variable)
        for v in variable_list:
            if v not in self._VARIABLE_MAP:
                raise KeyError(
                    f"Variable id {v!r} not supported by GOESGLMGrid. "
                    f"Available: {list(self._VARIABLE_MAP)}"
                )

        ny, nx = self._lat_centres.size, self._lon_centres.size
        out = np.zeros((len(time_list), len(variable_list), ny, nx), dtype=np.float32)

        underlying = sorted({self._VARIABLE_MAP[v] for v in variable_list})
        # Fetch all requested times in a single GOESGLM call so that S3 session
        # setup, prefix listing, and file downloads are amortised across the
        # entire sliding window rather than paying per-timestep.
        bin_delta = np.timedelta64(self.BIN_MINUTES, "m")
        df_all = self._events(time_list, underlying)
        for ti, t in enumerate(time_list):
            t_ts = pd.Timestamp(t)
            t_end = pd.Timestamp(t + bin_delta)
            df = df_all[(df_all["time"] >= t_ts) & (df_all["time"] < t_end)]
            for vi, v in enumerate(variable_list):
                uvar = self._VARIABLE_MAP[v]
                sub = df[df["variable"] == uvar]
                if len(sub) == 0:
                    continue
                # Events use [0, 360) longitude; convert to the grid's [-180, 180).
                ev_lon = ((sub["lon"].to_numpy() + 180.0) % 360.0) - 180.0
                hist, _, _ = np.histogram2d(
                    sub["lat"].to_numpy(),
                    ev_lon,
                    bins=[self._lat_edges, self._lon_edges],
                    weights=sub["observation"].to_numpy(),
                )
                out[ti, vi] = hist.astype(np.float32)

        return xr.DataArray(
            data=out,
            dims=["time", "variable", "lat", "lon"],
            coords={
                "time": np.asarray(time_list, dtype="datetime64[ns]"),
                "variable": np.asarray(variable_list),
                "lat": self._lat_centres,
                "lon": self._lon_centres,
            },
        )

    async def fetch(
        self,
        time: datetime | list[datetime] | TimeArray,
        variable: str | list[str] | VariableArray,
    ) -> xr.DataArray:
        """Async function to fetch the gridded GLM product.

        Parameters
        ----------
        time : datetime | list[datetime] | TimeArray
            5-minute-aligned timestamps (UTC). Each labels a ``[t, t+5min)`` bin.
        variable : str | list[str] | VariableArray
            One or more of ``"glm_density"`` / ``"glm_energy_density"``.

        Returns
        -------
        xr.DataArray
            Array with dims ``[time, variable, lat, lon]`` on the 0.1-degree grid.
        """
        time_list, variable_list = prep_data_inputs(time, variable)
        for v in variable_list:
            if v not in self._VARIABLE_MAP:
                raise KeyError(
                    f"Variable id {v!r} not supported by GOESGLMGrid. "
                    f"Available: {list(self._VARIABLE_MAP)}"
                )

        ny, nx = self._lat_centres.size, self._lon_centres.size
        out = np.zeros((len(time_list), len(variable_list), ny, nx), dtype=np.float32)

        underlying = sorted({self._VARIABLE_MAP[v] for v in variable_list})
        bin_delta = np.timedelta64(self.BIN_MINUTES, "m")
        df_all = await self._events.fetch(time_list, underlying)
        for ti, t in enumerate(time_list):
            t_ts = pd.Timestamp(t)
            t_end = pd.Timestamp(t + bin_delta)
            df = df_all[(df_all["time"] >= t_ts) & (df_all["time"] < t_end)]
            for vi, v in enumerate(variable_list):
                uvar = self._VARIABLE_MAP[v]
                sub = df[df["variable"] == uvar]
                if len(sub) == 0:
                    continue
                ev_lon = ((sub["lon"].to_numpy() + 180.0) % 360.0) - 180.0
                hist, _, _ = np.histogram2d(
                    sub["lat"].to_numpy(),
                    ev_lon,
                    bins=[self._lat_edges, self._lon_edges],
                    weights=sub["observation"].to_numpy(),
                )
                out[ti, vi] = hist.astype(np.float32)

        return xr.DataArray(
            data=out,
            dims=["time", "variable", "lat", "lon"],
            coords={
                "time": np.asarray(time_list, dtype="datetime64[ns]"),
                "variable": np.asarray(variable_list),
                "lat": self._lat_centres,
                "lon": self._lon_centres,
            },
        )

    @property
    def lat(self) -> np.ndarray:
        """1D array of grid-cell-centre latitudes."""
        return self._lat_centres

    @property
    def lon(self) -> np.ndarray:
        """1D array of grid-cell-centre longitudes ([0, 360) convention)."""
        return self._lon_centres
