"""
Internal recorder lifecycle API helpers.
"""

import copy
import logging
import time

from .realtime_text_stabilizer import RealtimeTextStabilizer
from .recording_buffers import (
    get_frames_lock,
    get_next_recorded_audio,
    queue_recorded_audio,
    set_audio_from_frames,
    set_active_speech_tail_from_frames,
    snapshot_active_speech_tail_audio,
    snapshot_frames,
    tail_audio_from_frames,
)
from .state import run_callback, set_recorder_state
from .tail_transcription import clear_pcm16_tail
from .voice_activity import reset_silero_vad_state


logger = logging.getLogger("realtimestt")


def start_recording(recorder, frames=None):
    """
    Starts a recording unless the stop/start gap is still too small.
    """
    # Preserve the configured stop/start gap to avoid immediate retriggers.
    if (time.time() - recorder.recording_stop_time
            < recorder.min_gap_between_recordings):
        logger.info("Attempted to start recording "
                    "too soon after stopping."
                    )
        recorder._pending_preroll_selection = None
        recorder.last_preroll_selection = None
        return recorder

    logger.info("recording started")
    set_recorder_state(recorder, "recording")
    recorder.text_storage = []
    recorder.realtime_transcription_text = ""
    recorder.realtime_stabilized_text = ""
    recorder.realtime_stabilized_safetext = ""
    recorder._force_current_recording_lowercase_start = False
    recorder._preview_transcription_submitted = False
    recorder._pending_vad_live_text = None
    recorder.realtime_observation_sequence = 0
    recorder.ultrafast_realtime_observation_sequence = 0
    recorder.realtime_recording_id = (
        getattr(recorder, "realtime_recording_id", 0) + 1
    )
    recorder.ultrafast_realtime_transcription_text = ""
    recorder.merged_realtime_transcription_text = ""
    recorder.last_ultrafast_transcription = ""
    recorder.last_merged_realtime_transcription = ""
    recorder.last_realtime_transcription_merge_result = None
    realtime_transcription_merger = getattr(
        recorder,
        "realtime_transcription_merger",
        None,
    )
    if realtime_transcription_merger is not None:
        realtime_transcription_merger.reset(recorder.realtime_recording_id)
    recorder.recording_start_monotonic = time.monotonic()
    recorder.last_preroll_selection = getattr(
        recorder,
        "_pending_preroll_selection",
        None,
    )
    recorder._pending_preroll_selection = None
    recorder.wakeword_detected = False
    recorder.wake_word_detect_time = 0
    with get_frames_lock(recorder):
        recorder.frames = list(frames) if frames else []
        set_active_speech_tail_from_frames(recorder, recorder.frames)

    recorder.recording_start_time = time.time()
    recorder.speech_end_silence_candidate_start = 0
    realtime_text_stabilizer = getattr(
        recorder,
        "realtime_text_stabilizer",
        None,
    )
    if realtime_text_stabilizer is None:
        realtime_text_stabilizer = RealtimeTextStabilizer()
        recorder.realtime_text_stabilizer = realtime_text_stabilizer
    realtime_text_stabilizer.reset(
        recorder.realtime_recording_id,
        started_at_monotonic=recorder.recording_start_monotonic,
        started_at_wall_time=recorder.recording_start_time,
    )
    reset_silero_vad_state(recorder)
    recorder.is_recording = True
    recorder.is_webrtc_speech_active = False
    recorder.stop_recording_event.clear()
    recorder.start_recording_event.set()

    if recorder.on_recording_start:
        run_callback(recorder, recorder.on_recording_start)

    return recorder


def stop_recording(
        recorder,
        backdate_stop_seconds=0.0,
        backdate_resume_seconds=0.0,
):
    """
    Stops a recording and queues it for final transcription.

    Args:
    - recorder: Recorder-like object whose active recording should stop.
    - backdate_stop_seconds: Seconds to remove from the recording tail.
    - backdate_resume_seconds: Seconds to keep for resumed listening.
    """
    # Preserve the configured minimum length before accepting a stop.
    if (time.time() - recorder.recording_start_time
            < recorder.min_length_of_recording):
        logger.info("Attempted to stop recording "
                    "too soon after starting."
                    )
        return recorder

    logger.info("recording stopped")
    stopped_live_text = getattr(recorder, "_pending_vad_live_text", None)
    if stopped_live_text is None:
        stopped_live_text = getattr(
            recorder,
            "realtime_transcription_text",
            "",
        ) or ""
        if not stopped_live_text:
            stopped_live_text = getattr(
                recorder,
                "realtime_stabilized_text",
                "",
            ) or ""
    with get_frames_lock(recorder):
        stopped_frames = copy.deepcopy(recorder.frames)
        stopped_tail_audio = snapshot_active_speech_tail_audio(recorder)
        recorder.last_frames = copy.deepcopy(stopped_frames)
        recorder.frames = []
        recorder.is_recording = False
    recorder.backdate_stop_seconds = backdate_stop_seconds
    recorder.backdate_resume_seconds = backdate_resume_seconds
    queue_recorded_audio(
        recorder,
        stopped_frames,
        backdate_stop_seconds,
        backdate_resume_seconds,
        tail_audio=(stopped_tail_audio if stopped_tail_audio.size else None),
        live_text=stopped_live_text,
    )
    recorder._pending_vad_live_text = None
    clear_pcm16_tail(recorder)
    recorder.recording_stop_time = time.time()
    realtime_text_stabilizer = getattr(
        recorder,
        "realtime_text_stabilizer",
        None,
    )
    if realtime_text_stabilizer is not None:
        realtime_text_stabilizer.finalize()
    reset_silero_vad_state(recorder)
    recorder.is_webrtc_speech_active = False
    recorder.silero_check_time = 0
    recorder.start_recording_event.clear()
    recorder.stop_recording_event.set()

    recorder.last_recording_start_time = recorder.recording_start_time
    recorder.last_recording_stop_time = recorder.recording_stop_time

    if recorder.on_recording_stop:
        run_callback(recorder, recorder.on_recording_stop)

    return recorder


def listen_for_voice_activity(recorder):
    """
    Arms voice-activity recording and moves the recorder to listening.
    """
    recorder.listen_start = time.time()
    set_recorder_state(recorder, "listening")
    reset_silero_vad_state(recorder)
    recorder.start_recording_on_voice_activity = True


def wait_for_recorded_audio(recorder):
    """
    Waits until recorded audio is available for final transcription.
    """
    armed_for_voice_activity = False

    try:
        logger.info("Setting listen time")
        if recorder.listen_start == 0:
            recorder.listen_start = time.time()

        queued_recording = get_next_recorded_audio(recorder)

        if (
                queued_recording is None
                and not recorder.is_recording
                and not snapshot_frames(recorder)):
            set_recorder_state(recorder, "listening")
            reset_silero_vad_state(recorder)
            recorder.start_recording_on_voice_activity = True
            armed_for_voice_activity = True

            logger.debug('Waiting for recording start')
            while not recorder.interrupt_stop_event.is_set():
                if recorder.start_recording_event.wait(timeout=0.02):
                    break

        if queued_recording is None and recorder.is_recording:
            recorder.stop_recording_on_voice_deactivity = True

            logger.debug('Waiting for recording stop')
            while not recorder.interrupt_stop_event.is_set():
                if not recorder.recorded_audio_queue.empty():
                    break
                if (recorder.stop_recording_event.wait(timeout=0.02)):
                    break

        if queued_recording is None:
            queued_recording = get_next_recorded_audio(recorder)

        if queued_recording is not None:
            frames = queued_recording["frames"]
            backdate_stop_seconds = queued_recording["backdate_stop_seconds"]
            backdate_resume_seconds = queued_recording["backdate_resume_seconds"]
            recorder._current_transcription_force_lowercase_start = (
                queued_recording.get("force_lowercase_start", False)
            )
            recorder._current_transcription_live_text = copy.deepcopy(
                queued_recording.get("live_text", "")
            )
            recorder._current_transcription_tail_audio = copy.deepcopy(
                queued_recording.get("tail_audio")
            )
            if recorder.is_recording:
                recorder.stop_recording_event.clear()
        else:
            frames = list(snapshot_frames(recorder))
            if len(frames) == 0:
                frames = list(snapshot_frames(recorder, "last_frames"))
            backdate_stop_seconds = recorder.backdate_stop_seconds
            backdate_resume_seconds = recorder.backdate_resume_seconds
            recorder._current_transcription_force_lowercase_start = getattr(
                recorder,
                "_force_current_recording_lowercase_start",
                False,
            )
            recorder._current_transcription_live_text = None
            recorder._current_transcription_tail_audio = tail_audio_from_frames(
                recorder,
                frames,
            )

        frames_to_read = set_audio_from_frames(
            recorder,
            frames,
            backdate_stop_seconds,
            backdate_resume_seconds,
        )

        if not recorder.is_recording:
            with get_frames_lock(recorder):
                recorder.frames.clear()
                recorder.last_frames.clear()
                recorder.frames.extend(frames_to_read)

        recorder.backdate_stop_seconds = 0.0
        recorder.backdate_resume_seconds = 0.0

        recorder.listen_start = 0

        if not recorder.is_recording:
            set_recorder_state(recorder, "inactive")

        if (
                armed_for_voice_activity
                and not recorder.use_wake_words
                and not recorder.interrupt_stop_event.is_set()
                and not recorder.is_shut_down):
            recorder.continuous_listening = True
            reset_silero_vad_state(recorder)
            recorder.start_recording_on_voice_activity = True
            recorder.stop_recording_on_voice_deactivity = True

    except KeyboardInterrupt:
        logger.info("KeyboardInterrupt in wait_audio, shutting down")
        recorder.shutdown()
        raise  # Re-raise the exception after cleanup


def wakeup_recorder(recorder):
    """
    Wakes the recorder by starting a new listening window.
    """
    recorder.listen_start = time.time()


def abort_recording(recorder):
    """
    Aborts active recording and resets interruption bookkeeping.
    """
    state = recorder.state
    recorder.start_recording_on_voice_activity = False
    recorder.stop_recording_on_voice_deactivity = False
    recorder.interrupt_stop_event.set()
    if recorder.state != "inactive": # inactive aborts never set was_interrupted
        recorder.was_interrupted.wait()
        set_recorder_state(recorder, "transcribing")
    recorder.was_interrupted.clear()
    if recorder.is_recording:
        recorder.stop()
