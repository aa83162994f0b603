"""Expose the public RealtimeSTT audio recorder API.

The recorder captures speech, coordinates voice activity and wake-word handling,
and returns final or realtime transcription results.
"""

# Standard library imports.
import logging
import os
import platform
from typing import Callable, Iterable, List, Optional, Union

# Internal imports.
from .core.initialization import initialize_recorder
from .core.recorder_config import build_recorder_init_args
from .core.lifecycle import (
    abort_recording,
    listen_for_voice_activity,
    start_recording,
    stop_recording,
    wait_for_recorded_audio,
    wakeup_recorder,
)
from .core.manual_audio_input import (
    feed_audio as feed_manual_audio,
    feed_audio_file as feed_manual_audio_file,
    flush_audio_input as flush_manual_audio_input,
)
from .core.recording import drain_audio_input
from .core.recording_buffers import (
    clear_audio_queue as clear_recorder_audio_queue,
    flush_buffered_audio as flush_recorder_buffered_audio,
    has_pending_recordings as recorder_has_pending_recordings,
)
from .core.tail_transcription import (
    MIN_LIVE_WORDS_FOR_FUZZY_REPAIR,
    PREVIEW_TRANSCRIPTION_TAIL_SECONDS,
)
from .core.shutdown import shutdown_recorder
from .core.text_formatting import format_number
from .core.transcription_api import (
    perform_final_transcription as perform_final_transcription_api,
    text as transcribe_text,
    transcribe as transcribe_recorded_audio,
)
from .core.wakeword import (
    _load_openwakeword_modules,
    _load_porcupine_module,
    _normalize_wakeword_backend,
)


# Compatibility environment setup.
#
# Some downstream combinations of Torch, OpenMP, and audio/model runtimes rely on
# this import-time setting. Keep it early and behavior-compatible; it is not a
# general runtime recommendation for application code.
os.environ["KMP_DUPLICATE_LIB_OK"] = "TRUE"


# Logger setup.
logger = logging.getLogger("realtimestt")
logger.propagate = False


# Public constructor defaults and compatibility constants.
INIT_MODEL_TRANSCRIPTION = "tiny"
INIT_MODEL_TRANSCRIPTION_REALTIME = "tiny"
INIT_REALTIME_PROCESSING_PAUSE = 0.2
INIT_REALTIME_INITIAL_PAUSE = 0.2
INIT_SILERO_SENSITIVITY = 0.4
INIT_WEBRTC_SENSITIVITY = 3
INIT_POST_SPEECH_SILENCE_DURATION = 0.6
INIT_MIN_LENGTH_OF_RECORDING = 0.5
INIT_MIN_GAP_BETWEEN_RECORDINGS = 0
INIT_WAKE_WORDS_SENSITIVITY = 0.6
INIT_PRE_RECORDING_BUFFER_DURATION = 1.0
INIT_WAKE_WORD_ACTIVATION_DELAY = 0.0
INIT_WAKE_WORD_TIMEOUT = 5.0
INIT_WAKE_WORD_BUFFER_DURATION = 0.1
ALLOWED_LATENCY_LIMIT = 100
SAMPLE_RATE = 16000
BUFFER_SIZE = 512
DEACTIVITY_SILENCE_CONFIRMATION_DURATION = 0.16

INIT_HANDLE_BUFFER_OVERFLOW = False
if platform.system() != 'Darwin':
    INIT_HANDLE_BUFFER_OVERFLOW = True


# Internal recorder constants.
TIME_SLEEP = 0.02
INT16_MAX_ABS_VALUE = 32768.0


class AudioToTextRecorder:
    """
    A class responsible for capturing audio from the microphone, detecting
    voice activity, and then transcribing the captured audio using the
    configured transcription engine.
    """

    def __init__(self,
                 model: str = INIT_MODEL_TRANSCRIPTION,
                 transcription_engine: str = "faster_whisper",
                 transcription_engine_options: Optional[dict] = None,
                 download_root: str = None, 
                 language: str = "",
                 compute_type: str = "default",
                 input_device_index: int = None,
                 gpu_device_index: Union[int, List[int]] = 0,
                 device: str = "cuda",
                 on_recording_start=None,
                 on_recording_stop=None,
                 on_transcription_start=None,
                 ensure_sentence_starting_uppercase=True,
                 ensure_sentence_ends_with_period=True,
                 use_microphone=True,
                 spinner=True,
                 level=logging.WARNING,
                 batch_size: int = 16,

                 # Realtime transcription parameters
                 enable_realtime_transcription=False,
                 use_main_model_for_realtime=False,
                 realtime_transcription_engine: str = None,
                 realtime_transcription_engine_options: Optional[dict] = None,
                 realtime_model_type=INIT_MODEL_TRANSCRIPTION_REALTIME,
                 realtime_processing_pause=INIT_REALTIME_PROCESSING_PAUSE,
                 init_realtime_after_seconds=INIT_REALTIME_INITIAL_PAUSE,
                 on_realtime_transcription_update=None,
                 on_realtime_transcription_stabilized=None,
                 realtime_batch_size: int = 16,

                 # Voice activation parameters
                 silero_sensitivity: float = INIT_SILERO_SENSITIVITY,
                 silero_use_onnx: Optional[bool] = None,
                 silero_deactivity_detection: bool = False,
                 webrtc_sensitivity: int = INIT_WEBRTC_SENSITIVITY,
                 warmup_vad: bool = True,
                 post_speech_silence_duration: float = (
                     INIT_POST_SPEECH_SILENCE_DURATION
                 ),
                 min_length_of_recording: float = (
                     INIT_MIN_LENGTH_OF_RECORDING
                 ),
                 min_gap_between_recordings: float = (
                     INIT_MIN_GAP_BETWEEN_RECORDINGS
                 ),
                 pre_recording_buffer_duration: float = (
                     INIT_PRE_RECORDING_BUFFER_DURATION
                 ),
                 pre_recording_buffer_trim_config: Optional[dict] = None,
                 on_vad_start=None,
                 on_vad_stop=None,
                 on_vad_detect_start=None,
                 on_vad_detect_stop=None,
                 on_turn_detection_start=None,
                 on_turn_detection_stop=None,

                 # Wake word parameters
                 wakeword_backend: str = "",
                 openwakeword_model_paths: str = None,
                 openwakeword_inference_framework: str = "onnx",
                 wake_words: str = "",
                 wake_words_sensitivity: float = INIT_WAKE_WORDS_SENSITIVITY,
                 wake_word_activation_delay: float = (
                    INIT_WAKE_WORD_ACTIVATION_DELAY
                 ),
                 wake_word_timeout: float = INIT_WAKE_WORD_TIMEOUT,
                 wake_word_buffer_duration: float = INIT_WAKE_WORD_BUFFER_DURATION,
                 on_wakeword_detected=None,
                 on_wakeword_timeout=None,
                 on_wakeword_detection_start=None,
                 on_wakeword_detection_end=None,
                 on_recorded_chunk=None,
                 debug_mode=False,
                 handle_buffer_overflow: bool = INIT_HANDLE_BUFFER_OVERFLOW,
                 beam_size: int = 5,
                 beam_size_realtime: int = 3,
                 buffer_size: int = BUFFER_SIZE,
                 sample_rate: int = SAMPLE_RATE,
                 initial_prompt: Optional[Union[str, Iterable[int]]] = None,
                 initial_prompt_realtime: Optional[Union[str, Iterable[int]]] = None,
                 suppress_tokens: Optional[List[int]] = [-1],
                 print_transcription_time: bool = False,
                 early_transcription_on_silence: int = 0,
                 allowed_latency_limit: int = ALLOWED_LATENCY_LIMIT,
                 no_log_file: bool = False,
                 use_extended_logging: bool = False,
                 faster_whisper_vad_filter: bool = True,
                 normalize_audio: bool = False,
                 final_transcription_word_timestamps: bool = False,
                 start_callback_in_new_thread: bool = False,
                 realtime_transcription_use_syllable_boundaries: bool = False,
                 realtime_boundary_detector_sensitivity: float = 0.6,
                 realtime_boundary_followup_delays: Optional[Iterable[float]] = (
                     0.05,
                     0.2,
                 ),
                 transcription_executor: Optional[Callable] = None,
                 realtime_transcription_executor: Optional[Callable] = None,
                 on_realtime_text_stabilization_update=None,
                 realtime_punctuation_split_marks: Optional[
                     Union[str, Iterable[str]]
                 ] = "off",
                 silero_backend: str = "auto",
                 silero_onnx_model_path: Optional[str] = None,
                 silero_onnx_threads: int = 2,
                 deactivity_silence_confirmation_duration: float = (
                     DEACTIVITY_SILENCE_CONFIRMATION_DURATION
                 ),
                 # Speculative Preview transcription parameters
                 enable_preview_transcription: bool = False,
                 preview_model_type: Optional[str] = None,
                 preview_transcription_engine: Optional[str] = None,
                 preview_transcription_engine_options: Optional[dict] = None,
                 preview_transcription_tail_seconds: float = (
                     PREVIEW_TRANSCRIPTION_TAIL_SECONDS
                 ),
                 on_preview_transcription_finished=None,
                 preview_transcription_executor: Optional[Callable] = None,
                 preview_transcription_min_live_words_for_fuzzy_repair: int = (
                     MIN_LIVE_WORDS_FOR_FUZZY_REPAIR
                 ),
                 # Optional second, lower-latency realtime transcription lane
                 ultrafast_realtime_model_type: Optional[str] = None,
                 ultrafast_realtime_transcription_engine: Optional[str] = None,
                 ultrafast_realtime_transcription_engine_options: Optional[
                     dict
                 ] = None,
                 on_ultrafast_transcription_update=None,
                 on_merged_realtime_transcription_update=None,
                 on_realtime_transcription_merge_update=None,
                 ultrafast_realtime_max_tail_words: int = 5,
                 ):
        """
        Initializes an audio recorder and  transcription
        and wake word detection.

        Compatibility note:
            This constructor intentionally keeps its explicit historical
            signature in the public facade. Refactors may move runtime setup
            behind core helpers, but must not reorder, rename, or remove
            parameters.

        Args:
        Main transcription and output:
        - model (str, default="tiny"): Specifies the size of the transcription
            model to use or the path to a converted model directory.
            Valid options are 'tiny', 'tiny.en', 'base', 'base.en',
            'small', 'small.en', 'medium', 'medium.en', 'large-v1',
            'large-v2'.
            If a specific size is provided, the model is downloaded
            from the Hugging Face Hub.
        - transcription_engine (str, default="faster_whisper"): Transcription
            backend to use for the main model.
        - transcription_engine_options (dict, default=None): Optional
            backend-specific options for the main transcription engine.
        - download_root (str, default=None): Specifies the root path were the Whisper models 
          are downloaded to. When empty, the default is used. 
        - language (str, default=""): Language code for speech-to-text engine.
            If not specified, the model will attempt to detect the language
            automatically.
        - compute_type (str, default="default"): Specifies the type of
            computation to be used for transcription.
            See https://opennmt.net/CTranslate2/quantization.html.
        - input_device_index (int, default=0): The index of the audio input
            device to use.
        - gpu_device_index (int, default=0): Device ID to use.
            The model can also be loaded on multiple GPUs by passing a list of
            IDs (e.g. [0, 1, 2, 3]). In that case, multiple transcriptions can
            run in parallel when transcribe() is called from multiple Python
            threads
        - device (str, default="cuda"): Device for model to use. Can either be 
            "cuda" or "cpu".
        - on_recording_start (callable, default=None): Callback function to be
            called when recording of audio to be transcripted starts.
        - on_recording_stop (callable, default=None): Callback function to be
            called when recording of audio to be transcripted stops.
        - on_transcription_start (callable, default=None): Callback function
            to be called when transcription of audio to text starts.
        - ensure_sentence_starting_uppercase (bool, default=True): Ensures
            that every sentence detected by the algorithm starts with an
            uppercase letter.
        - ensure_sentence_ends_with_period (bool, default=True): Ensures that
            every sentence that doesn't end with punctuation such as "?", "!"
            ends with a period
        - use_microphone (bool, default=True): Specifies whether to use the
            microphone as the audio input source. If set to False, the
            audio input source will be the audio data sent through the
            feed_audio() method.
        - spinner (bool, default=True): Show spinner animation with current
            state.
        - level (int, default=logging.WARNING): Logging level.
        - batch_size (int, default=16): Batch size for the main transcription

        Realtime transcription:
        - enable_realtime_transcription (bool, default=False): Enables or
            disables real-time transcription of audio. When set to True, the
            audio will be transcribed continuously as it is being recorded.
        - use_main_model_for_realtime (str, default=False):
            If True, use the main transcription model for both regular and
            real-time transcription. If False, use a separate model specified
            by realtime_model_type for real-time transcription.
            Using a single model can save memory and potentially improve
            performance, but may not be optimized for real-time processing.
            Using separate models allows for a smaller, faster model for
            real-time transcription while keeping a more accurate model for
            final transcription.
        - realtime_transcription_engine (str, default=None): Backend to use for
            the realtime model. If None, the main transcription engine is used.
        - realtime_transcription_engine_options (dict, default=None): Optional
            backend-specific options for the realtime transcription engine. If
            None, transcription_engine_options is reused.
        - realtime_model_type (str, default="tiny"): Specifies the machine
            learning model to be used for real-time transcription. Valid
            options include 'tiny', 'tiny.en', 'base', 'base.en', 'small',
            'small.en', 'medium', 'medium.en', 'large-v1', 'large-v2'.
        - realtime_processing_pause (float, default=0.1): Specifies the time
            interval in seconds after a chunk of audio gets transcribed. Lower
            values will result in more "real-time" (frequent) transcription
            updates but may increase computational load. When
            realtime_transcription_use_syllable_boundaries is True, this is
            used as a forced fallback interval if no syllable boundary is
            detected. Set to 0 or lower to disable the fallback interval.
        - init_realtime_after_seconds (float, default=0.2): Specifies the 
            initial waiting time after the recording was initiated before
            yielding the first realtime transcription
        - on_realtime_transcription_update = A callback function that is
            triggered whenever there's an update in the real-time
            transcription. The function is called with the newly transcribed
            text as its argument.
        - on_realtime_transcription_stabilized = A callback function that is
            triggered when the transcribed text stabilizes in quality. The
            stabilized text is generally more accurate but may arrive with a
            slight delay compared to the regular real-time updates.
        - on_realtime_text_stabilization_update = A callback function that is
            triggered with a structured realtime stabilization event.
        - realtime_punctuation_split_marks (str or iterable, default="off"):
            Opt-in punctuation marks for splitting long active realtime
            recordings. Use "sentence" for the supported `. ? !` mode.
        - realtime_batch_size (int, default=16): Batch size for the real-time
            transcription model.
        - ultrafast_realtime_model_type (str, default=None): Optional second
            streaming realtime model. Its text may only append a bounded,
            safely anchored suffix to the authoritative realtime model text.
        - ultrafast_realtime_transcription_engine (str, default=None): Backend
            for the ultrafast lane. If omitted, the realtime backend is used.
            The backend must support streaming sessions.
        - ultrafast_realtime_transcription_engine_options (dict,
            default=None): Backend-specific ultrafast options. If omitted,
            realtime engine options are reused.
        - on_ultrafast_transcription_update (callable, default=None): Receives
            the raw ultrafast text independently of the central callbacks.
        - on_merged_realtime_transcription_update (callable, default=None):
            Receives the complete sticky merged text only when it changes.
        - on_realtime_transcription_merge_update (callable, default=None):
            Receives every structured RealtimeTranscriptionMergeResult,
            including held/no-anchor transitions.
        - ultrafast_realtime_max_tail_words (int, default=5): Maximum number
            of words the ultrafast model may append after a safe anchor. Lower
            this value to reduce the speculative error radius.

        Speculative Preview transcription:
        - enable_preview_transcription (bool, default=False): Runs an
            independent low-latency Preview transcription at confirmed VAD
            silence. Preview is intended for speculative consumers such as an
            early LLM response and is not authoritative Final ASR.
        - preview_model_type (str, default=None): Model used for Preview. If
            omitted while Preview is enabled, the loaded main model is reused
            when the Preview engine and options also match; otherwise an
            independent Preview model is initialized.
        - preview_transcription_engine (str, default=None): Backend used for
            Preview. If omitted, the main transcription backend is used.
        - preview_transcription_engine_options (dict, default=None): Optional
            backend-specific Preview options. If omitted, main-engine options
            are reused and allow the loaded main model to be shared.
        - preview_transcription_tail_seconds (float, default=3.0): Amount of
            recent active speech sent to Preview ASR.
        - preview_transcription_min_live_words_for_fuzzy_repair (int,
            default=3): Minimum Live words required before constrained fuzzy
            repair is allowed. Exact anchors remain available for shorter
            Live text; values below the 3-word anchor length cannot lower the
            matcher further.
        - on_preview_transcription_finished (callable, default=None): Callback
            receiving a PreviewTranscriptionResult. The result includes the
            speculative text, Live boundary snapshot, tail text, alignment
            status, and recording id.
        - preview_transcription_executor (callable, default=None): Optional
            external Preview ASR executor. It is called only with the bounded
            Preview tail; it never receives or triggers the full Final audio.

        Voice activity and turn detection:
        - silero_sensitivity (float, default=SILERO_SENSITIVITY): Sensitivity
            for the Silero Voice Activity Detection model ranging from 0
            (least sensitive) to 1 (most sensitive). Default is 0.4.
        - silero_use_onnx (bool, default=None): Legacy Silero backend switch.
            If True, keeps the previous torch.hub ONNX path. If False, keeps
            the previous torch.hub PyTorch path. If None, silero_backend
            controls backend selection and defaults to the fastest accurate
            option available.
        - silero_backend (str, default="auto"): Silero VAD runtime backend.
            "auto" prefers raw CPU ONNX Runtime with
            silero_vad_op18_ifless.onnx, then raw silero_vad.onnx, then
            PyTorch CPU. Other options include "legacy", "pytorch_cpu",
            "pytorch_cuda", "official_onnx", "raw_onnx", and
            "raw_onnx_ifless". CUDA remains available but is not automatic,
            because launch overhead is slower than CPU ONNX for single-stream
            32 ms chunks.
        - silero_onnx_model_path (str, default=None): Optional explicit ONNX
            model path for "official_onnx", "raw_onnx", or
            "raw_onnx_ifless" backends.
        - silero_onnx_threads (int, default=2): ONNX Runtime intra-op thread
            count for raw ONNX Silero backends. Inter-op threads stay at 1.
        - silero_deactivity_detection (bool, default=False): Enables the Silero
            model for end-of-speech detection. More robust against background
            noise. Utilizes additional GPU resources but improves accuracy in
            noisy environments. When False, uses the default WebRTC VAD,
            which is more sensitive but may continue recording longer due
            to background sounds.
        - webrtc_sensitivity (int, default=WEBRTC_SENSITIVITY): Sensitivity
            for the WebRTC Voice Activity Detection engine ranging from 0
            (least aggressive / most sensitive) to 3 (most aggressive,
            least sensitive). Default is 3.
        - post_speech_silence_duration (float, default=0.2): Duration in
            seconds of silence that must follow speech before the recording
            is considered to be completed. This ensures that any brief
            pauses during speech don't prematurely end the recording.
        - deactivity_silence_confirmation_duration (float, default=0.16):
            Duration in seconds that VAD silence must persist before it is
            accepted as confirmed end-of-speech silence.
        - min_gap_between_recordings (float, default=1.0): Specifies the
            minimum time interval in seconds that should exist between the
            end of one recording session and the beginning of another to
            prevent rapid consecutive recordings.
        - min_length_of_recording (float, default=1.0): Specifies the minimum
            duration in seconds that a recording session should last to ensure
            meaningful audio capture, preventing excessively short or
            fragmented recordings.
        - pre_recording_buffer_duration (float, default=0.2): Duration in
            seconds for the audio buffer to maintain pre-roll audio
            (compensates speech activity detection latency)
        - pre_recording_buffer_trim_config (dict, default=None): Optional
            conservative pre-roll trimming settings. Set ``enabled`` to True
            to trim only clear dead air before speech while preserving a
            configured minimum pre-roll tail.
        - on_vad_start (callable, default=None): Callback function to be called
            when the system detected the start of voice activity presence.
        - on_vad_stop (callable, default=None): Callback function to be called
            when the system detected the stop (end) of voice activity presence.
        - on_vad_detect_start (callable, default=None): Callback function to
            be called when the system listens for voice activity. This is not
            called when VAD actually happens (use on_vad_start for this), but
            when the system starts listening for it.
        - on_vad_detect_stop (callable, default=None): Callback function to be
            called when the system stops listening for voice activity. This is
            not called when VAD actually stops (use on_vad_stop for this), but
            when the system stops listening for it.
        - on_turn_detection_start (callable, default=None): Callback function
            to be called when the system starts to listen for a turn of speech.
        - on_turn_detection_stop (callable, default=None): Callback function to
            be called when the system stops listening for a turn of speech.

        Wake word detection:
        - wakeword_backend (str, default=""): Specifies the backend library to
            use for wake word detection. Supported options include 'pvporcupine'
            for using the Porcupine wake word engine or 'oww' for using the
            OpenWakeWord engine. If wake_words is set and wakeword_backend is
            empty, Porcupine is selected for backward compatibility.
        - openwakeword_model_paths (str, default=None): Comma-separated paths
            to model files for the openwakeword library. These paths point to
            custom models that can be used for wake word detection when the
            openwakeword library is selected as the wakeword_backend.
        - openwakeword_inference_framework (str, default="onnx"): Specifies
            the inference framework to use with the openwakeword library.
            Can be either 'onnx' for Open Neural Network Exchange format 
            or 'tflite' for TensorFlow Lite.
        - wake_words (str, default=""): Comma-separated string of wake words to
            initiate recording when using the 'pvporcupine' wakeword backend.
            Supported wake words include: 'alexa', 'americano', 'blueberry',
            'bumblebee', 'computer', 'grapefruits', 'grasshopper', 'hey google',
            'hey siri', 'jarvis', 'ok google', 'picovoice', 'porcupine',
            'terminator'. For the 'openwakeword' backend, wake words are
            automatically extracted from the provided model files, so specifying
            them here is not necessary.
        - wake_words_sensitivity (float, default=0.5): Sensitivity for wake
            word detection, ranging from 0 (least sensitive) to 1 (most
            sensitive). Default is 0.5.
        - wake_word_activation_delay (float, default=0): Duration in seconds
            after the start of monitoring before the system switches to wake
            word activation if no voice is initially detected. If set to
            zero, the system uses wake word activation immediately.
        - wake_word_timeout (float, default=5): Duration in seconds after a
            wake word is recognized. If no subsequent voice activity is
            detected within this window, the system transitions back to an
            inactive state, awaiting the next wake word or voice activation.
        - wake_word_buffer_duration (float, default=0.1): Duration in seconds
            to buffer audio data during wake word detection. This helps in
            cutting out the wake word from the recording buffer so it does not
            falsely get detected along with the following spoken text, ensuring
            cleaner and more accurate transcription start triggers.
            Increase this if parts of the wake word get detected as text.
        - on_wakeword_detected (callable, default=None): Callback function to
            be called when a wake word is detected.
        - on_wakeword_timeout (callable, default=None): Callback function to
            be called when the system goes back to an inactive state after when
            no speech was detected after wake word activation
        - on_wakeword_detection_start (callable, default=None): Callback
             function to be called when the system starts to listen for wake
             words
        - on_wakeword_detection_end (callable, default=None): Callback
            function to be called when the system stops to listen for
            wake words (e.g. because of timeout or wake word detected)

        Audio input, decoding, and transcription tuning:
        - on_recorded_chunk (callable, default=None): Callback function to be
            called when a chunk of audio is recorded. The function is called
            with the recorded audio chunk as its argument.
        - debug_mode (bool, default=False): If set to True, the system will
            print additional debug information to the console.
        - handle_buffer_overflow (bool, default=True): If set to True, the system
            will log a warning when an input overflow occurs during recording and
            remove the data from the buffer.
        - beam_size (int, default=5): The beam size to use for beam search
            decoding.
        - beam_size_realtime (int, default=3): The beam size to use for beam
            search decoding in the real-time transcription model.
        - buffer_size (int, default=512): The buffer size to use for audio
            recording. Changing this may break functionality.
        - sample_rate (int, default=16000): The sample rate to use for audio
            recording. Changing this will very probably functionality (as the
            WebRTC VAD model is very sensitive towards the sample rate).
        - initial_prompt (str or iterable of int, default=None): Initial
            prompt to be fed to the main transcription model.
        - initial_prompt_realtime (str or iterable of int, default=None):
            Initial prompt to be fed to the real-time transcription model.
        - suppress_tokens (list of int, default=[-1]): Tokens to be suppressed
            from the transcription output.
        - print_transcription_time (bool, default=False): Logs processing time
            of main model transcription 
        - early_transcription_on_silence (int, default=0): If set, the
            system will transcribe audio faster when silence is detected.
            Transcription will start after the specified milliseconds, so 
            keep this value lower than post_speech_silence_duration. 
            Ideally around post_speech_silence_duration minus the estimated
            transcription time with the main model.
            If silence lasts longer than post_speech_silence_duration, the 
            recording is stopped, and the transcription is submitted. If 
            voice activity resumes within this period, the transcription 
            is discarded. Results in faster final transcriptions to the cost
            of additional GPU load due to some unnecessary final transcriptions.
        - allowed_latency_limit (int, default=100): Maximal amount of chunks
            that can be unprocessed in queue before discarding chunks.

        Logging, VAD warmup, normalization, and callback execution:
        - no_log_file (bool, default=False): Skips writing of debug log file.
        - use_extended_logging (bool, default=False): Writes extensive
            log messages for the recording worker, that processes the audio
            chunks.
        - faster_whisper_vad_filter (bool, default=True): If set to True,
            the system will additionally use the VAD filter from the faster_whisper library
            for voice activity detection. This filter is more robust against
            background noise but requires additional GPU resources.
        - warmup_vad (bool, default=True): If set to True, performs a tiny
            warm-up pass through WebRTC and Silero VAD during initialization so
            the first real audio chunk does not pay lazy model/runtime setup
            costs.
        - normalize_audio (bool, default=False): If set to True, the system will
            normalize the audio to a specific range before processing. This can
            help improve the quality of the transcription.
        - final_transcription_word_timestamps (bool, default=False): If set to
            True, final transcription requests ask compatible engines to return
            word-level timestamps in last_transcription_metadata["words"]. This
            is currently supported by the faster_whisper transcription engine.
        - start_callback_in_new_thread (bool, default=False): If set to True,
            the callback functions will be executed in a
            new thread. This can help improve performance by allowing the
            callback to run concurrently with other operations.

        Realtime boundary scheduling:
        - realtime_transcription_use_syllable_boundaries (bool, default=False):
            If set to True, realtime transcription is scheduled from a cheap
            vowel/syllable-boundary detector instead of the fixed
            realtime_processing_pause timer.
        - realtime_boundary_detector_sensitivity (float, default=0.6):
            Sensitivity for the acoustic syllable-boundary detector, ranging
            from 0 (conservative) to 1 (eager).
        - realtime_boundary_followup_delays (iterable of float, default=(0.05, 0.2)):
            If using syllable-boundary scheduling, force additional realtime
            transcriptions after each detected boundary at these offsets in
            seconds. Empty iterable or None disables follow-up transcriptions.

        Raises:
            Exception: Errors related to initializing transcription
            model, wake word detection, or audio recording.
        """

        init_args = build_recorder_init_args(
            self,
            model=model,
            transcription_engine=transcription_engine,
            transcription_engine_options=transcription_engine_options,
            download_root=download_root,
            language=language,
            compute_type=compute_type,
            input_device_index=input_device_index,
            gpu_device_index=gpu_device_index,
            device=device,
            on_recording_start=on_recording_start,
            on_recording_stop=on_recording_stop,
            on_transcription_start=on_transcription_start,
            ensure_sentence_starting_uppercase=ensure_sentence_starting_uppercase,
            ensure_sentence_ends_with_period=ensure_sentence_ends_with_period,
            use_microphone=use_microphone,
            spinner=spinner,
            level=level,
            batch_size=batch_size,
            enable_realtime_transcription=enable_realtime_transcription,
            use_main_model_for_realtime=use_main_model_for_realtime,
            realtime_transcription_engine=realtime_transcription_engine,
            realtime_transcription_engine_options=(
                realtime_transcription_engine_options
            ),
            realtime_model_type=realtime_model_type,
            realtime_processing_pause=realtime_processing_pause,
            init_realtime_after_seconds=init_realtime_after_seconds,
            on_realtime_transcription_update=on_realtime_transcription_update,
            on_realtime_transcription_stabilized=(
                on_realtime_transcription_stabilized
            ),
            realtime_batch_size=realtime_batch_size,
            silero_sensitivity=silero_sensitivity,
            silero_use_onnx=silero_use_onnx,
            silero_deactivity_detection=silero_deactivity_detection,
            webrtc_sensitivity=webrtc_sensitivity,
            warmup_vad=warmup_vad,
            post_speech_silence_duration=post_speech_silence_duration,
            min_length_of_recording=min_length_of_recording,
            min_gap_between_recordings=min_gap_between_recordings,
            pre_recording_buffer_duration=pre_recording_buffer_duration,
            pre_recording_buffer_trim_config=pre_recording_buffer_trim_config,
            on_vad_start=on_vad_start,
            on_vad_stop=on_vad_stop,
            on_vad_detect_start=on_vad_detect_start,
            on_vad_detect_stop=on_vad_detect_stop,
            on_turn_detection_start=on_turn_detection_start,
            on_turn_detection_stop=on_turn_detection_stop,
            wakeword_backend=wakeword_backend,
            openwakeword_model_paths=openwakeword_model_paths,
            openwakeword_inference_framework=openwakeword_inference_framework,
            wake_words=wake_words,
            wake_words_sensitivity=wake_words_sensitivity,
            wake_word_activation_delay=wake_word_activation_delay,
            wake_word_timeout=wake_word_timeout,
            wake_word_buffer_duration=wake_word_buffer_duration,
            on_wakeword_detected=on_wakeword_detected,
            on_wakeword_timeout=on_wakeword_timeout,
            on_wakeword_detection_start=on_wakeword_detection_start,
            on_wakeword_detection_end=on_wakeword_detection_end,
            on_recorded_chunk=on_recorded_chunk,
            debug_mode=debug_mode,
            handle_buffer_overflow=handle_buffer_overflow,
            beam_size=beam_size,
            beam_size_realtime=beam_size_realtime,
            buffer_size=buffer_size,
            sample_rate=sample_rate,
            initial_prompt=initial_prompt,
            initial_prompt_realtime=initial_prompt_realtime,
            suppress_tokens=suppress_tokens,
            print_transcription_time=print_transcription_time,
            early_transcription_on_silence=early_transcription_on_silence,
            allowed_latency_limit=allowed_latency_limit,
            no_log_file=no_log_file,
            use_extended_logging=use_extended_logging,
            faster_whisper_vad_filter=faster_whisper_vad_filter,
            normalize_audio=normalize_audio,
            final_transcription_word_timestamps=(
                final_transcription_word_timestamps
            ),
            start_callback_in_new_thread=start_callback_in_new_thread,
            realtime_transcription_use_syllable_boundaries=(
                realtime_transcription_use_syllable_boundaries
            ),
            realtime_boundary_detector_sensitivity=(
                realtime_boundary_detector_sensitivity
            ),
            realtime_boundary_followup_delays=realtime_boundary_followup_delays,
            transcription_executor=transcription_executor,
            realtime_transcription_executor=realtime_transcription_executor,
            on_realtime_text_stabilization_update=(
                on_realtime_text_stabilization_update
            ),
            realtime_punctuation_split_marks=realtime_punctuation_split_marks,
            silero_backend=silero_backend,
            silero_onnx_model_path=silero_onnx_model_path,
            silero_onnx_threads=silero_onnx_threads,
            deactivity_silence_confirmation_duration=(
                deactivity_silence_confirmation_duration
            ),
            enable_preview_transcription=enable_preview_transcription,
            preview_model_type=preview_model_type,
            preview_transcription_engine=preview_transcription_engine,
            preview_transcription_engine_options=(
                preview_transcription_engine_options
            ),
            preview_transcription_tail_seconds=preview_transcription_tail_seconds,
            preview_transcription_min_live_words_for_fuzzy_repair=(
                preview_transcription_min_live_words_for_fuzzy_repair
            ),
            on_preview_transcription_finished=on_preview_transcription_finished,
            preview_transcription_executor=preview_transcription_executor,
            ultrafast_realtime_model_type=ultrafast_realtime_model_type,
            ultrafast_realtime_transcription_engine=(
                ultrafast_realtime_transcription_engine
            ),
            ultrafast_realtime_transcription_engine_options=(
                ultrafast_realtime_transcription_engine_options
            ),
            on_ultrafast_transcription_update=(
                on_ultrafast_transcription_update
            ),
            on_merged_realtime_transcription_update=(
                on_merged_realtime_transcription_update
            ),
            on_realtime_transcription_merge_update=(
                on_realtime_transcription_merge_update
            ),
            ultrafast_realtime_max_tail_words=(
                ultrafast_realtime_max_tail_words
            ),
        )

        initialize_recorder(
            self,
            AudioToTextRecorder,
            init_args,
            normalize_wakeword_backend=_normalize_wakeword_backend,
            load_porcupine_module=_load_porcupine_module,
            load_openwakeword_modules=_load_openwakeword_modules,
        )
                   

    # Public recording API.

    def start(self, frames = None):
        """
        Starts recording audio directly without waiting for voice activity.

        Args:
        - frames: Optional audio frames to use as the initial recording data.
        """
        return start_recording(self, frames)

    def stop(self,
             backdate_stop_seconds: float = 0.0,
             backdate_resume_seconds: float = 0.0,
        ):
        """
        Stops recording audio.

        Args:
        - backdate_stop_seconds (float, default="0.0"): Specifies the number of
            seconds to backdate the stop time. This is useful when the stop
            command is issued after the actual stop time.
        - backdate_resume_seconds (float, default="0.0"): Specifies the number
            of seconds to backdate the time relistening is initiated.
        """
        return stop_recording(
            self,
            backdate_stop_seconds=backdate_stop_seconds,
            backdate_resume_seconds=backdate_resume_seconds,
        )

    def listen(self):
        """
        Puts the recorder in listening state for voice activation.
        """
        return listen_for_voice_activity(self)

    def wait_audio(self):
        """
        Waits for recording to complete and loads the captured audio.
        """
        return wait_for_recorded_audio(self)

    # Public transcription API.

    def text(self,
             on_transcription_finished=None,
             word_timestamps=None,
             ):
        """
        Records if needed and returns or publishes final transcription text.

        Args:
        - on_transcription_finished: Optional callback that receives the
            transcription result instead of returning it synchronously.
        - word_timestamps: Optional per-call override for word-level timestamp
            metadata. If None, final_transcription_word_timestamps is used.
        """
        return transcribe_text(self, on_transcription_finished, word_timestamps)

    def transcribe(self, word_timestamps=None):
        """
        Transcribes the recorder's currently loaded audio.
        """
        return transcribe_recorded_audio(self, word_timestamps)

    def perform_final_transcription(self, audio_bytes=None, use_prompt=True, word_timestamps=None):
        """
        Runs final transcription on recorded audio or provided audio samples.

        Args:
        - audio_bytes: Optional audio samples to transcribe instead of the
            recorder's current audio buffer.
        - use_prompt: Whether to use the configured initial prompt.
        - word_timestamps: Optional per-call override for word-level timestamp
            metadata. If None, final_transcription_word_timestamps is used.
        """
        return perform_final_transcription_api(self, audio_bytes, use_prompt, word_timestamps)

    # Public manual input API.

    def feed_audio(self, chunk, original_sample_rate=16000):
        """
        Feeds an audio chunk into the manual audio input pipeline.

        Args:
        - chunk: Audio bytes, a NumPy audio array, or an audio file path.
        - original_sample_rate: Sample rate of the provided audio chunk.
        """
        return feed_manual_audio(self, chunk, original_sample_rate)

    def flush_audio_input(self):
        """Queue a partial manual-input chunk before an explicit drain."""

        return flush_manual_audio_input(self)

    def drain_audio_input(self, timeout=None):
        """Wait until the recording worker has consumed queued manual audio."""

        return drain_audio_input(self, timeout=timeout)

    def feed_audio_file(
            self,
            filenames,
            normalize=True,
            target_peak=0.95,
    ):
        """
        Feeds one or more audio files into the manual audio input pipeline.

        Args:
        - filenames: Audio file path or iterable of audio file paths.
        - normalize: Whether to peak-normalize decoded audio before feeding.
        - target_peak: Target absolute peak when normalization is enabled.
        """
        return feed_manual_audio_file(
            self,
            filenames,
            normalize=normalize,
            target_peak=target_peak,
        )

    # Public lifecycle/control API.

    def wakeup(self):
        """
        Wakes the recorder as if a wake word was detected.
        """
        return wakeup_recorder(self)

    def abort(self):
        """
        Interrupts the current recording or transcription flow.
        """
        return abort_recording(self)

    def set_microphone(self, microphone_on=True):
        """
        Set the microphone on or off.

        Args:
        - microphone_on: Whether microphone input should be enabled.
        """
        logger.info("Setting microphone to: " + str(microphone_on))
        self.use_microphone.value = microphone_on

    def clear_audio_queue(self):
        """
        Safely empties queued audio fragments.
        """
        return clear_recorder_audio_queue(self)

    def has_pending_recordings(self):
        """
        Returns whether completed recordings are waiting to be consumed.
        """
        return recorder_has_pending_recordings(self)

    def flush_buffered_audio(self, min_abs_level=50):
        """
        Queues buffered manual audio when it contains non-silent samples.

        Args:
        - min_abs_level: Minimum absolute sample level treated as non-silence.
        """
        return flush_recorder_buffered_audio(self, min_abs_level)

    def shutdown(self):
        """
        Safely shuts down recorder workers and releases runtime resources.
        """
        return shutdown_recorder(self)

    def format_number(self, num):
        """
        Formats a number for user-facing transcription text.

        Args:
        - num: Number to format.
        """
        return format_number(num)

    # Context manager API.

    def __enter__(self):
        """
        Enters the recorder context manager.
        """
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        """
        Exits the recorder context manager and shuts down the recorder.

        Args:
        - exc_type: Exception type from the managed block, if any.
        - exc_value: Exception instance from the managed block, if any.
        - traceback: Exception traceback from the managed block, if any.
        """
        self.shutdown()
