"""Lazy immutable public audiobook pipeline."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import TYPE_CHECKING, Concatenate, Literal, ParamSpec, TypeAlias, TypeVar

from ._characters.continuity import eligible_series_voice_ids
from ._characters.review import validate_roster
from ._domain.casting import validate_method
from ._domain.operations import (
    DEFAULT_IDENTITY_MODEL,
    Annotations,
    AssignVoices,
    AttributeQuotes,
    Attributions,
    ChapterTitles,
    InferCharacters,
    MetadataIntent,
    Operation,
    Pauses,
    Pronunciations,
    Select,
    SelectChapterRange,
    SelectChapters,
    Series,
    Silences,
    SpokenForm,
    SynthesizeSpeech,
    append_unique,
    has_operation,
    replace_or_append,
)
from ._domain.paths import Pattern, parse_pattern
from ._domain.selection import select_chapters, select_range, selected_ranges
from ._domain.sidecar import (
    authoring_snapshot,
    deserialize,
    serialize,
    sidecar_path,
    write_sidecar,
)
from ._domain.summary import summarize_identity, summarize_style, summarize_tuning
from ._domain.tuning import Rule, overlap_warnings
from ._execution.coordinator import execute_sequential
from ._pdf.options import PdfLayoutOptions, PdfOptions
from ._progress import EventEmitter
from ._resolution import log_collisions, resolve_characters, resolve_inputs
from ._source import source_digest
from ._source_adapter import (
    PreparedSource,
    inspect_document,
    prepare_document,
    snapshot_document,
)
from .api import Result, ValidationIssue, ValidationResult
from .errors import (
    EncodingError,
    ErrorCode,
    SourceError,
    ValidationError,
)
from .observability import get_logger, log_event
from .validation import (
    render_intent_errors,
    series_intent_errors,
    source_validation_error,
)
from .voices import Voice

if TYPE_CHECKING:
    import os
    from collections.abc import Callable

    from ._characters.models import CharacterRoster, SeriesRecord
    from ._domain.summary import TierSummary, TuningSummary
    from ._pdf.models import PdfDocument
    from ._pdf.recipe import PdfRecipeStep
    from ._resolution import Resolved, RosterCheckpoint
    from .cancellation import CancellationToken
    from .events import ExecutionEvent
    from .inspection import BookInspection
    from .script import Script

_LOGGER = get_logger(__name__)
_NUMBER_TIERS = frozenset({"off", "conservative", "standard", "aggressive"})
_MAX_TITLE_CHARACTERS = 500
_MAX_PAUSE_MS = 60_000
_PipeArgs = ParamSpec("_PipeArgs")
_PipeResult = TypeVar("_PipeResult")
_RuleOperationT = TypeVar("_RuleOperationT", Attributions, Silences, Pronunciations)
WhereArg: TypeAlias = (
    Pattern | Mapping[str, object] | tuple[Pattern | Mapping[str, object], ...] | None
)


@dataclass(frozen=True, slots=True)
class Source:
    """A lazily recorded readable source."""

    path: Path
    format: Literal["epub", "pdf"]
    pdf_options: PdfOptions | None = None


@dataclass(frozen=True, slots=True)
class Pipeline:
    """A source plus ordered immutable audiobook intent."""

    source: Source
    operations: tuple[Operation, ...] = ()
    # Not intent, and never part of the plan or its fingerprint: resolve()
    # parks finished values here so write() can skip re-deriving them.
    _resolved: Resolved | None = None
    _roster: RosterCheckpoint | None = None
    _prepared: PreparedSource | None = None

    def pdf_processing(
        self,
        *,
        mode: Literal["auto", "native"] = "auto",
        steps: tuple[PdfRecipeStep, ...] | None = None,
        language: str = "en",
        layout: PdfLayoutOptions | None = None,
    ) -> Pipeline:
        """Record a PDF recipe and invalidate text-dependent checkpoints.

        Native mode uses embedded text without rendering or model inference.
        Auto mode uses an isolated Docling worker with provisioned local assets.
        An empty steps tuple disables optional cleanup.
        """
        if self.source.format != "pdf":
            raise ValidationError(ErrorCode.INVALID_PDF_RECIPE)
        options = PdfOptions(
            mode=mode,
            steps=steps,
            language=language,
            layout=layout or PdfLayoutOptions(),
        )
        return replace(
            self,
            source=replace(self.source, pdf_options=options),
            _prepared=None,
            _resolved=None,
            _roster=None,
        )

    def prepare(
        self,
        *,
        cancel: CancellationToken | None = None,
        on_event: Callable[[ExecutionEvent], None] | None = None,
    ) -> Pipeline:
        """Snapshot and prepare source text without casting or TTS.

        Returns a new immutable checkpoint. Explicit preparation refreshes changed
        source bytes; rendering a stale PDF checkpoint raises source_changed.
        """
        emitter = EventEmitter(on_event)
        emitter.emit_started()
        prepared = self._prepare_source(cancel, emitter)
        emitter.emit_completed()
        return prepared

    def pdf_report(self) -> PdfDocument:
        """Return prepared PDF evidence, edits and issues without extraction."""
        if self._prepared is None or self._prepared.pdf_document is None:
            raise SourceError(ErrorCode.PDF_PREPARATION_REQUIRED)
        return self._prepared.pdf_document

    def _prepare_source(
        self, cancel: CancellationToken | None, emitter: EventEmitter
    ) -> Pipeline:
        if cancel is not None:
            cancel.raise_if_cancelled()
        source_error = source_validation_error(self.source.path)
        if source_error is not None:
            raise SourceError(source_error)
        stage = "pdf.prepare" if self.source.format == "pdf" else "source.prepare"
        emitter.emit_stage_started(stage)
        with TemporaryDirectory(prefix="kenkui-prepare-") as workspace:
            snapshot = snapshot_document(
                self.source.path, self.source.format, Path(workspace), cancel
            )
            prepared = prepare_document(
                snapshot, self.source.pdf_options, cancel, emitter
            )
        emitter.emit_stage_completed(stage)
        if cancel is not None:
            cancel.raise_if_cancelled()
        return replace(self, _prepared=prepared, _resolved=None, _roster=None)

    def _prepared_for_execution(
        self, cancel: CancellationToken | None, emitter: EventEmitter
    ) -> Pipeline:
        if self.source.format != "pdf":
            return self
        if self._prepared is None:
            return self._prepare_source(cancel, emitter)
        if source_digest(self.source.path) != self._prepared.source_hash:
            raise SourceError(ErrorCode.SOURCE_CHANGED)
        return self

    def pipe(
        self,
        function: Callable[Concatenate[Pipeline, _PipeArgs], _PipeResult],
        /,
        *args: _PipeArgs.args,
        **kwargs: _PipeArgs.kwargs,
    ) -> _PipeResult:
        """Pass this pipeline to an ordinary function and return its result.

        The function runs immediately with this pipeline as its first argument.
        Return a pipeline to continue chaining, or a report to leave the chain.
        Any effects and exceptions belong to the supplied function.
        """
        return function(self, *args, **kwargs)

    @property
    def metadata_intent(self) -> MetadataIntent | None:
        """Return recorded metadata intent, if present."""
        return next(
            (item for item in self.operations if isinstance(item, MetadataIntent)),
            None,
        )

    @property
    def identity(self) -> TierSummary:
        """Return this book's identity-tier intent: what makes it this book.

        A tuple scan over ``operations`` with no parse and no I/O. ``repr``
        is the summary; iterate it for the declared operations themselves.
        """
        return summarize_identity(self.operations)

    @property
    def tuning(self) -> TuningSummary:
        """Return this book's tuning rules, grouped by kind and marked unsaved.

        A tuple scan over ``operations`` with no parse and no I/O. ``repr``
        is a truncated summary; iterate it for every declared rule.
        """
        return summarize_tuning(self.operations)

    @property
    def style(self) -> TierSummary:
        """Return this book's style-tier intent: reusable taste, not this book.

        A tuple scan over ``operations`` with no parse and no I/O. Style
        settings replace rather than accumulate, so each entry already shows
        its effective value. ``repr`` is the summary; iterate it for the
        declared operations themselves.
        """
        return summarize_style(self.operations)

    def select_chapters(self, *chapter_ids: str) -> Pipeline:
        """Return a branch selecting explicit stable chapter IDs."""
        normalized = tuple(chapter_id.strip() for chapter_id in chapter_ids)
        if not normalized or any(not chapter_id for chapter_id in normalized):
            raise ValidationError(ErrorCode.EMPTY_SELECTION)
        if len(set(normalized)) != len(normalized):
            raise ValidationError(ErrorCode.DUPLICATE_CHAPTER_ID)
        if any(isinstance(op, (Select, SelectChapterRange)) for op in self.operations):
            raise ValidationError(ErrorCode.DUPLICATE_OPERATION)
        return self._append(SelectChapters(normalized), before_tts=True)

    def select_chapter_range(self, start_id: str, end_id: str) -> Pipeline:
        """Return a branch selecting an inclusive stable-ID spine range."""
        start = start_id.strip()
        end = end_id.strip()
        if not start or not end:
            raise ValidationError(ErrorCode.EMPTY_SELECTION)
        if any(isinstance(op, (Select, SelectChapters)) for op in self.operations):
            raise ValidationError(ErrorCode.DUPLICATE_OPERATION)
        return self._append(SelectChapterRange(start, end), before_tts=True)

    def select(self, *patterns: Pattern | Mapping[str, object]) -> Pipeline:
        """Select a union of grid subtrees while retaining source paths and casting.

        Patterns use the original book's coordinates and sibling counts. They
        combine in source order without duplication. Full-render chunks wholly
        inside each selected interval retain their cache identities; chunks at
        either edge are clipped to the requested text.
        """
        if not patterns:
            raise ValidationError(ErrorCode.EMPTY_SELECTION)
        if any(
            isinstance(op, (SelectChapters, SelectChapterRange))
            for op in self.operations
        ):
            raise ValidationError(ErrorCode.DUPLICATE_OPERATION)
        return self._append(Select(_where_patterns(patterns)), before_tts=True)

    def pronounce(
        self,
        lexicon: Mapping[str, str] | None = None,
        *,
        where: WhereArg = None,
        numbers: str | None = None,
        builtin: bool | None = None,
        **features: bool,
    ) -> Pipeline:
        """Return a branch shaping what the engine says, not what it counts.

        This is the only stage that rewrites text for speech. It runs last,
        per segment, and its output is thrown away after synthesis: canonical
        text, the billable character count, attribution offsets, and chapter
        identity are all unaffected. Normalization -- NFC, line endings,
        Unicode spaces, whitespace runs -- is not part of this and is not
        optional; it happens when the source is parsed.

        Off unless called. What it does when called:

        * replaces entries from ``lexicon``, then a small built-in
          pronunciation table unless ``builtin=False``;
        * reads numbers aloud, at the depth ``numbers`` selects --
          ``"off"``, ``"conservative"`` (the default), ``"standard"`` or
          ``"aggressive"``;
        * collapses hyphenated vocal gestures the engine would otherwise read
          out as letter names -- an elongation ("Ah-h-h" becomes "Ahhh") and a
          stammer ("S-s-sorry" becomes "Sssorry"). Both are on, and each is
          declined by name: ``elongation``, ``stammer``. Ordinary hyphenation
          is untouched, including reduplication such as "drip-drip-drip".

        ``numbers`` is a preset over individually switchable features, each
        of which may be overridden by keyword: ``currency``, ``percent``,
        ``ordinals``, ``units``, ``decimals``, ``integers``, ``years``,
        ``clock``, ``roman``, ``fractions``, ``numbered``. Passing ``False``
        declines a feature the tier supplies; passing ``True`` asks for one
        it does not, without accepting the rest of the tier that carries it.

            pipeline.pronounce(numbers="standard", roman=False)

        Features compose rather than nest, so declining a specific form
        leaves a general one free to match inside it: ``currency=False``
        alone reads "£5" as "£five", because the integer rule still applies.
        Decline ``integers`` too to leave the digits alone.

        Lexicons accumulate as scoped tuning rules selected by ``where``.
        A tuple of patterns or mappings adds one rule per selector in order.
        A whole-book rule applies everywhere; a scoped one overrides it inside
        its own region and shares the keys it does not mention.

        Number presets, built-in pronunciation, and feature switches are
        global settings rather than rules, and each keeps its last stated
        value. Adding a pronunciation therefore leaves the style a house
        function already chose alone -- only naming a setting changes it.
        """
        from ._domain.spoken.lexicon import validate_entries  # noqa: PLC0415
        from ._domain.spoken.numbers import FEATURES  # noqa: PLC0415
        from ._domain.spoken.vocalise import VOCALISE_FEATURES  # noqa: PLC0415

        known = FEATURES.keys() | VOCALISE_FEATURES.keys()

        if numbers is not None and numbers not in _NUMBER_TIERS:
            raise ValidationError(ErrorCode.INVALID_PRONUNCIATION)
        if builtin is not None and not isinstance(builtin, bool):
            raise ValidationError(ErrorCode.INVALID_PRONUNCIATION)
        # Rejected here rather than at render time: a misspelled feature is a
        # caller's typo, and silently ignoring it renders a book that does
        # not sound like what was asked for.
        for name, value in features.items():
            if name not in known or not isinstance(value, bool):
                raise ValidationError(ErrorCode.INVALID_PRONUNCIATION)
        patterns = _where_patterns(where)
        entries = validate_entries(lexicon if lexicon is not None else {})
        branch = self._spoken_style(numbers, features, builtin=builtin)
        if lexicon is not None:
            return branch._add_rule(Pronunciations, entries, patterns)  # noqa: SLF001
        return branch

    def _spoken_style(
        self,
        numbers: str | None,
        features: Mapping[str, bool],
        *,
        builtin: bool | None,
    ) -> Pipeline:
        """Update only the spoken-form settings this call actually named.

        The first call still turns the stage on with its documented defaults.
        Afterwards an unnamed setting keeps the value it already had, so a
        later lexicon-only call cannot silently undo a house style.
        """
        current = next(
            (item for item in self.operations if isinstance(item, SpokenForm)), None
        )
        if current is not None and numbers is None and builtin is None and not features:
            return self
        base = current if current is not None else SpokenForm()
        return self._replace(
            SpokenForm(
                numbers=base.numbers if numbers is None else numbers,
                builtin_lexicon=base.builtin_lexicon if builtin is None else builtin,
                lexicon=base.lexicon,
                features=tuple(sorted({**dict(base.features), **features}.items())),
            )
        )

    def attribute(self, character_id: str, *, where: WhereArg = None) -> Pipeline:
        """Return a branch attributing matched units to one character.

        Calls accumulate ordered rules. Narrower match sets take precedence;
        later declarations break ties between equal or incomparable match sets.
        A tuple of patterns or mappings adds one rule per selector in order.
        """
        return self._add_rule(Attributions, character_id, where)

    def annotations(self, path: str | os.PathLike[str] | None = None) -> Pipeline:
        """Load one immutable tuning baseline beneath inline declarations.

        Reads only the sidecar. The digest identifies exactly the bytes parsed;
        later edits to that file cannot change this pipeline branch.
        Exact duplicates across the file/code boundary retain their loaded
        copy and anchor metadata. Other inline rules follow the loaded prefix.

        A book that has never been saved has no sidecar yet: that is a no-op
        baseline, not an error. A sidecar that exists but cannot be read or
        parsed is a different problem -- a damaged correction file -- and
        still raises ``INVALID_SIDECAR``.
        """
        if has_operation(self.operations, Annotations):
            raise ValidationError(ErrorCode.DUPLICATE_OPERATION)
        target = sidecar_path(self.source.path) if path is None else Path(path)
        try:
            content: bytes | None = target.read_bytes()
        except FileNotFoundError:
            content = None
        except OSError:
            raise ValidationError(ErrorCode.INVALID_SIDECAR) from None
        if content is None:
            # No file on disk to fingerprint. "" can never equal a real
            # sha256 hexdigest, so this book's first tuned save -- any
            # content at all -- still changes the recorded digest and
            # invalidates plans built against the earlier absence.
            loaded: tuple[Operation, ...] = ()
            digest = ""
        else:
            try:
                loaded = deserialize(json.loads(content.decode("utf-8")))
            except ValueError:
                raise ValidationError(ErrorCode.INVALID_SIDECAR) from None
            digest = hashlib.sha256(content).hexdigest()
        counts = {"attributions": 0, "silences": 0, "pronunciations": 0}
        branch = self
        for operation in loaded:
            if isinstance(operation, (Attributions, Silences, Pronunciations)):
                kind = type(operation)
                counts[kind.__name__.lower()] = len(operation.rules)
                existing = next(
                    (
                        item.rules
                        for item in branch.operations
                        if isinstance(item, kind)
                    ),
                    (),
                )
                # Code may repeat a shared lexicon or correction already saved
                # in this book. Keep the loaded copy so its count still marks
                # the loaded/unsaved boundary, preserving repetitions within
                # either source because their declaration order is meaningful.
                additions = tuple(
                    rule
                    for rule in existing
                    if not any(
                        rule.where == saved.where and rule.value == saved.value
                        for saved in operation.rules
                    )
                )
                rules = tuple(
                    replace(rule, index=index)
                    for index, rule in enumerate((*operation.rules, *additions))
                )
                branch = branch._replace(kind(rules))
        return branch._append(  # noqa: SLF001
            Annotations(target, digest, counts)
        )

    def write_annotations(self, path: str | os.PathLike[str] | None = None) -> Path:
        """Save tuning with current text anchors, without changing this branch.

        Annotation scope is the source book, independent of render selection.
        Writing explicitly inspects that book and builds only touched grids.
        """
        target = sidecar_path(self.source.path) if path is None else Path(path)
        try:
            if target.resolve() == self.source.path.resolve() or (
                target.exists()
                and self.source.path.exists()
                and target.samefile(self.source.path)
            ):
                raise ValidationError(ErrorCode.INVALID_SIDECAR)
        except OSError:
            raise ValidationError(ErrorCode.INVALID_SIDECAR) from None
        tuning = deserialize(serialize(self.operations))
        chapters = (
            (
                self._prepared.inspection
                if self._prepared is not None
                else inspect_document(self.source.path, self.source.format)
            ).chapters
            if tuning
            else ()
        )
        payload = serialize(authoring_snapshot(tuning, chapters))
        write_sidecar(target, payload)
        return target

    def silence(self, duration_ms: int, *, where: WhereArg = None) -> Pipeline:
        """Return a branch replacing the silence after matched positions.

        Zero removes a derived pause. A subtree anchors to its final leaf;
        declaration records that intent without reading or resolving the book.
        A tuple of patterns or mappings adds one rule per selector in order.
        """
        if (
            isinstance(duration_ms, bool)
            or not isinstance(duration_ms, int)
            or duration_ms < 0
            or duration_ms > _MAX_PAUSE_MS
        ):
            raise ValidationError(ErrorCode.INVALID_PAUSE)
        return self._add_rule(Silences, duration_ms, where)

    def pauses(  # noqa: PLR0913 - one keyword per structural pause tier.
        self,
        *,
        chapter_ms: int = 0,
        heading_before_ms: int = 0,
        heading_after_ms: int = 0,
        paragraph_ms: int = 0,
        line_ms: int = 0,
        scene_ms: int = 0,
    ) -> Pipeline:
        """Return a branch requesting silence at structural boundaries.

        Off unless called. Durations are retunable without re-synthesis: only
        turning a tier on or off changes segment identity, because only that
        changes where a segment ends.

        ``scene_ms`` covers a mid-chapter scene break -- the ``* * *`` or
        ``<hr/>`` between two scenes. It derives no default from ``chapter_ms``:
        every tier here stays independent of every other.
        """
        requested = (
            chapter_ms,
            heading_before_ms,
            heading_after_ms,
            paragraph_ms,
            line_ms,
            scene_ms,
        )
        for duration in requested:
            if (
                isinstance(duration, bool)
                or not isinstance(duration, int)
                or duration < 0
                or duration > _MAX_PAUSE_MS
            ):
                raise ValidationError(ErrorCode.INVALID_PAUSE)
        return self._replace(Pauses(*requested))

    def infer_characters(
        self, model: str, *, identity: str | None = DEFAULT_IDENTITY_MODEL
    ) -> Pipeline:
        """Return a branch that will derive a character roster.

        ``identity`` selects the reasoning model that merges aliases and
        removes non-people from a spaCy roster. ``None`` stays fully offline.
        """
        return self._replace(
            InferCharacters(
                _model_id(model), None if identity is None else _model_id(identity)
            )
        )

    def attribute_quotes(self, model: str) -> Pipeline:
        """Return a branch that will assign a speaker to each quoted run."""
        return self._replace(AttributeQuotes(_model_id(model)))

    def assign_voice(self, voice: str | Voice) -> Pipeline:
        """Return a branch assigning one stable voice ID to all speech.

        The degenerate cast: narrator only. One VoicePlan and one renderer
        serve this and a full character cast alike.
        """
        return self.assign_voices(narrator=voice)

    def assign_voices(
        self,
        *,
        narrator: str | Voice,
        unknown: str | Voice | None = None,
        cast: Mapping[str, str | Voice] | None = None,
        method: str = "gendered",
    ) -> Pipeline:
        """Return a branch casting narrator, unknown, and named characters.

        ``unknown`` defaults to the narrator's voice, so a line nobody could
        place sounds like narration rather than vanishing.
        """
        narrator_id = _voice_id(narrator)
        # Checked here rather than only in the solver: a typo must fail when
        # the caller writes it, not silently render single-voice because no
        # character ever reached a method.
        validate_method(method)
        return self._replace(
            AssignVoices(
                narrator_voice_id=narrator_id,
                unknown_voice_id=_voice_id(unknown) if unknown else narrator_id,
                cast=tuple(
                    sorted(
                        (character, _voice_id(voice))
                        for character, voice in (cast or {}).items()
                    )
                ),
                method=method,
            ),
        )

    def chapter_titles(
        self,
        *,
        enabled: bool = True,
        pause_ms: int = 750,
        overrides: Mapping[str, str | None] | None = None,
    ) -> Pipeline:
        """Configure chapter announcements; None excludes an overridden chapter.

        New synthesis pipelines announce authored titles by default. Source text
        and its attribution offsets remain unchanged.
        """
        if type(enabled) is not bool:
            raise ValidationError(ErrorCode.INVALID_METADATA)
        if type(pause_ms) is not int or not 0 <= pause_ms <= _MAX_PAUSE_MS:
            raise ValidationError(ErrorCode.INVALID_PAUSE)
        values = dict(overrides or {})
        for key, value in values.items():
            if (
                not isinstance(key, str)
                or not key.strip()
                or (
                    value is not None
                    and (
                        not isinstance(value, str)
                        or not value.strip()
                        or len(value) > _MAX_TITLE_CHARACTERS
                    )
                )
            ):
                raise ValidationError(ErrorCode.INVALID_METADATA)
        return self._replace(
            ChapterTitles(enabled, pause_ms, tuple(sorted(values.items())))
        )

    def tts(self) -> Pipeline:
        """Return a branch with explicit synthesis intent."""
        if not has_operation(self.operations, AssignVoices):
            raise ValidationError(ErrorCode.VOICE_REQUIRED)
        pipeline = (
            self
            if has_operation(self.operations, ChapterTitles)
            else self.chapter_titles()
        )
        return pipeline._replace(SynthesizeSpeech())

    def metadata(
        self,
        *,
        title: str | None = None,
        author: str | None = None,
        cover: Literal["source"] | os.PathLike[str] | None = "source",
    ) -> Pipeline:
        """Return a branch with output metadata inheritance and overrides."""
        if isinstance(cover, str) and cover != "source":
            raise ValidationError(ErrorCode.INVALID_METADATA)
        if cover is not None and cover != "source":
            try:
                cover = Path(cover)
            except TypeError:
                # Anything that is not a path is invalid intent, not a crash.
                raise ValidationError(ErrorCode.INVALID_METADATA) from None
        if title is not None and not title.strip():
            raise ValidationError(ErrorCode.INVALID_METADATA)
        if author is not None and not author.strip():
            raise ValidationError(ErrorCode.INVALID_METADATA)
        return self._replace(MetadataIntent(title, author, cover), before_tts=False)

    def series(
        self,
        series_id: str,
        *,
        book: int | None = None,
        allow_recast: bool = False,
        allow_narrator_change: bool = False,
    ) -> Pipeline:
        """Return a branch tying this book to a series.

        A character the series already cast keeps their voice, and voices
        continue spreading across volumes rather than restarting. ``book`` is
        stored in pipeline intent as an ordering hint; it does not schedule or
        sort volumes. Continuity is decided by identity, not by volume number.

        Two ways a series can be contradicted fail validation before any
        model call: a pinned voice missing from the pool, and a narrator
        differing from the one the series recorded. ``allow_recast`` and
        ``allow_narrator_change`` each waive their matching failure so the
        render proceeds instead of refusing.
        """
        name = series_id.strip()
        if not name or (book is not None and book < 1):
            raise ValidationError(ErrorCode.INVALID_SERIES)
        return self._replace(
            Series(
                series_id=name,
                book=book,
                allow_recast=allow_recast,
                allow_narrator_change=allow_narrator_change,
            ),
        )

    def resolve(
        self,
        *,
        until: Literal["characters", "casting"] = "casting",
        cancel: CancellationToken | None = None,
        on_event: Callable[[ExecutionEvent], None] | None = None,
    ) -> Pipeline:
        """Resolve voices, attribution, and casting, returning a new Pipeline.

        Optional. ``write()`` resolves internally, so this exists only to pay
        the model cost early and inspect the outcome. It is an effect -- it
        reaches the network and writes the store -- but it is immutable,
        idempotent for unchanged source bytes, and leaves intent untouched.
        Use ``until="characters"`` to stop after discovery without requiring
        voices or attributing quotes. ``inspect().roster`` exposes that result;
        ``with_characters()`` records corrections before continuing.

        After source changes, a roster checkpoint must be refreshed with
        ``resolve(until="characters")`` and reviewed again. Pipelines without
        roster checkpoints can refresh their cast with ordinary ``resolve()``.
        Rendering an old checkpoint raises ``source_changed``.

        Pass a cancellation token to stop between model calls and before
        committing series changes. A running provider call must return before
        cooperative cancellation can take effect.

        ``on_event`` receives discovery and attribution stage progress on the
        calling thread, between Started and Completed events. An unchanged
        checkpoint emits only those run events because no stages repeat.
        """
        if cancel is not None:
            cancel.raise_if_cancelled()
        if until not in ("characters", "casting"):
            raise ValidationError(ErrorCode.INVALID_RESOLUTION_STAGE)
        emitter = EventEmitter(on_event)
        emitter.emit_started()
        if cancel is not None:
            cancel.raise_if_cancelled()
        branch = self._prepared_for_execution(cancel, emitter)
        if until == "characters":
            result = replace(
                branch,
                _resolved=None,
                _roster=resolve_characters(branch, cancel, emitter),
            )
        elif (
            branch._resolved is not None  # noqa: SLF001
            and source_digest(self.source.path) == branch._resolved.source_hash  # noqa: SLF001
        ):
            result = branch
        else:
            unresolved = replace(branch, _resolved=None)
            result = replace(
                unresolved, _resolved=resolve_inputs(unresolved, cancel, emitter)
            )
        if cancel is not None:
            cancel.raise_if_cancelled()
        emitter.emit_completed()
        if cancel is not None:
            cancel.raise_if_cancelled()
        return result

    def with_characters(self, roster: CharacterRoster) -> Pipeline:
        """Return a branch using a reviewed character-discovery checkpoint.

        First call ``resolve(until="characters")``. Changes replace the roster,
        preserve its source snapshot, and invalidate attribution and casting.
        This method performs no I/O.
        """
        if self._roster is None:
            raise ValidationError(ErrorCode.ROSTER_UNAVAILABLE)
        inspection = self._roster.inspection
        reviewed = validate_roster(
            roster, frozenset(chapter.id for chapter in inspection.chapters)
        )
        return replace(
            self,
            _resolved=None,
            _roster=replace(
                self._roster,
                inspection=replace(inspection, roster=reviewed, casting=None),
                reviewed=True,
            ),
        )

    def validate(self) -> ValidationResult:
        """Perform inexpensive source and operation validation without parsing."""
        issues: list[ValidationIssue] = []
        source_error = source_validation_error(self.source.path)
        if source_error is not None:
            issues.append(_issue(source_error))
        issues.extend(_issue(code) for code in render_intent_errors(self.operations))
        series = next(
            (item for item in self.operations if isinstance(item, Series)), None
        )
        # The series checks are all about the voices this render would cast
        # with, so a pipeline that declares a series but never calls
        # `.assign_voices()` has nothing for them to read -- and
        # `render_intent_errors` has already queued the missing narrator as
        # an issue. Reporting that is validate()'s whole contract; asking
        # `_casting()` for an operation that is not there turned the report
        # into a StopIteration and told the caller nothing at all.
        casting = next(
            (item for item in self.operations if isinstance(item, AssignVoices)), None
        )
        if series is not None and casting is not None:
            from ._characters import store  # noqa: PLC0415 - see below
            from .voices.provision import list_voices  # noqa: PLC0415
            # Both are import-time cost callers who never declare a series
            # should not pay: the store and the voice manifest are only
            # touched once a pipeline actually names one.

            stored = store.read_series(series.series_id)
            codes = series_intent_errors(
                self.operations,
                stored,
                eligible_series_voice_ids(
                    tuple(list_voices()),
                    casting.narrator_voice_id,
                    casting.unknown_voice_id,
                ),
            )
            if ErrorCode.SERIES_VOICE_MISSING in codes and stored is not None:
                _log_missing_series_voices(
                    series.series_id,
                    stored,
                    eligible_series_voice_ids(
                        tuple(list_voices()),
                        casting.narrator_voice_id,
                        casting.unknown_voice_id,
                    ),
                )
            issues.extend(_issue(code) for code in codes)
        for kind in (Attributions, Silences, Pronunciations):
            operation = next(
                (item for item in self.operations if isinstance(item, kind)), None
            )
            if operation is None:
                continue
            issues.extend(
                _overlap_issue(kind.__name__, left, right)
                for left, right in overlap_warnings(operation.rules)
            )
        return ValidationResult(tuple(issues))

    def script(self) -> Script:
        """Inspect canonical review rows lazily, without resolution or model calls."""
        from .script import Script  # noqa: PLC0415 - read-model construction boundary

        return Script(self)

    def inspect(self) -> BookInspection:
        """Inspect this checkpoint without synthesis or model calls.

        Before resolution, parse and select current source text. Afterwards,
        return the frozen source, roster, attribution, and cast snapshot.
        """
        if self._resolved is not None:
            inspection = self._resolved.inspection
        elif self._roster is not None:
            inspection = self._roster.inspection
        elif self._prepared is not None:
            inspection = self._prepared.inspection
        else:
            source_error = source_validation_error(self.source.path)
            if source_error is not None:
                raise SourceError(source_error)
            inspection = inspect_document(self.source.path, self.source.format)
        selection = next((op for op in self.operations if isinstance(op, Select)), None)
        if selection is not None:
            chapters = tuple(
                chapter
                for chapter in inspection.chapters
                if selected_ranges(chapter, selection.patterns)
            )
            if not chapters:
                raise ValidationError(ErrorCode.EMPTY_SELECTION)
            return replace(
                inspection, chapters=chapters, _planning_chapters=inspection.chapters
            )
        if self._resolved is not None or self._roster is not None:
            return inspection
        explicit = next(
            (item for item in self.operations if isinstance(item, SelectChapters)), None
        )
        range_selection = next(
            (item for item in self.operations if isinstance(item, SelectChapterRange)),
            None,
        )
        if explicit is not None:
            chapters = select_chapters(inspection.chapters, explicit.chapter_ids)
        elif range_selection is not None:
            chapters = select_range(
                inspection.chapters,
                range_selection.start_id,
                range_selection.end_id,
            )
        else:
            chapters = inspection.chapters
        selected = replace(inspection, chapters=chapters)
        log_event(
            _LOGGER,
            "inspection_completed",
            context={"boundary": "parse", "chapter_count": len(chapters)},
        )
        return selected

    def write(  # noqa: PLR0913 - explicit orchestration boundary.
        self,
        output: str | os.PathLike[str],
        *,
        on_event: Callable[[ExecutionEvent], None] | None = None,
        cancel: CancellationToken | None = None,
        workers: int | Literal["auto"] = "auto",
        overwrite: bool = False,
        keep_audio_cache: bool = False,
    ) -> Result:
        """Write an M4B through the private execution orchestration boundary."""
        return self.write_m4b(
            output,
            on_event=on_event,
            cancel=cancel,
            workers=workers,
            overwrite=overwrite,
            keep_audio_cache=keep_audio_cache,
        )

    def write_m4b(  # noqa: PLR0913 - explicit orchestration boundary.
        self,
        output: str | os.PathLike[str],
        *,
        on_event: Callable[[ExecutionEvent], None] | None = None,
        cancel: CancellationToken | None = None,
        workers: int | Literal["auto"] = "auto",
        overwrite: bool = False,
        keep_audio_cache: bool = False,
    ) -> Result:
        """Validate controls and execute using privately bound rendering resources."""
        return self._write_audio(
            output,
            on_event=on_event,
            cancel=cancel,
            workers=workers,
            overwrite=overwrite,
            keep_audio_cache=keep_audio_cache,
            preview=False,
        )

    def preview(
        self,
        output: str | os.PathLike[str],
        *,
        on_event: Callable[[ExecutionEvent], None] | None = None,
        workers: int | Literal["auto"] = "auto",
        overwrite: bool = False,
    ) -> Result:
        """Write a PCM WAV probe and retain synthesized segments for later reuse.

        Requires assigned voices and adds TTS intent on a temporary branch
        when needed. The original pipeline is unchanged. The destination must end in
        ``.wav``. Bibliographic metadata, cover art, and chapter markers are
        omitted from the artifact; normal execution events still report work.
        """
        branch = (
            self if has_operation(self.operations, SynthesizeSpeech) else self.tts()
        )
        return branch._write_audio(  # noqa: SLF001 - ephemeral synthesis branch.
            output,
            on_event=on_event,
            cancel=None,
            workers=workers,
            overwrite=overwrite,
            keep_audio_cache=True,
            preview=True,
        )

    def _write_audio(  # noqa: PLR0913 - shared validation/execution boundary.
        self,
        output: str | os.PathLike[str],
        *,
        on_event: Callable[[ExecutionEvent], None] | None,
        cancel: CancellationToken | None,
        workers: int | Literal["auto"],
        overwrite: bool,
        keep_audio_cache: bool,
        preview: bool,
    ) -> Result:
        validation = self.validate()
        if not validation.is_valid:
            issue = validation.errors[0]
            if issue.code in (
                ErrorCode.SOURCE_NOT_FOUND,
                ErrorCode.SOURCE_NOT_READABLE,
            ):
                raise SourceError(issue.code)
            raise ValidationError(issue.code)
        if workers != "auto" and (
            isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
        ):
            raise ValidationError(ErrorCode.INVALID_WORKERS)
        output_path = Path(output)
        suffix = ".wav" if preview else ".m4b"
        output_message = (
            f"The output must be a {suffix[1:].upper()} path." if preview else None
        )
        if output_path.suffix.lower() != suffix or not output_path.parent.is_dir():
            raise ValidationError(ErrorCode.INVALID_OUTPUT, output_message)
        if output_path.exists() and not output_path.is_file():
            raise ValidationError(ErrorCode.INVALID_OUTPUT, output_message)
        if output_path.exists() and not overwrite:
            raise EncodingError(ErrorCode.OUTPUT_EXISTS)
        if cancel is not None:
            cancel.raise_if_cancelled()
        # Resolved before the call, not inside the argument list: an
        # unprovisioned or unknown voice must fail before any worker spawns,
        # and that ordering should be legible rather than an artifact of
        # argument-evaluation order.
        emitter = EventEmitter(on_event)
        emitter.emit_started()
        if cancel is not None:
            cancel.raise_if_cancelled()
        branch = self._prepared_for_execution(cancel, emitter)
        resolved = (
            branch._resolved  # noqa: SLF001
            if branch._resolved is not None  # noqa: SLF001
            else resolve_inputs(branch, cancel, emitter, validate_series=True)
        )
        log_collisions(resolved.collisions)
        bindings = resolved.bindings
        if preview:
            from ._audio.wav import WavArtifactAssembler  # noqa: PLC0415

            bindings = replace(bindings, assembler=WavArtifactAssembler())
        return execute_sequential(
            branch,
            output_path,
            bindings=bindings,
            on_event=on_event,
            cancel=cancel,
            workers=workers,
            overwrite=overwrite,
            keep_audio_cache=keep_audio_cache,
            assignments=resolved.cast_assignments,
            unknown_voice_id=resolved.unknown_voice_id,
            spans=resolved.spans,
            resolved_source_hash=resolved.source_hash,
            emitter=emitter,
            preview=preview,
        )

    def _append(self, operation: Operation, *, before_tts: bool = False) -> Pipeline:
        """Append a selection that must not coexist with a prior selection."""
        return self._branch(
            append_unique(self.operations, operation, before_tts=before_tts), operation
        )

    def _replace(self, operation: Operation, *, before_tts: bool = True) -> Pipeline:
        """Replace an existing setting, or validate the order of a new one."""
        return self._branch(
            replace_or_append(self.operations, operation, before_tts=before_tts),
            operation,
        )

    def _add_rule(
        self, kind: type[_RuleOperationT], value: object, where: WhereArg
    ) -> Pipeline:
        """Append one rule per selector in order within one tuning family."""
        patterns = _where_patterns(where)
        existing: tuple[Rule, ...] = next(
            (item.rules for item in self.operations if isinstance(item, kind)), ()
        )
        rules: tuple[Rule, ...] = tuple(
            Rule(pattern, value, index)
            for index, pattern in enumerate(patterns, start=len(existing))
        )
        return self._replace(kind(rules=(*existing, *rules)))

    def _branch(
        self, operations: tuple[Operation, ...], operation: Operation
    ) -> Pipeline:
        """Branch intent while retaining only still-valid resolution checkpoints.

        Tuning, synthesis, metadata, pronunciation, and pauses consume resolved
        attribution without changing it. Other operations invalidate it.
        """
        return Pipeline(
            self.source,
            operations,
            self._resolved
            if isinstance(
                operation,
                (
                    SynthesizeSpeech,
                    MetadataIntent,
                    SpokenForm,
                    Pauses,
                    Attributions,
                    ChapterTitles,
                    Silences,
                    Pronunciations,
                    Annotations,
                    Select,
                ),
            )
            else None,
            self._roster
            if not isinstance(
                operation, (SelectChapters, SelectChapterRange, InferCharacters)
            )
            else None,
            self._prepared,
        )

    def _casting(self) -> AssignVoices:
        return next(item for item in self.operations if isinstance(item, AssignVoices))

    def _assigned_voice_id(self) -> str:
        return self._casting().narrator_voice_id


def _where_patterns(where: WhereArg) -> tuple[Pattern, ...]:
    """Eagerly freeze one selector or a tuple, preserving declaration order."""
    if where is None:
        return (Pattern(),)
    selectors = where if isinstance(where, tuple) else (where,)
    return tuple(
        selector if isinstance(selector, Pattern) else parse_pattern(selector)
        for selector in selectors
    )


def _voice_id(voice: str | Voice) -> str:
    """Return a non-empty stable voice ID from either accepted form."""
    voice_id = (voice.id if isinstance(voice, Voice) else voice).strip()
    if not voice_id:
        raise ValidationError(ErrorCode.INVALID_VOICE)
    return voice_id


def _model_id(model: str) -> str:
    """Return a non-empty model identifier, checking a spaCy id's shape.

    Only the shape: whether the named pipeline is actually installed is a
    question for resolution, which is where loading it happens. But "spacy:"
    names nothing at all, and that is a typo the caller should see where they
    wrote it rather than an hour later.
    """
    from ._characters.spacy_roster import is_spacy, pipeline_for  # noqa: PLC0415

    model_id = model.strip()
    if not model_id:
        raise ValidationError(ErrorCode.INVALID_MODEL)
    if is_spacy(model_id) and pipeline_for(model_id) is None:
        raise ValidationError(ErrorCode.INVALID_MODEL)
    return model_id


def _issue(
    code: ErrorCode, *, severity: Literal["error", "warning"] = "error"
) -> ValidationIssue:
    """Build a validation issue from the matching sanitized public error text."""
    return ValidationIssue(code, str(ValidationError(code)), severity)


def _overlap_issue(kind: str, left: int, right: int) -> ValidationIssue:
    """Name both rules an overlap warning is about.

    The remedy for incomparable overlap is to move one of the two lines, so a
    warning that does not say which lines they are cannot be acted on. The
    location reads the way ``script.py`` writes anchor drift, because a reader
    correlating the two is reading one rule list.
    """
    return ValidationIssue(
        ErrorCode.RULE_OVERLAP,
        f"{kind} rule[{left}] and rule[{right}]: "
        f"{ValidationError(ErrorCode.RULE_OVERLAP)}",
        "warning",
    )


def _log_missing_series_voices(
    series_id: str, stored: SeriesRecord, pool_ids: frozenset[str]
) -> None:
    """Name the characters a series can no longer honour, for an operator.

    The refusal itself is right and stays: a voice this series already cast
    has gone, and that is the operator's to fix. But `ValidationIssue`
    carries a stable code and sanitized public text and nothing else, so an
    operator told only `series_voice_missing` has the whole cast to search
    by hand. The spec asks for the characters and the lost voice by name,
    which is an operator's log line -- the same channel, and for the same
    reason, as a cast collision.
    """
    affected = [
        character
        for character in stored.characters
        if character.voice_id not in pool_ids
    ]
    if not affected:
        return
    log_event(
        _LOGGER,
        "series_voice_missing",
        level=logging.WARNING,
        context={
            "boundary": "series",
            "series_id": series_id,
            "characters": ", ".join(c.display_name for c in affected),
            "voice_ids": ", ".join(sorted({c.voice_id for c in affected})),
        },
    )
