from .click import generate_click
from .prosody import extract_prosody
