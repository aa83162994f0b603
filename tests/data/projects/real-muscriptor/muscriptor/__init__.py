"""muscriptor — audio-to-MIDI transcription."""

from muscriptor.events import NoteStartEvent, NoteEndEvent
from muscriptor.transcription_model import TranscriptionModel
from muscriptor.tokenizer.notes import Note

__all__ = ["TranscriptionModel", "Note", "NoteStartEvent", "NoteEndEvent"]
