import numpy as np
import torch
import torchvision.transforms.functional as F
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from torch import Tensor


def show_segmentation_predictions(prediction: Tensor, target: Tensor) -> Figure:
    imgs = [prediction, target]
    fig = Figure(figsize=(12, 6), dpi=300)
    axs = fig.subplots(ncols=2)
    for i, img in enumerate(imgs):
        img = img.detach()
        img = F.to_pil_image(img)
        axs[i].imshow(np.asarray(img))
        axs[i].set(xticklabels=[], yticklabels=[], xticks=[], yticks=[])

    axs[0].set(title="Prediction")
    axs[1].set(title="Ground Truth")
    return fig


def plot_hist(
    conf: list[torch.Tensor],
    bins: int = 20,
    title: str = "Histogram with 'auto' bins",
    dpi: int = 60,
) -> tuple[Figure, Axes]:
    """Plot a confidence histogram.

    Args:
        conf: The confidence values.
        bins: The number of bins. Defaults to ``20``.
        title: The title of the plot. Defaults to ``"Histogram with 'auto' bins"``.
        dpi: The dpi of the plot. Defaults to ``60``.

    Returns:
        Tuple[Figure, Axes]: The figure and axes of the plot.
    """
    fig = Figure(figsize=(7, 5), dpi=dpi)
    ax = fig.add_subplot()
    ax.set_axisbelow(True)
    for i in [1, 0]:
        ax.hist(
            conf[i],
            bins=bins,
            density=True,
            label=["In-distribution", "Out-of-Distribution"][i],
            alpha=0.4,
            linewidth=1,
            edgecolor=["#0d559f", "#d45f00"][i],
            color=["#1f77b4", "#ff7f0e"][i],
        )

    ax.set_title(title)
    ax.grid(True, linestyle="--", alpha=0.7, zorder=0)
    ax.legend()
    fig.tight_layout()
    return fig, ax
