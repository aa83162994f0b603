"""Delay-pattern FSM shared by the three generation loops (eager / fast / native).

The eager loop keeps the FSM in local ints, `fast` does the same, and
`FastNativeTTS._fsm_and_sample` re-implements both pieces as tensor ops so they
can be captured in a CUDA graph. The two int versions were byte-identical
copies; `text_decision`/`audio_sampling_mask` live here so all three agree.

NB the in-graph variant is NOT this class: it runs `al`/`dl`/`is_audio` as graph
tensors and reads them back through `hsync`, so its host side deliberately skips
the `observe()` step accounting (the graph already applied it).
"""
import math

from .model import (AUDIO_DELAY_SLOT_TOKEN_ID, AUDIO_END_TOKEN_ID, AUDIO_GEN_SLOT_TOKEN_ID,
                    AUDIO_START_TOKEN_ID, IM_END_TOKEN_ID, PAD_TOKEN_ID)

_INT64_MAX = 9223372036854775807

# ch0 codes measured as silence; floor/backstop for the runaway watchdog
_WD_LOW_ENERGY_CH0 = frozenset(
    (9, 60, 109, 123, 163, 209, 216, 365, 399, 402, 421, 580, 715, 734,
     774, 795, 827, 888, 890, 936, 971, 996, 1001))
_WD_SEGMENT_FLOOR = 640
_WD_SEGMENT_BACKSTOP_RUN = 32

def text_decision(dl, n_vq, wd_stop, is_stopping, is_audio):
    """The delay-ramp text decision, isolated so it can be tested as a table."""
    if wd_stop:
        if dl == _INT64_MAX or dl < n_vq:
            return AUDIO_DELAY_SLOT_TOKEN_ID, is_audio, False, True
        return AUDIO_END_TOKEN_ID, False, False, True
    if not is_stopping and dl < n_vq:
        return AUDIO_DELAY_SLOT_TOKEN_ID, is_audio, False, True
    if not is_stopping and dl == n_vq:
        return AUDIO_END_TOKEN_ID, False, False, True
    return PAD_TOKEN_ID, is_audio, (not is_stopping) and (not wd_stop) and dl > n_vq, False

def audio_sampling_mask(al, dl, n_vq):
    """Per-channel mask; `_INT64_MAX` (ramp not started) selects every channel."""
    return [(al > j) and (dl == _INT64_MAX or j > dl - 1) for j in range(n_vq)]

class FSM:
    """`al` / `dl` / `is_audio` / `is_stopping` plus the runaway watchdog."""

    def __init__(self, seq_len, col0, n_vq, watchdog=True, silence_frames=None,
                 max_segment_frames=None, max_pause_s=None):
        hit = (col0 == AUDIO_START_TOKEN_ID).nonzero()
        start = int(hit[-1]) if hit.numel() else -1
        cont = int(col0[-1]) in (AUDIO_START_TOKEN_ID, AUDIO_GEN_SLOT_TOKEN_ID)
        self.n_vq = n_vq
        self.al = seq_len - start if (cont and start != -1) else 0
        self.is_audio = bool(cont and start != -1)
        self.dl, self.is_stopping = _INT64_MAX, False
        self.watchdog = watchdog
        self.silence_frames = silence_frames if silence_frames is not None else 64
        if max_pause_s is not None and max_pause_s > 0:
            # 12.5 frames/s + 2 s margin, so a requested [pause Xs] never trips rule (a)
            self.silence_frames = max(self.silence_frames, math.ceil((max_pause_s + 2.0) * 12.5))
        self.floor = max_segment_frames if max_segment_frames is not None else _WD_SEGMENT_FLOOR
        self.max_pause_s = max_pause_s
        self.stop, self.reason, self.stats = False, "", {}
        self.silent_run = self.peak_segment = 0

    def text(self):
        return text_decision(self.dl, self.n_vq, self.stop, self.is_stopping, self.is_audio)

    def decide(self):
        """Text decision for this step -> (next_text, sampling_text).

        Only the E-branch's `is_audio = False` is applied here (that branch never
        samples, so it cannot be overwritten). The AUDIO_START / IM_END flags are
        applied in `observe()`, i.e. AFTER sampling replaced `next_text`.
        """
        next_text, self.is_audio, sampling, _forced = text_decision(
            self.dl, self.n_vq, self.stop, self.is_stopping, self.is_audio)
        return next_text, sampling

    def mask(self):
        return audio_sampling_mask(self.al, self.dl, self.n_vq)

    def watch(self, ch0_val, step_idx, guard_audio=True):
        """One watchdog evaluation; returns the segment bound (None if inactive).

        `guard_audio=False` is the in-graph variant: the CUDA graph already knows
        it is inside audio, so the host side must not re-check is_audio.
        """
        if not (self.watchdog and not self.stop and self.dl == _INT64_MAX
                and (self.is_audio or not guard_audio)):
            return None
        self.silent_run = self.silent_run + 1 if ch0_val in _WD_LOW_ENERGY_CH0 else 0
        bound = max(self.floor, 2 * self.peak_segment)
        if self.silent_run >= self.silence_frames:
            self.stop, self.reason = True, "silence"
        elif self.al > bound and self.silent_run >= _WD_SEGMENT_BACKSTOP_RUN:
            self.stop, self.reason = True, "max_segment"
        if self.stop:
            self.stats = {"reason": self.reason, "step": step_idx,
                          "segment_frames": self.al, "silent_run": self.silent_run,
                          "peak_completed_segment": self.peak_segment,
                          "silence_threshold_frames": self.silence_frames,
                          "segment_bound_frames": bound,
                          "max_requested_pause_s": self.max_pause_s}
        return bound

    def observe(self, next_text, n_steps, ch0_val):
        """Post-sampling flags, then watchdog and al/dl bookkeeping."""
        if next_text == AUDIO_START_TOKEN_ID:
            self.is_audio = True
        if next_text == IM_END_TOKEN_ID:
            self.is_stopping = True

        self.watch(ch0_val, n_steps + 1)

        if next_text in (AUDIO_START_TOKEN_ID, AUDIO_GEN_SLOT_TOKEN_ID, AUDIO_DELAY_SLOT_TOKEN_ID):
            self.al += 1
        if next_text == AUDIO_END_TOKEN_ID:
            self.peak_segment = max(self.peak_segment, self.al)
            self.silent_run = self.al = 0
        if self.dl == _INT64_MAX and next_text == AUDIO_DELAY_SLOT_TOKEN_ID:
            self.dl = 0
        if self.dl != _INT64_MAX:
            self.dl += 1
        if self.dl > self.n_vq:
            self.dl = _INT64_MAX

def start_fsm(input_ids, n_vq, watchdog=True, silence_frames=None,
              max_segment_frames=None, max_pause_s=None):
    """FSM seeded from the prompt channel-0 column, shared by both decode loops."""
    return FSM(int(input_ids.shape[1]), input_ids[0, :, 0], n_vq, watchdog=watchdog,
               silence_frames=silence_frames, max_segment_frames=max_segment_frames,
               max_pause_s=max_pause_s)
