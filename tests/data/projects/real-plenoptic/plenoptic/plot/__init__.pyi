__all__ = [
    "imshow",
    "animshow",
    "pyrshow",
    "stem_plot",
    "update_plot",
    "plot_representation",
    "histogram",
    "eigendistortion_imshow_all",
    "mad_imshow_all",
    "mad_loss_all",
    "metamer_representation_error",
    "synthesis_loss",
    "synthesis_histogram",
    "synthesis_imshow",
    "synthesis_status",
    "synthesis_animate",
]

from .display import (
    animshow,
    histogram,
    imshow,
    plot_representation,
    pyrshow,
    stem_plot,
    update_plot,
)
from .eigendistortion import (
    eigendistortion_imshow_all,
)
from .mad_competition import (
    mad_imshow_all,
    mad_loss_all,
)
from .metamer import (
    metamer_representation_error,
)
from .synthesis import (
    synthesis_animate,
    synthesis_histogram,
    synthesis_imshow,
    synthesis_loss,
    synthesis_status,
)
