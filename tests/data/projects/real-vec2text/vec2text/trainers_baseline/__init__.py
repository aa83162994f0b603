# A very annoying property of Flake8 is that it'll
# throw errors that these imports are unused, when
# in reality it's just far too dumb to understand
# what's going on. I have to add these comments
# so that flake8 will "pass" with my code.
# See link: stackoverflow.com/questions/31079047
from .decode_inversion_trainer import DecodeInversionTrainer  # noqa: F401
from .fewshot_inversion_trainer import FewshotInversionTrainer  # noqa: F401
from .jailbreak_prompt_trainer import JailbreakPromptTrainer  # noqa: F401
