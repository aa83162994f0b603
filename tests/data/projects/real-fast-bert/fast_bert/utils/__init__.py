from .spellcheck import BingSpellCheck
