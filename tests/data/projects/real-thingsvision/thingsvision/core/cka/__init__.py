from .helpers import get_cka
