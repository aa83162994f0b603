from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from itertools import cycle
from pathlib import Path
from typing import Literal

try:
    from defusedxml import ElementTree  # type: ignore[import-not-found]
except Exception:  # pragma: no cover
    from xml.etree import ElementTree

import pandas as pd
from geopandas import GeoDataFrame
from shapely.geometry import LineString, Point, Polygon
from wsidata import WSIData
from wsidata.io import add_shapes, update_shapes_data

from lazyslide._const import Key


def _raw_float(raw_properties: Mapping, *keys: str) -> float | None:
    for key in keys:
        value = raw_properties.get(key)
        if value is not None:
            return float(value)
    return None


def _ndpa_coordinate_transform(wsi: WSIData):
    """Return a converter from NDPA nanometers to level-0 pixels."""
    raw_properties = wsi.raw_properties
    mpp_x = _raw_float(raw_properties, "openslide.mpp-x", "mpp-x")
    mpp_y = _raw_float(raw_properties, "openslide.mpp-y", "mpp-y")
    mpp_x = wsi.properties.mpp if mpp_x is None else mpp_x
    mpp_y = wsi.properties.mpp if mpp_y is None else mpp_y
    if mpp_x is None or mpp_y is None or mpp_x <= 0 or mpp_y <= 0:
        raise ValueError(
            "NDPA annotations require positive slide microns-per-pixel metadata"
        )

    x_offset = _raw_float(
        raw_properties,
        "hamamatsu.XOffsetFromSlideCentre",
        "XOffsetFromSlideCentre",
    )
    y_offset = _raw_float(
        raw_properties,
        "hamamatsu.YOffsetFromSlideCentre",
        "YOffsetFromSlideCentre",
    )
    if x_offset is None or y_offset is None:
        raise ValueError(
            "NDPA annotations require Hamamatsu X/YOffsetFromSlideCentre metadata"
        )

    height, width = wsi.properties.shape

    def transform(x_nm: float, y_nm: float) -> tuple[float, float]:
        # NDPA coordinates and offsets are nanometers relative to the physical
        # slide centre. Translate to the main-image centre, scale to pixels,
        # then move the origin to the top-left corner of the level-0 image.
        x_px = (x_nm - x_offset) / (mpp_x * 1000) + width / 2
        y_px = (y_nm - y_offset) / (mpp_y * 1000) + height / 2
        return x_px, y_px

    return transform


def read_ndpa(wsi: WSIData, annotations: str | Path) -> GeoDataFrame:
    """Read Hamamatsu NDPA annotations as level-0 pixel geometries.

    NDPA coordinates are stored in nanometers relative to the physical slide
    centre. The matching NDPI slide supplies the offsets, pixel size, and
    level-0 dimensions needed to place them in the image reference frame.

    Parameters
    ----------
    wsi : :class:`WSIData <wsidata.WSIData>`
        The WSIData object for the NDPI slide associated with the annotations.
    annotations : str or Path
        Path to the NDPA XML file.

    Returns
    -------
    GeoDataFrame
        Annotation metadata and level-0 pixel geometries.
    """
    transform = _ndpa_coordinate_transform(wsi)
    root = ElementTree.parse(annotations).getroot()
    records = []

    for viewstate in root.findall(".//ndpviewstate"):
        for annotation in viewstate.findall("./annotation"):
            points = []
            for point in annotation.findall("./pointlist/point"):
                x = point.findtext("x")
                y = point.findtext("y")
                if x is not None and y is not None:
                    points.append(transform(float(x), float(y)))

            # Pins can store their location directly on the annotation or on
            # the surrounding view state rather than in a point list.
            if not points:
                x = annotation.findtext("x") or viewstate.findtext("x")
                y = annotation.findtext("y") or viewstate.findtext("y")
                if x is not None and y is not None:
                    points.append(transform(float(x), float(y)))

            if not points:
                continue

            closed = annotation.findtext("closed") == "1"
            if len(points) == 1:
                geometry = Point(points[0])
            elif closed and len(points) >= 3:
                geometry = Polygon(points)
            else:
                geometry = LineString(points)

            records.append(
                {
                    "ndpa_id": viewstate.get("id"),
                    "title": viewstate.findtext("title"),
                    "details": viewstate.findtext("details"),
                    "annotation_type": annotation.get("type"),
                    "display_name": annotation.get("displayname"),
                    "color": annotation.get("color"),
                    "closed": closed,
                    "geometry": geometry,
                }
            )

    columns = [
        "ndpa_id",
        "title",
        "details",
        "annotation_type",
        "display_name",
        "color",
        "closed",
        "geometry",
    ]
    return GeoDataFrame(records, columns=columns, geometry="geometry")


def _in_bounds_transform(wsi: WSIData, annos: GeoDataFrame, reverse: bool = False):
    from functools import partial

    from shapely.affinity import translate

    xoff, yoff, _, _ = wsi.properties.bounds
    if reverse:
        xoff, yoff = -xoff, -yoff
    trans = partial(translate, xoff=xoff, yoff=yoff)
    annos["geometry"] = annos["geometry"].apply(lambda x: trans(x))
    return annos


def load_annotations(
    wsi: WSIData,
    annotations: str | Path | GeoDataFrame,
    *,
    explode: bool = True,
    in_bounds: bool = False,
    join_with: str | list[str] = Key.tissue,
    join_to: str | None = None,
    json_flatten: str | list[str] = "classification",
    min_area: float = 1e2,
    key_added: str = "annotations",
):
    """Load the :term:`annotation` file and add it to the :term:`WSIData`

    Parameters
    ----------
    wsi : :class:`WSIData <wsidata.WSIData>`
        The WSIData object to work on.
    annotations : str, Path, GeoDataFrame
        The path to the annotation file or the GeoDataFrame.
        Currently, we support geospatial files readable by GeoPandas (e.g., GeoJSON) and Hamamatsu .ndpa files.
    explode : bool, default: True
        Whether to explode the annotations.
    in_bounds : bool, default: False
        Whether to move the annotations to the slide bounds.
    join_with : str or list of str, default: 'tissues'
        The key to join the annotations with.
    join_to : str, default: None
        The key of the shapes (e.g. tiles) that receive the annotation columns.
        A shape that intersects several annotations takes the first one in row
        order; the shapes' geometry and order are never changed.
    json_flatten : str, default: "classification"
        The column(s) to flatten the json data, if not exist, it will be ignored.
        "classification" is the default column for the QuPath annotations.
    min_area : float, default: 1e2
        The minimum area of the annotation.
    key_added : str, default: 'annotations'
        The key to store the annotations.

    """
    import geopandas as gpd

    if isinstance(annotations, (str, Path)):
        geo_path = Path(annotations)
        if geo_path.suffix.lower() == ".ndpa":
            anno_df = read_ndpa(wsi, geo_path)
        else:
            anno_df = gpd.read_file(geo_path)
    elif isinstance(annotations, GeoDataFrame):
        # Work on a copy: the CRS and column edits below must not reach the caller
        anno_df = annotations.copy()
    else:
        # TRY004 suggests TypeError, but ValueError is the documented
        # behaviour here and tests/test_io.py asserts on it.
        raise ValueError(f"Invalid annotations: {annotations}")  # noqa: TRY004

    # remove crs
    anno_df.crs = None

    if explode:
        anno_df = anno_df.explode().reset_index(drop=True)
        is_area_geometry = anno_df.geometry.geom_type.isin(["Polygon", "MultiPolygon"])
        anno_df = anno_df[
            ~is_area_geometry | (anno_df.geometry.area > min_area)
        ].reset_index(drop=True)

    if json_flatten is not None:

        def flatten_json(x):
            if isinstance(x, dict):
                return x
            elif isinstance(x, str):
                try:
                    return json.loads(x)
                except json.JSONDecodeError:
                    return {}

        if isinstance(json_flatten, str):
            json_flatten = [json_flatten]
        for col in json_flatten:
            if col in anno_df.columns:
                anno_df[col] = anno_df[col].apply(flatten_json)
                anno_df = anno_df.join(
                    anno_df[col].apply(pd.Series).add_prefix(f"{col}_")
                )
                anno_df.drop(columns=[col], inplace=True)

    if in_bounds:
        anno_df = _in_bounds_transform(wsi, anno_df)

    # get tiles
    if isinstance(join_with, str):
        join_with = [join_with]

    join_anno_df = anno_df.copy()
    for key in join_with:
        if key in wsi:
            shapes_df = wsi[key]
            # join the annotations with the tiles
            join_anno_df = (
                gpd.sjoin(shapes_df, join_anno_df, how="right", predicate="intersects")
                .reset_index(drop=True)
                .drop(columns=["index_left"])
            )
    add_shapes(wsi, key_added, join_anno_df)

    if join_to is not None and join_to in wsi:
        shapes_df = wsi[join_to]
        # A destination shape can intersect several annotations. Keep the
        # destination index and let the first annotation (by row order) win, so
        # rows stay aligned and the destination geometry is never written back.
        joined = gpd.sjoin(
            shapes_df[["geometry"]],
            anno_df.reset_index(drop=True),
            how="left",
            predicate="intersects",
        ).sort_values("index_right")
        joined = joined[~joined.index.duplicated()].drop(
            columns=["geometry", "index_right"]
        )
        update_shapes_data(wsi, join_to, joined)


def export_annotations(
    wsi: WSIData,
    key: str,
    *,
    in_bounds: bool = False,
    classes: str | None = None,
    colors: str | Mapping | Sequence | None = None,
    format: Literal["qupath"] = "qupath",
    file: str | Path | None = None,
):
    """
    Export the annotations

    Parameters
    ----------
    wsi : :class:`WSIData <wsidata.WSIData>`
        The WSIData object to work on.
    key : str
        The key to export. Must exist in wsi.shapes.
    in_bounds : bool, default: False
        Whether to move the annotations to the slide bounds.
    classes : str, default: None
        The column to use for the classification.
        If None, the classification will be ignored.
        If provided, must exist in the GeoDataFrame.
    colors : str | Mapping | Sequence, default: None
        The column to use for the color, or a mapping from class values to colors,
        or a sequence of colors to be assigned to unique class values.
        If None, default colors will be used.
    format : str, default: 'qupath'
        The format to export.
        Currently only 'qupath' is supported.
    file : str | Path, default: None
        The file to save the annotations.
        If None, the annotations will not be saved.
        If provided, the parent directory will be created if it doesn't exist.

    Returns
    -------
    GeoDataFrame
        The exported annotations.

    Raises
    ------
    ValueError
        If key doesn't exist in wsi.shapes.
        If classes is provided but doesn't exist in the GeoDataFrame.
        If colors is provided but is not a string, mapping, or sequence.
    """
    # Validate key exists in wsi.shapes
    if key not in wsi.shapes:
        raise ValueError(
            f"Key '{key}' does not exist in wsi.shapes. Available keys: {list(wsi.shapes.keys())}"
        )

    if file is not None:
        # Ensure parent directory exists
        file_path = Path(file)
        if not file_path.parent.exists():
            raise NotADirectoryError(f"{file_path.parent} does not exist")

    gdf = wsi.shapes[key].copy()
    if in_bounds:
        gdf = _in_bounds_transform(wsi, gdf, reverse=True)

    # Prepare classification column
    if format == "qupath" and classes is not None:
        # Validate classes exists in gdf
        if classes not in gdf.columns:
            raise ValueError(f"Column '{classes}' does not exist in the GeoDataFrame.")

        class_values = gdf[classes]

        # Define default colors
        default_colors = [
            "#1B9E77",  # Teal Green
            "#D95F02",  # Burnt Orange
            "#7570B3",  # Deep Lavender
            "#E7298A",  # Magenta
            "#66A61E",  # Olive Green
            "#E6AB02",  # Goldenrod
            "#A6761D",  # Earthy Brown
            "#666666",  # Charcoal Gray
            "#1F78B4",  # Cool Blue
        ]

        # Initialize color_values
        if colors is None:
            # Use default colors in a cycle
            color_map = dict(zip(pd.unique(class_values), cycle(default_colors)))
            color_values = [color_map.get(x) for x in class_values]
        elif isinstance(colors, str):
            # Validate color column exists
            if colors not in gdf.columns:
                raise ValueError(
                    f"Color column '{colors}' does not exist in the GeoDataFrame. Available columns: {list(gdf.columns)}"
                )
            color_values = gdf[colors]
        elif isinstance(colors, Mapping):
            color_values = [colors.get(x, None) for x in gdf[classes]]
        elif isinstance(colors, Sequence):
            # Map sequence of colors to unique class values
            color_map = dict(zip(pd.unique(class_values), colors))
            color_values = [color_map.get(x, None) for x in class_values]
        else:
            raise ValueError(
                f"Invalid colors: {colors}. Must be a string, mapping, or sequence."
            )

        # Convert colors to RGB arrays
        from matplotlib.colors import to_rgb

        color_values = [
            tuple(int(255 * c) for c in to_rgb(x)) if x is not None else None
            for x in color_values
        ]

        # Create classification JSON strings
        classifications = []
        for class_value, color_value in zip(class_values, color_values):
            json_string = json.dumps({"name": class_value, "color": color_value})
            classifications.append(json_string)
        gdf["classification"] = classifications

    if file is not None:
        gdf.to_file(file)

    return gdf
