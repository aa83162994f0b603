"""Immutable source and resolved-casting inspection values."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._characters.models import CharacterRoster
    from ._domain.casting import CharacterProfile, Collision
    from ._domain.planning import SpeakerSpan


@dataclass(frozen=True, slots=True)
class BookMetadata:
    """Bibliographic metadata materialized from a readable source."""

    title: str | None = None
    author: str | None = None
    cover_available: bool = False


@dataclass(frozen=True, slots=True)
class ChapterInspection:
    """Stable chapter information available without rendering."""

    id: str
    index: int
    title: str
    speech_characters: int | None
    text: str = ""
    # Normalized heading strings in document order, title first. Recorded
    # rather than character offsets: normalization collapses whitespace
    # across the whole chapter, so raw offsets do not survive it.
    headings: tuple[str, ...] = ()
    # Canonical (start, end) offsets of emphasised runs, in document order.
    # Recorded rather than marked inline: emphasis must not alter canonical
    # text, which billing, attribution offsets, and segment identity all use.
    emphasis: tuple[tuple[int, int], ...] = ()
    # Canonical (start, end) offsets of visible h1-h6 elements, in document
    # order. Structure comes from the element, not its words: a paragraph
    # repeating a heading's text is still a paragraph.
    heading_ranges: tuple[tuple[int, int], ...] = ()
    # Canonical (start, end) offsets of blocks that open a scene after a
    # detected break marker, in document order. The marker is often zero-width
    # -- an <hr/> leaves no text at all -- so the block it introduces is what
    # carries the annotation.
    scene_ranges: tuple[tuple[int, int], ...] = ()
    title_source: str = "unknown"


@dataclass(frozen=True, slots=True)
class CastingInspection:
    """A resolved roster, cast, and attribution without rendering resources.

    Assignments are immutable ``(character_id, voice_id)`` pairs. Collisions
    describe expected voice sharing within chapters when voices are limited.
    Span offsets refer to the normalized chapter text in the same inspection.
    """

    narrator_voice_id: str
    unknown_voice_id: str
    characters: tuple[CharacterProfile, ...] = ()
    assignments: tuple[tuple[str, str], ...] = ()
    spans: tuple[SpeakerSpan, ...] = ()
    collisions: tuple[Collision, ...] = ()


@dataclass(frozen=True, slots=True)
class BookInspection:
    """Source information plus casting when this pipeline has been resolved."""

    metadata: BookMetadata
    chapters: tuple[ChapterInspection, ...]
    casting: CastingInspection | None = None
    roster: CharacterRoster | None = None
    # Selection changes the public chapters, not the source ordinal basis.
    # Only planning consumes this snapshot; repr/equality and output metadata
    # deliberately describe the selected view.
    _planning_chapters: tuple[ChapterInspection, ...] = field(
        default=(), repr=False, compare=False
    )

    # PDF preparation is additional identity, never a replacement for raw bytes.
    _preparation_identity: str | None = field(default=None, repr=False)
