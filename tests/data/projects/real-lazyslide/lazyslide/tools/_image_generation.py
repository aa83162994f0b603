from __future__ import annotations

from contextlib import suppress
from typing import TYPE_CHECKING

from PIL import Image
from wsidata import WSIData

from lazyslide import _api

if TYPE_CHECKING:
    import torch
    from lazyslide_models import ImageGenerationModelProtocol


def image_generation(
    wsi: WSIData = None,
    model: str | ImageGenerationModelProtocol = "cytosyn",
    prompt_tiles: slice | None = None,
    tile_key: str = "tiles",
    device: str | None = None,
    amp: bool | None = None,
    autocast_dtype: torch.dtype = None,
    num_images_per_tiles: int = 2,
    seed: int = 0,
    *,
    compile: bool | None = None,
    compile_kws: dict | None = None,
    **kwargs,
) -> list[Image.Image]:
    """
    Generation of :term:`tile` images unconditionally or conditionally.

    Conditional generation (``prompt_tiles``) needs a model with
    ``generate_conditionally``, like CytoSyn, and H0-mini features of the tiles.

    Parameters
    ----------
    wsi : :class:`WSIData <wsidata.WSIData>`
        The WSIData object to work on.
    model : str or ImageGenerationModelProtocol, default: "cytosyn"
        The image generation model: a model registry key (see
        :ref:`models-section`) or a model instance.
    prompt_tiles : slice, default: None
        The :term:`tiles <tile>` to generate images for, please use index to select tiles.
        If None, unconditional generation is performed.
    tile_key : str, default: "tiles"
        Which tile table to use.
    device : str, optional
        The device to use for inference. If not provided, the device will be automatically selected.
    amp : bool, optional
        Whether to use automatic mixed precision.
    autocast_dtype : torch.dtype, optional
        The dtype for automatic mixed precision.
    num_images_per_tiles : int, default: 2
        The number of images to generate for each tile if conditional generation is used.
        Otherwise, it's the total number of images to generate if unconditional generation is used.
    seed : int, default: 0
        The random seed to ensure reproducible image generation (May not work for all models).
    **kwargs : dict
        Additional keyword arguments passed to the model's generation function.
        Please refer to the documentation of the specific model for details.
    compile : bool, optional
        Whether to compile the model with :func:`torch.compile`.
        Compilation is best-effort and is silently skipped for models
        that do not support it.
    compile_kws : dict, optional
        Keyword arguments passed to :func:`torch.compile`.

    Returns
    -------
    list of :class:`PIL.Image.Image`
        A list of generated images in PIL format.

    Examples
    --------

    >>> import lazyslide as zs
    >>> # Unconditional generation
    >>> imgs = zs.tl.image_generation()
    >>> # Conditional generation
    >>> wsi = zs.datasets.sample()
    >>> zs.tl.feature_extraction(wsi, "h0-mini")
    >>> imgs = zs.tl.image_generation(wsi, prompt_tiles=slice(0, 2)) # Generate images for the first two tiles

    """
    import torch
    from lazyslide_models import MODEL_REGISTRY

    device = _api.default_value("device", device)

    generation_model = MODEL_REGISTRY[model]() if isinstance(model, str) else model
    with suppress(Exception):
        generation_model.to(device)
    generation_model = _api.maybe_compile(generation_model, compile, compile_kws)
    amp_ctx = _api.autocast(device, amp, autocast_dtype)
    with amp_ctx, torch.inference_mode():
        opts = {
            "num_images_per_prompt": num_images_per_tiles,
            "seed": seed,
        }
        opts.update(kwargs)
        # Unconditional generation
        if prompt_tiles is None:
            return generation_model.generate(**opts)
        # Conditional generation
        else:
            # Check if H0-mini features exist
            try:
                feature_key = wsi._check_feature_key("h0-mini", tile_key)
            except KeyError:
                raise KeyError(
                    "H0-mini features are needed for image generation with cytosyn model."
                )
            cls_tokens = wsi[feature_key][prompt_tiles].X[:, :768]
            cls_tokens = torch.tensor(cls_tokens, dtype=torch.float32)
            return generation_model.generate_conditionally(cls_tokens, **opts)
