from wespeaker.cli.speaker import load_model  # noqa
from wespeaker.cli.speaker import load_model_pt  # noqa
