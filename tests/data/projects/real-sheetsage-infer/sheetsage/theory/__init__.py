from .basic import HumanPitchName, LilyPitchName, PitchClass, PitchInterval
from .internal import (
    Chord,
    Harmony,
    Key,
    KeyChanges,
    Melody,
    Meter,
    MeterChanges,
    Note,
    Tempo,
    TempoChanges,
)
from .lead_sheet import LeadSheet
from .theorytab import (
    TheorytabChord,
    TheorytabKey,
    TheorytabMeter,
    TheorytabNote,
    TheorytabTempo,
    TheorytabValueError,
)
from .utils import estimate_key_changes, theorytab_find_applicable
