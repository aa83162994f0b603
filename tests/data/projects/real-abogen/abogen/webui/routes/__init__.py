from abogen.webui.routes.main import main_bp
from abogen.webui.routes.jobs import jobs_bp
from abogen.webui.routes.settings import settings_bp
from abogen.webui.routes.voices import voices_bp
from abogen.webui.routes.entities import entities_bp
from abogen.webui.routes.books import books_bp
from abogen.webui.routes.api import api_bp

__all__ = [
    "main_bp",
    "jobs_bp",
    "settings_bp",
    "voices_bp",
    "entities_bp",
    "books_bp",
    "api_bp",
]

