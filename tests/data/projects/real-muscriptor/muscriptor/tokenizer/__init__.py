from .notes import note_event2midi, note2note_event

__all__ = ["note_event2midi", "note2note_event"]
