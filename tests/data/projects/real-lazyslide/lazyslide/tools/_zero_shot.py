from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from wsidata import WSIData

from lazyslide import _api

if TYPE_CHECKING:
    import torch
    from lazyslide_models import ModelBaseProtocol


def _preprocess_prompts(prompts: list[str | list[str]]) -> list[list[str]]:
    """
    Preprocess the prompts to ensure they are in the correct format.
    """
    processed_prompts = []
    for prompt in prompts:
        if isinstance(prompt, str):
            processed_prompts.append([prompt])
        elif isinstance(prompt, Iterable):
            processed_prompts.append(list(prompt))
        else:
            # TRY004 suggests TypeError; kept as ValueError for consistency
            # with the rest of the public API surface.
            raise ValueError(f"Invalid prompt type: {type(prompt)}")  # noqa: TRY004
    return processed_prompts


def _get_agg_info(
    wsi: WSIData,
    feature_key,
    agg_key: str | None = None,
    agg_by: str | Sequence[str] | None = None,
):
    if agg_key is None:
        if agg_by is None:
            agg_key = "agg_slide"
        else:
            if isinstance(agg_by, str):
                agg_by = [agg_by]
            agg_key = f"agg_{'_'.join(agg_by)}"
    agg_info = wsi[feature_key].uns["agg_ops"][agg_key]
    annos = None
    if "keys" in agg_info:
        annos = pd.DataFrame(
            data=agg_info["values"],
            columns=agg_info["keys"],
        )
    return agg_info, annos


def zero_shot_score(
    wsi: WSIData,
    prompts: list[str | list[str]],
    feature_key,
    *,
    agg_key: str | None = None,
    agg_by: str | Sequence[str] | None = None,
    model: str | ModelBaseProtocol = "prism",
    device: str | None = None,
    amp: bool | None = None,
    autocast_dtype: torch.dtype | None = None,
    compile: bool | None = None,
    compile_kws: dict | None = None,
):
    """
    Perform :term:`zero-shot learning` classification on the :term:`WSI`

    Any slide-level model that scores slide features against text works, for
    example "prism" (`Prism <https://huggingface.co/paige-ai/Prism>`_) or
    "titan" (`TITAN <https://huggingface.co/MahmoodLab/TITAN>`_).

    Corresponding slide-level features are required for the model.


    Parameters
    ----------
    wsi : :class:`WSIData <wsidata.WSIData>`
        The WSIData object to work on.
    prompts : list of str, or list of list of str
        The text labels to classify. Each entry is one class; use a list of
        strings for an entry to add more information to that one class.
    feature_key : str
        The tile :term:`features` to be used.
    agg_key : str, default: None
        The aggregation key.
    agg_by : str or list of str, default: None
        The aggregation keys that were used to create the slide features.
    model : str or ModelBaseProtocol, default: "prism"
        The model to use for zero-shot classification: a model registry key (see
        :ref:`models-section`) or a model instance with a ``score`` method.
    device : str, default: None
        The device to use for inference. If None, the default device will be used.
    amp : bool, optional
        Whether to use automatic mixed precision.
    autocast_dtype : torch.dtype, optional
        The dtype for automatic mixed precision.
    compile : bool, optional
        Whether to compile the model with :func:`torch.compile`.
        Compilation is best-effort and is silently skipped for models
        that do not support it.
    compile_kws : dict, optional
        Keyword arguments passed to :func:`torch.compile`.

    Returns
    -------
    :class:`DataFrame <pandas.DataFrame>`
        The classification results (probability). The columns are the text labels and the
        rows are the slide features.

    Examples
    --------

    .. code-block:: python

        >>> import lazyslide as zs
        >>> wsi = zs.datasets.lung_carcinoma(with_data=False)
        >>> zs.pp.find_tissues(wsi)
        >>> zs.pp.tile_tissues(wsi, 224, background_fraction=0.95, mpp=0.5)
        >>> zs.tl.feature_extraction(wsi, "virchow")
        >>> zs.tl.feature_aggregation(wsi, feature_key="virchow", encoder="prism")
        >>> classes = ["lung cancer", "normal lung"]
        >>> print(zs.tl.zero_shot_score(wsi, classes, feature_key="virchow_tiles"))

    """
    import torch
    from lazyslide_models import MODEL_REGISTRY

    device = _api.default_value("device", device)

    prompts = _preprocess_prompts(prompts)

    if isinstance(model, str):
        model = MODEL_REGISTRY[model]()
    if not hasattr(model, "score"):
        raise TypeError(
            f"{type(model).__name__} cannot score prompts: it has no `score` method."
        )
    model.to(device)
    model = _api.maybe_compile(model, compile, compile_kws)
    # Get the embeddings from the WSI
    agg_info, annos = _get_agg_info(
        wsi,
        feature_key,
        agg_key=agg_key,
        agg_by=agg_by,
    )

    all_probs = []
    with _api.autocast(device, amp, autocast_dtype), torch.inference_mode():
        for ix, f in enumerate(agg_info["features"]):
            f = torch.tensor(f).unsqueeze(0).to(device)
            probs = model.score(f, prompts=prompts)
            all_probs.append(probs.detach().cpu().numpy())

    all_probs = np.vstack(all_probs)

    named_prompts = [", ".join(p) for p in prompts]
    results = pd.DataFrame(
        data=all_probs,
        columns=named_prompts,
    )
    if annos is not None:
        results = pd.concat([annos, results], axis=1)
    return results


def slide_caption(
    wsi: WSIData,
    prompt: list[str],
    feature_key,
    *,
    agg_key: str | None = None,
    agg_by: str | Sequence[str] | None = None,
    max_length: int = 100,
    model: str | ModelBaseProtocol = "prism",
    device: str | None = None,
    amp: bool | None = None,
    autocast_dtype: torch.dtype | None = None,
    compile: bool | None = None,
    compile_kws: dict | None = None,
):
    """
    Generate captions for the slide.

    Parameters
    ----------
    wsi : :class:`WSIData <wsidata.WSIData>`
        The :term:`WSIData` object to work on.
    prompt : list of str
        The text instruction to generate the caption.
    feature_key : str
        The slide :term:`features` to be used.
    agg_key : str, default: None
        The aggregation key.
    agg_by : str or list of str, default: None
        The aggregation keys that were used to create the slide features.
    max_length : int, default: 100
        The maximum length of the generated caption.
    model : str or ModelBaseProtocol, default: "prism"
        The caption generation model to use: a model registry key (see
        :ref:`models-section`) or a model instance with a ``caption`` method.
    device : str, default: None
        The device to use for inference. If None, the default device will be used.
    amp : bool, optional
        Whether to use automatic mixed precision.
    autocast_dtype : torch.dtype, optional
        The dtype for automatic mixed precision.
    compile : bool, optional
        Whether to compile the model with :func:`torch.compile`.
        Compilation is best-effort and is silently skipped for models
        that do not support it.
    compile_kws : dict, optional
        Keyword arguments passed to :func:`torch.compile`.

    Returns
    -------
    :class:`DataFrame <pandas.DataFrame>`
        The generated captions. Contains a 'caption' column, plus
        any annotation columns if aggregation groups were used.

    """

    import torch
    from lazyslide_models import MODEL_REGISTRY

    device = _api.default_value("device", device)

    if isinstance(model, str):
        model = MODEL_REGISTRY[model]()
    if not hasattr(model, "caption"):
        raise TypeError(
            f"{type(model).__name__} cannot caption slides: it has no `caption` method."
        )
    model.to(device)
    model = _api.maybe_compile(model, compile, compile_kws)

    agg_info, annos = _get_agg_info(
        wsi,
        feature_key,
        agg_key=agg_key,
        agg_by=agg_by,
    )

    captions = []

    with _api.autocast(device, amp, autocast_dtype), torch.inference_mode():
        for ix, lat in enumerate(agg_info["latents"]):
            lat = torch.tensor(lat).unsqueeze(0).to(device)
            caption = model.caption(
                lat,
                prompt=prompt,
                max_length=max_length,
            )
            captions.append(caption)

    results = pd.DataFrame(
        {
            "caption": captions,
        }
    )
    if annos is not None:
        results = pd.concat([annos, results], axis=1)
    return results
