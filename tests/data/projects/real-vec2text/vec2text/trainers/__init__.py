# A very annoying property of Flake8 is that it'll
# throw errors that these imports are unused, when
# in reality it's just far too dumb to understand
# what's going on. I have to add these comments
# so that flake8 will "pass" with my code.
# See link: stackoverflow.com/questions/31079047
from .corrector import Corrector  # noqa: F401
from .inversion import InversionTrainer  # noqa: F401
from .inversion_bow import InversionTrainerBagOfWords  # noqa: F401
from .inversion_from_logits import InversionFromLogitsTrainer  # noqa: F401
from .inversion_na import InversionTrainerNonAutoregressive  # noqa: F401
