from typing import Literal

from wsidata import WSIData

from .._const import Key
from ._wsi_viewer import WSIViewer


def tissue(
    wsi: WSIData,
    tissue_id=None,
    tissue_key=Key.tissue,
    title=None,
    show_contours=True,
    show_id=True,
    mark_origin=True,
    scalebar=True,
    in_bounds=True,
    zoom=None,
    img_bytes_limit=2e9,
    display_aware=True,
    oversample=1.5,
    target_dpi=None,
    ax=None,
    ncols=4,
    wspace=0.5,
    hspace=0.5,
    return_figure=False,
):
    """
    Display the tissue image.

    Parameters
    ----------
    wsi : :class:`WSIData <wsidata.WSIData>`
        The whole-slide image object.
    tissue_id : int or 'all', default: None
        The tissue id (piece) to extract.
    tissue_key : str, default: "tissues"
        The tissue key.
    title : str or array of str, default: None
        The title of the plot.
    show_contours : bool, default: True
        Show the tissue contours.
    mark_origin : bool, default: True
        Show the origin.
    show_id : bool, default: True
        Show the tissue id.
    scalebar : bool, default: True
        Show the scalebar.
    in_bounds : bool, default: True
        Show the tissue in bounds.
    zoom : (xmin, xmax, ymin, ymax), default: None
        A zoom view for the current viewport.
        If in range [0, 1], will be interpreted as a fraction of the image size.
        If > 1, will be interpreted as the absolute size in pixels.
    img_bytes_limit : int, default: 2e9
        A safety ceiling on the bytes of the image to read. The level is
        primarily chosen from the displayed size (see ``display_aware``).
    display_aware : bool, default: True
        Choose the image pyramid level from the displayed figure size at render
        time, avoiding reading a high-resolution image into a small figure.
    oversample : float, default: 1.5
        Read this many times more pixels than the axes occupies, for crispness.
    target_dpi : float, optional
        Override the figure DPI when sizing the image. Set to the export DPI
        (e.g. ``target_dpi=300`` for ``savefig(dpi=300)``) for high-DPI output.
    ax : matplotlib.axes.Axes, default: None
        The axes to plot on. Only used when plotting a single tissue.
    ncols : int, default: 4
        The number of columns of the grid when plotting several tissues.
    wspace : float, default: 0.5
        The width spacing between the subplots of the grid.
    hspace : float, default: 0.5
        The height spacing between the subplots of the grid.
    return_figure : bool, default: False
        Return the figure of the grid when plotting several tissues.

    Returns
    -------
    None or matplotlib.figure.Figure
        The figure if several tissues are plotted and ``return_figure`` is True,
        otherwise None.

    Examples
    --------

    .. plot::
        :context: close-figs

        >>> import lazyslide as zs
        >>> wsi = zs.datasets.gtex_artery()
        >>> zs.pl.tissue(wsi, tissue_id="all")

    """
    import matplotlib.pyplot as plt
    from matplotlib.gridspec import GridSpec

    # We need to prepare the following variables
    # axes, list of ax
    # tissue_id, list of tissue ids

    # Prepare tissue_id
    if tissue_key in wsi:
        if tissue_id is None:
            tissue_ids = [None]
        elif isinstance(tissue_id, int):
            tissue_ids = [tissue_id]
        elif tissue_id == "all":
            tissue_ids = sorted(wsi[tissue_key].tissue_id.unique().tolist())
        else:
            tissue_ids = list(tissue_id)
    else:
        tissue_ids = [None]

    # Prepare title
    if title is None:
        if tissue_ids[0] is None:
            titles = [""]
        else:
            titles = [f"Tissue {tid}" for tid in tissue_ids]
    elif isinstance(title, str):
        titles = [title] * len(tissue_ids)
    else:
        titles = list(title)

    # Prepare axes for plotting
    n_axes = len(tissue_ids)
    if n_axes == 1:
        if ax is None:
            ax = plt.gca()
        axes = [ax]
    else:
        nrows = n_axes // int(ncols) + 1
        figure = plt.figure(figsize=(ncols * 4, nrows * 4))
        gs = GridSpec(nrows, ncols, wspace=wspace, hspace=hspace)
        axes = [figure.add_subplot(gs[i]) for i in range(n_axes)]

    for tid, t, ax in zip(tissue_ids, titles, axes):
        viewer = WSIViewer(
            wsi,
            in_bounds=in_bounds,
            img_bytes_limit=img_bytes_limit,
            display_aware=display_aware,
            oversample=oversample,
            target_dpi=target_dpi,
        )
        viewer.add_image()
        if show_contours and tissue_key in wsi:
            viewer.add_contours(
                key=tissue_key,
                label_by="tissue_id" if show_id else None,
            )
        if tid is not None:
            viewer.set_tissue_id(tid, tissue_key=tissue_key)
        if scalebar:
            viewer.add_scalebar()
        if mark_origin:
            viewer.mark_origin()
        if zoom is not None:
            viewer.add_zoom(*zoom)
        viewer.title = t
        viewer.show(ax=ax)

    # Return the axes if there is only one
    if n_axes > 1 and return_figure:
        return figure
    return None


def tiles(
    wsi: WSIData,
    feature_key=None,
    color=None,
    tissue_id=None,
    tissue_key=None,
    tile_key=Key.tiles,
    title=None,
    style: Literal["scatter", "heatmap"] = "heatmap",
    show_image=True,
    show_contours=True,
    show_id=False,
    mark_origin=True,
    scalebar=True,
    in_bounds=True,
    img_bytes_limit=2e9,
    display_aware=True,
    oversample=1.5,
    target_dpi=None,
    zoom=None,
    alpha=0.9,
    smooth=False,
    smooth_scale=2,
    marker="o",
    vmin=None,
    vmax=None,
    cmap=None,
    norm=None,
    palette=None,
    size=None,
    gridcolor="k",
    linewidth=0.1,
    ax=None,
    rasterized=True,
    ncols=4,
    wspace=0.5,
    hspace=0.5,
    **kwargs,
):
    """
    Display the tiles.

    Parameters
    ----------
    wsi : :class:`WSIData <wsidata.WSIData>`
        The whole-slide image object.
    feature_key : str, default: None
        The feature key assigned when generating the numeric tile features.
    color : str, default: None
        The column/ feature name that should be visualized from feature_key.
        If feature_key is None, this is the column name from the tiles table.
    tissue_id : int or 'all', default: None
        The tissue id (piece) to plot.
        If None, all will be plotted.
    tissue_key : str, default: None
        The tissue key. If None, uses the tissue the tiles were made from.
    tile_key : str, default: "tiles"
        The key of the tiles in the :bdg-danger:`shapes` slot.
    title : str or array of str, default: None
        The title of the plot.
    style : {"heatmap", "scatter"}, default: "heatmap"
        The style of the plot.
    show_image :  bool, default: True
        Show the tissue image.
    show_contours : bool, default: True
        Show the tissue contours.
    mark_origin : bool, default: True
        Show the origin.
    scalebar : bool, default: True
        Show the scalebar.
    in_bounds : bool, default: True
        Show the tiles in bounds.
    img_bytes_limit : int, default: 2e9
        A safety ceiling on the bytes of the image to read. The level is
        primarily chosen from the displayed size (see ``display_aware``).
    zoom : (xmin, xmax, ymin, ymax), default: None
        A zoom view for the current viewport.
        If in range [0, 1], will be interpreted as a fraction of the image size.
        If > 1, will be interpreted as the absolute size in pixels.
    show_id : bool, default: False
        Show the tissue (piece) id.
    alpha : float, default: 0.9
        The transparency of the points.
    marker : str, default: "o"
        The marker of the points.
    vmin : float, default: None
        The minimum value of the color map.
    vmax : float, default: None
        The maximum value of the color map.
    cmap : str, default: None
        The color map.
    norm : matplotlib.colors.Normalize, default: None
        The normalization of the color map.
    palette : str, default: None
        The color palette.
    smooth : bool, default: False
        Whether to apply spatial smoothing to the plotted values.
    smooth_scale : int, default: 2
        The scale factor for spatial smoothing.
    size : int, default: None
        The size of the points.
    gridcolor : str, default: "k"
        The color of the tile grid lines.
    linewidth : float, default: 0.1
        The width of the tile grid lines.
    ax : matplotlib.axes.Axes, default: None
        The axes to plot on.
    rasterized : bool, default: True
        Rasterize the points.
    ncols : int, default: 4
        The number of columns of the grid when plotting several tissues.
    wspace : float, default: 0.5
        The width spacing between the subplots of the grid.
    hspace : float, default: 0.5
        The height spacing between the subplots of the grid.
    display_aware : bool, default: True
        Choose the image pyramid level from the displayed figure size at render
        time, avoiding reading a high-resolution image into a small figure.
    oversample : float, default: 1.5
        Read this many times more pixels than the axes occupies, for crispness.
    target_dpi : float, optional
        Override the figure DPI when sizing the image. Set to the export DPI
        (e.g. ``target_dpi=300`` for ``savefig(dpi=300)``) for high-DPI output.
    kwargs : dict
        Additional keyword arguments for plotting.

    Examples
    --------

    .. plot::
        :context: close-figs

        >>> import lazyslide as zs
        >>> wsi = zs.datasets.sample()
        >>> zs.tl.tile_prediction(wsi, "contrast")
        >>> zs.pl.tiles(wsi, tissue_id=0, color='contrast')

    """
    import matplotlib.pyplot as plt
    from matplotlib.gridspec import GridSpec

    tile_spec = wsi.tile_spec(tile_key)
    # Prepare tissue_id
    if tissue_key is None:
        tissue_key = tile_spec.tissue_name

    if tissue_key in wsi:
        if tissue_id is None:
            tissue_ids = [None]
        elif isinstance(tissue_id, int):
            tissue_ids = [tissue_id]
        elif tissue_id == "all":
            tissue_ids = sorted(wsi[tissue_key].tissue_id.unique().tolist())
        else:
            tissue_ids = list(tissue_id)
    else:
        tissue_ids = [None]

    # Prepare colors
    if color is None:
        colors = [None]
    elif isinstance(color, str):
        colors = [color]
    else:
        colors = list(color)

    # Prepare axes for plotting
    n_axes = len(tissue_ids) * len(colors)
    if n_axes == 1:
        if ax is None:
            ax = plt.gca()
        axes = [ax]
    else:
        nrows = n_axes // int(ncols) + 1
        figure = plt.figure(figsize=(ncols * 4, nrows * 4))
        gs = GridSpec(nrows, ncols, wspace=wspace, hspace=hspace)
        axes = [figure.add_subplot(gs[i]) for i in range(n_axes)]

    # Prepare title
    if title is None:
        titles = [""] * n_axes
    elif isinstance(title, str):
        titles = [title] * n_axes
    else:
        titles = list(title)

    options = dict(
        style=style,
        alpha=alpha,
        marker=marker,
        vmin=vmin,
        vmax=vmax,
        cmap=cmap,
        norm=norm,
        palette=palette,
        size=size,
        smooth=smooth,
        smooth_scale=smooth_scale,
        rasterized=rasterized,
        gridcolor=gridcolor,
        linewidth=linewidth,
        **kwargs,
    )

    ix = 0
    for tid in tissue_ids:
        for c in colors:
            t = titles[ix]
            ax = axes[ix]
            ix += 1

            viewer = WSIViewer(
                wsi,
                in_bounds=in_bounds,
                img_bytes_limit=img_bytes_limit,
                display_aware=display_aware,
                oversample=oversample,
                target_dpi=target_dpi,
            )
            if show_image:
                viewer.add_image()

            if show_contours and tissue_key in wsi:
                viewer.add_contours(
                    key=tissue_key,
                    label_by="tissue_id" if show_id else None,
                )
            if tid is not None:
                viewer.set_tissue_id(tid, tissue_key=tissue_key)
            if mark_origin:
                viewer.mark_origin()
            if scalebar:
                viewer.add_scalebar()
            if zoom is not None:
                viewer.add_zoom(*zoom)

            viewer.add_tiles(
                key=tile_key,
                color_by=c,
                feature_key=feature_key,
                **options,
            )
            if t == "":
                if tid is not None:
                    t += f"Tissue ({tid})"
                if viewer.title is not None:
                    t += f" {viewer.title}"
            viewer.title = t
            viewer.show(ax=ax)


def annotations(
    wsi: WSIData,
    key: str,
    color=None,
    label=None,
    show_image=True,
    mark_origin=True,
    scalebar=True,
    in_bounds=True,
    img_bytes_limit=2e9,
    display_aware=True,
    oversample=1.5,
    target_dpi=None,
    tissue_key=Key.tissue,
    tissue_id=None,
    zoom=None,
    fill=True,
    linewidth=0.5,
    palette=None,
    alpha=0.9,
    legend_kws=None,
    legend=True,
    title=None,
    ncols=4,
    wspace=0.5,
    hspace=0.5,
    ax=None,
    backend=None,
):
    """
    Display the :term:`annotation <annotations>` .

    Parameters
    ----------
    wsi : :class:`WSIData <wsidata.WSIData>`
        The whole-slide image object.
    key : str
        The annotation key.
    color : str, optional
        The column or feature name to use for coloring the annotations.
    label : str, optional
        The column or feature name to use for labeling the annotations.
    show_image : bool, default: True
        Whether to display the underlying tissue image.
    mark_origin : bool, default: True
        Whether to mark the origin on the plot.
    scalebar : bool, default: True
        Whether to show a scalebar.
    in_bounds : bool, default: True
        Whether to restrict annotations to the image bounds.
    img_bytes_limit : int, default: 2e9
        A safety ceiling on the bytes of the image to read. The level is
        primarily chosen from the displayed size (see ``display_aware``).
    display_aware : bool, default: True
        Choose the image pyramid level from the displayed figure size at render
        time, avoiding reading a high-resolution image into a small figure.
    oversample : float, default: 1.5
        Read this many times more pixels than the axes occupies, for crispness.
    target_dpi : float, optional
        Override the figure DPI when sizing the image. Set to the export DPI
        (e.g. ``target_dpi=300`` for ``savefig(dpi=300)``) for high-DPI output.
    tissue_key : str, default: "tissues"
        The key for tissue segmentation.
    tissue_id : int or 'all', optional
        The tissue id(s) to display annotations for.
    zoom : tuple, optional
        (xmin, xmax, ymin, ymax) for zooming into a region.
    fill : bool, default: True
        Whether to fill the annotation polygons.
    linewidth : float, default: 0.5
        The line width of the annotation polygons.
    palette : str, optional
        The color palette to use.
    alpha : float, default: 0.9
        The transparency of the annotation polygons.
    legend_kws : dict, optional
        Additional keyword arguments for the legend.
    legend : bool, default: True
        Whether to display a legend.
    title : str or list of str, optional
        The title(s) for the plot(s).
    ncols : int, default: 4
        Number of columns for subplot arrangement.
    wspace : float, default: 0.5
        Width space between subplots.
    hspace : float, default: 0.5
        Height space between subplots.
    ax : matplotlib.axes.Axes, optional
        The axes to plot on.
    backend : {'matplotlib', 'datashader'}, optional
        The backend to use for plotting. If None, datashader is used when there
        are more than 10,000 polygons.

    Returns
    -------
    None

    Examples
    --------

    .. plot::
        :context: close-figs

        >>> import lazyslide as zs
        >>> wsi = zs.datasets.sample()
        >>> zs.pl.annotations(wsi, key="annotations", tissue_id="all")

    """
    import matplotlib.pyplot as plt
    from matplotlib.gridspec import GridSpec

    # Prepare tissue_id
    if tissue_key in wsi:
        if tissue_id is None:
            tissue_ids = [None]
        elif isinstance(tissue_id, int):
            tissue_ids = [tissue_id]
        elif tissue_id == "all":
            tissue_ids = sorted(wsi[tissue_key].tissue_id.unique().tolist())
        else:
            tissue_ids = list(tissue_id)
    else:
        tissue_ids = [None]

    # Prepare title
    if title is None:
        if tissue_ids[0] is None:
            titles = [""]
        else:
            titles = [f"Tissue {tid}" for tid in tissue_ids]
    elif isinstance(title, str):
        titles = [title] * len(tissue_ids)
    else:
        titles = list(title)

    # Prepare axes for plotting
    n_axes = len(tissue_ids)
    if n_axes == 1:
        if ax is None:
            ax = plt.gca()
        axes = [ax]
    else:
        nrows = n_axes // int(ncols) + 1
        figure = plt.figure(figsize=(ncols * 4, nrows * 4))
        gs = GridSpec(nrows, ncols, wspace=wspace, hspace=hspace)
        axes = [figure.add_subplot(gs[i]) for i in range(n_axes)]
    for tid, t, ax in zip(tissue_ids, titles, axes):
        viewer = WSIViewer(
            wsi,
            in_bounds=in_bounds,
            img_bytes_limit=img_bytes_limit,
            display_aware=display_aware,
            oversample=oversample,
            target_dpi=target_dpi,
        )
        if show_image:
            viewer.add_image()
        if mark_origin:
            viewer.mark_origin()
        if scalebar:
            viewer.add_scalebar()
        if tissue_id is not None:
            viewer.set_tissue_id(tid, tissue_key=tissue_key)
        if fill:
            viewer.add_polygons(
                key,
                color_by=color,
                label_by=label,
                palette=palette,
                alpha=alpha,
                legend=legend,
                legend_kws=legend_kws,
                linewidth=linewidth,
                backend=backend,
            )
        else:
            viewer.add_contours(
                key,
                color_by=color,
                label_by=label,
                palette=palette,
                legend=legend,
                legend_kws=legend_kws,
                linewidth=linewidth,
            )

        if zoom is not None:
            viewer.add_zoom(*zoom)
        viewer.title = t
        viewer.show(ax=ax)
