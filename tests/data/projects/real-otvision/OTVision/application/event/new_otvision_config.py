from dataclasses import dataclass


@dataclass(slots=True)
class NewOtvisionConfigEvent:
    pass
