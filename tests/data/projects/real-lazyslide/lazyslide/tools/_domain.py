from wsidata import WSIData
from wsidata.io import add_shapes, update_shapes_data

from lazyslide._const import Key
from lazyslide._utils import deprecated_alias


def spatial_domain(
    wsi: WSIData,
    feature_key: str,
    tile_key: str = Key.tiles,
    layer_key: str | None = None,
    resolution: float = 0.1,
    key_added: str = "domain",
    *,
    layer: str | None = None,
):
    """
    Perform :term:`unsupervised spatial domain segmentation` on a :term:`WSI` using :term:`feature embeddings <feature embedding>`.

    This function applies scaling, PCA, :term:`neighborhood graph construction`, and :term:`Leiden clustering`
    to identify spatial domains within the WSI based on the provided :term:`features`.

    Parameters
    ----------
    wsi : :class:`WSIData <wsidata.WSIData>`
        The whole-slide image object.
    feature_key : str
        The key for the feature table to use.
    tile_key : str, default: "tiles"
        The key for the tile table.
    layer_key : str, optional
        The layer in the feature table to use for clustering.
    resolution : float, default: 0.1
        The resolution parameter for :term:`Leiden clustering`.
    key_added : str, default: "domain"
        The key under which to store the domain labels.
    layer : str, optional
        .. deprecated:: 0.13.0
            Use ``layer_key`` instead; ``layer`` will be removed in 0.14.0.

    Returns
    -------
    None
        The domain labels are added to the tile table in the WSIData object.

    Examples
    --------

    .. code-block:: python

        >>> import lazyslide as zs
        >>> wsi = zs.datasets.sample()
        >>> zs.pp.find_tissues(wsi)
        >>> zs.pp.tile_tissues(wsi, 256, mpp=0.5)
        >>> zs.tl.feature_extraction(wsi, "resnet50")
        >>> zs.pp.tile_graph(wsi)
        >>> zs.tl.spatial_features(wsi, "resnet50")
        >>> zs.tl.spatial_domain(wsi, layer_key="spatial_features", feature_key="resnet50", resolution=0.3)

    """
    layer_key = deprecated_alias("layer", layer, "layer_key", layer_key)
    try:
        import scanpy as sc
    except ImportError:
        raise ImportError(
            "Please install scanpy to use this function, try `pip install scanpy`."
        )
    feature_key = wsi._check_feature_key(feature_key, tile_key)
    adata = wsi.fetch.features_anndata(feature_key, tile_key, tile_graph=False)
    sc.pp.scale(adata, layer=layer_key)
    sc.pp.pca(adata, layer=layer_key)
    sc.pp.neighbors(adata)
    sc.tl.leiden(adata, flavor="igraph", key_added=key_added, resolution=resolution)
    # Add to tile table
    update_shapes_data(wsi, tile_key, {key_added: adata.obs[key_added].to_numpy()})


def tile_shaper(
    wsi: WSIData,
    groupby: str = "domain",
    tile_key: str = Key.tiles,
    key_added: str = "domain_shapes",
):
    """
    Return the domain shapes of the :term:`WSI` by merging :term:`tiles <tile>` with the same types
    that are spatially aggregated into :term:`polygons <polygon>` using geopandas dissolve.

    Parameters
    ----------
    wsi : :class:`WSIData <wsidata.WSIData>`
        The WSIData object.
    groupby : str, default: "domain"
        The groupby key.
    tile_key : str, default: "tiles"
        The :term:`tile` key.
    key_added : str, default: "domain_shapes"
        The key to add the shapes to.

    Returns
    -------
    None
        The domain shapes are added to the :bdg-danger:`shapes` slot of the
        :term:`WSIData` object under ``key_added``.

    Examples
    --------

    .. code-block:: python

        >>> import lazyslide as zs
        >>> wsi = zs.datasets.sample()
        >>> zs.tl.tile_shaper(wsi, groupby="domain")

    """
    import geopandas as gpd
    from shapely.geometry import box

    tile_table = wsi[tile_key]

    # Create box geometries from tile bounds
    geometries = [box(*b) for b in tile_table.bounds.itertuples(index=False)]

    # Create GeoDataFrame with tile geometries and groupby column
    tiles_gdf = gpd.GeoDataFrame(
        {
            groupby: tile_table[groupby],
            "tissue_id": tile_table["tissue_id"],
            "geometry": geometries,
        }
    )

    # Group by tissue_id and groupby column, then dissolve to merge adjacent tiles
    domain_shapes = tiles_gdf.dissolve(
        by=[groupby, "tissue_id"], as_index=False
    ).explode(ignore_index=True)

    # Keep only the groupby column and geometry
    domain_shapes = domain_shapes[[groupby, "geometry"]]

    add_shapes(wsi, key_added, domain_shapes)
