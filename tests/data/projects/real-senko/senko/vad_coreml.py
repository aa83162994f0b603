import ctypes
from ctypes import c_double, c_void_p, POINTER, c_int32, c_char_p, c_float, c_size_t

import numpy as np

class VADProcessorCoreML:
    def __init__(self, lib_path, model_path, min_duration_on=0.25, min_duration_off=0.1):
        # Load library
        self.lib = ctypes.CDLL(lib_path)
        self.lib.vad_create.restype = c_void_p
        self.lib.vad_load_model.argtypes = [c_void_p, c_char_p]
        self.lib.vad_load_model.restype = c_int32
        self.lib.vad_set_min_duration_on.argtypes = [c_void_p, c_double]
        self.lib.vad_set_min_duration_off.argtypes = [c_void_p, c_double]
        self.lib.vad_process_file.argtypes = [c_void_p, c_char_p, POINTER(c_int32)]
        self.lib.vad_process_file.restype = c_void_p
        self.lib.vad_process_samples.argtypes = [c_void_p, POINTER(c_float), c_size_t, POINTER(c_int32)]
        self.lib.vad_process_samples.restype = c_void_p
        self.lib.vad_process_samples_incremental.argtypes = [c_void_p, POINTER(c_float), c_size_t, POINTER(c_int32)]
        self.lib.vad_process_samples_incremental.restype = c_void_p
        self.lib.vad_process_samples_incremental_offset.argtypes = [c_void_p, POINTER(c_float), c_size_t, c_size_t, POINTER(c_int32)]
        self.lib.vad_process_samples_incremental_offset.restype = c_void_p
        self.lib.vad_reset_incremental.argtypes = [c_void_p]
        self.lib.vad_free_segments.argtypes = [c_void_p]
        self.lib.vad_destroy.argtypes = [c_void_p]

        # Create processor
        self.processor = self.lib.vad_create()

        # Set parameters
        self.lib.vad_set_min_duration_on(self.processor, min_duration_on)
        self.lib.vad_set_min_duration_off(self.processor, min_duration_off)

        # Load model
        if not self.lib.vad_load_model(self.processor, model_path.encode('utf-8')):
            raise RuntimeError(f"Failed to load model from {model_path}")

    def process_audio(self, audio_source):
        """Process a WAV path or in-memory float32 mono samples and return VAD segments."""
        count = c_int32()

        if isinstance(audio_source, np.ndarray):
            audio = np.ascontiguousarray(audio_source, dtype=np.float32)
            segments_ptr = self.lib.vad_process_samples(
                self.processor,
                audio.ctypes.data_as(POINTER(c_float)),
                audio.size,
                ctypes.byref(count)
            )
        else:
            segments_ptr = self.lib.vad_process_file(
                self.processor,
                str(audio_source).encode('utf-8'),
                ctypes.byref(count)
            )

        return self._read_segments(segments_ptr, count.value)

    def process_audio_incremental(self, audio, *, sample_offset=0):
        """Process a growing float32 mono prefix, reusing completed 10-second chunks."""
        audio = np.ascontiguousarray(audio, dtype=np.float32)
        count = c_int32()
        segments_ptr = self.lib.vad_process_samples_incremental_offset(
            self.processor,
            audio.ctypes.data_as(POINTER(c_float)),
            audio.size,
            sample_offset,
            ctypes.byref(count),
        )
        return self._read_segments(segments_ptr, count.value)

    def reset_incremental(self):
        self.lib.vad_reset_incremental(self.processor)

    def _read_segments(self, segments_ptr, count):
        if not segments_ptr or count == 0:
            return []

        # Check for special invalid pointer
        if segments_ptr == 1:
            return []

        # Extract segments
        double_ptr = ctypes.cast(segments_ptr, POINTER(c_double))
        segments = []

        for i in range(count):
            start = double_ptr[i * 2]
            end = double_ptr[i * 2 + 1]
            segments.append((start, end))

        # Free memory
        self.lib.vad_free_segments(segments_ptr)

        return segments

    def __del__(self):
        if hasattr(self, 'processor') and self.processor:
            self.lib.vad_destroy(self.processor)
