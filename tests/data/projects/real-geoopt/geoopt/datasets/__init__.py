from . import stereographic
