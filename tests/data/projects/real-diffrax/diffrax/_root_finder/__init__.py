from ._verychord import VeryChord as VeryChord
from ._with_tols import (
    use_stepsize_tol as use_stepsize_tol,
    with_stepsize_controller_tols as with_stepsize_controller_tols,
)
