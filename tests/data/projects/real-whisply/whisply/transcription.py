import logging
import time
import warnings
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from rich import print

from whisply import little_helper as help
from whisply import models, output_utils
from whisply.little_helper import FilePathProcessor
from whisply.post_correction import Corrections

# Set logging
log_dir = help.ensure_dir(Path('./logs'))
log_filename = f"log_whisply_{datetime.now(tz=UTC).strftime('%Y-%m-%d')}.log"
log_file = f"{log_dir}/{log_filename}"

logging.basicConfig(
    filename=log_file,
    level=logging.INFO,
    format="%(asctime)s %(levelname)s [%(funcName)s]: %(message)s",
)
logger = logging.getLogger('transcription')

# Ignore non-critical warnings
logging.getLogger('lightning.pytorch.utilities.migration').setLevel(logging.ERROR)
logging.getLogger('whisperx.vads.pyannote').setLevel(logging.WARNING)
warnings.filterwarnings(
    'ignore',
    message=r'std\(\): degrees of freedom is <= 0',
    category=UserWarning,
)


class TranscriptionHandler:
    """
    Handles transcription and diarization of audio/video files using various
    Whisper-based models.

    This class leverages different implementations of OpenAI's Whisper models
    (whisperX, faster-whisper, mlx-whisper) to transcribe audio and video files.
    It supports features like language detection, speaker diarization, translation,
    subtitle generation, and exporting transcriptions in multiple formats. It is
    capable of processing single files, directories, URLs, and lists of files,
    providing flexibility for diverse transcription needs.
    """
    def __init__(
        self,
        base_dir='./transcriptions',
        model='large-v3-turbo',
        device='cpu',
        file_language=None,
        annotate=False,
        num_speakers=None,
        hf_token=None,
        subtitle=False,
        sub_length=None,
        translate=False,
        verbose=False,
        del_originals=False,
        download_lang=None,
        corrections=Corrections,
        export_formats='all'
    ):
        self.base_dir = help.ensure_dir(Path(base_dir))
        self.file_formats = help.return_valid_fileformats()
        self.device = device
        self.file_language = file_language
        self.file_language_provided = file_language is not None
        self.model = None
        self.model_provided = model
        self.annotate = annotate
        self.num_speakers = num_speakers
        self.translate = translate
        self.hf_token = hf_token
        self.subtitle = subtitle
        self.sub_length = sub_length
        self.verbose = verbose
        self.del_originals = del_originals
        self.download_lang = download_lang
        self.corrections = corrections
        self.export_formats = export_formats
        self.metadata = self._collect_metadata()
        self.filepaths = []
        self.output_dir = None
        self.processed_files = []

    def _collect_metadata(self):
        return {
            'output_dir': str(self.base_dir),
            'file_language': self.file_language,
            'model': self.model_provided,
            'device': self.device,
            'annotate': self.annotate,
            'num_speakers': self.num_speakers,
            'translate': self.translate,
            'subtitle': self.subtitle,
            'sub_length': self.sub_length
            }

    def adjust_word_chunk_length(self, result: dict) -> dict:
        """
        Generates text chunks based on the maximum number of words.

        Parameters:
            result (dict): The nested dictionary containing segments
            and words.
            max_number (int): The maximum number of words per chunk.
            Default is 6.

        Returns:
            dict: A dictionary containing a list of chunks, each with
            'text', 'timestamp', and 'words'.
        """
        # Flatten all words from all segments
        words = [
            word_info
            for segment in result.get('segments', [])
            for word_info in segment.get('words', [])
        ]

        # Split words into chunks of size max_number
        def split_into_chunks(lst, n):
            """Yield successive n-sized chunks from lst."""
            for i in range(0, len(lst), n):
                yield lst[i:i + n]

        chunks = []
        for word_chunk in split_into_chunks(words, self.sub_length):
            chunk_text = ' '.join(
                word_info['word'] for word_info in word_chunk
            )
            chunk_start = word_chunk[0]['start']
            chunk_end = word_chunk[-1]['end']
            chunk = {
                'timestamp': [chunk_start, chunk_end],
                'text': chunk_text,
                'words': word_chunk
            }
            chunks.append(chunk)

        result_temp = {
            'text': ' '.join(chunk['text'].strip() for chunk in chunks),
            'chunks': chunks
        }

        return result_temp

    def to_transcription_dict(self, insanely_annotation: list[dict]) -> dict:
        """
        Transform insanely-fast-whisper speaker annotation result to dict.
        """
        chunks = []
        for s in insanely_annotation:
            chunk = {
                'text': s['text'],
                'timestamp': (s['timestamp'][0], s['timestamp'][1]),
                'speaker': s['speaker']
            }
            chunks.append(chunk)

        result = {
            'text': ''.join([s['text'] for s in insanely_annotation]),
            'chunks': chunks
        }
        return result

    def to_whisperx(self, transcription_result: dict) -> dict:
        """
        Normalize insanely-fast-whisper transcription result to whisperX dict.
        """
        if not transcription_result.get('chunks'):
            return {'segments': []}

        words = []
        for c in transcription_result['chunks']:
            if 'speaker' in c:
                word = {
                    'word': c['text'].strip(),
                    'start': c['timestamp'][0],
                    'end': c['timestamp'][1],
                    'speaker': c['speaker']
                }
            else:
                word = {
                    'word': c['text'].strip(),
                    'start': c['timestamp'][0],
                    'end': c['timestamp'][1]
                }
            words.append(word)

        result = {
            'segments': [
                {
                    'start': transcription_result['chunks'][0]['timestamp'][0],
                    'end': transcription_result['chunks'][-1]['timestamp'][1],
                    'text': transcription_result['text'].strip(),
                    'words': words
                }
            ]
        }
        return result

    def create_text_with_speakers(
        self,
        transcription_dict: dict,
        delimiter: str = '.'
    ) -> dict:
        """
        Iterates through all chunks of each language and creates the complete
        text with speaker labels inserted when there is a speaker change.

        Args:
            transcription_dict (dict): The dictionary containing transcription
            data.

        Returns:
            dict: A dictionary mapping each language to its formatted text with
            speaker labels.
        """
        transcriptions = transcription_dict.get('transcriptions', {})

        for lang, lang_data in transcriptions.items():
            text = ""
            current_speaker = None
            chunks = lang_data.get('chunks', [])

            for chunk in chunks:
                words = chunk.get('words', [])

                for word_info in words:
                    speaker = word_info.get('speaker')
                    word = word_info.get('word', '')
                    start_timestamp = help.format_time(
                        word_info.get('start'),
                        delimiter
                        )

                    # Insert speaker label if a speaker change is detected
                    if speaker != current_speaker:
                        text += f"\n[{start_timestamp}] [{speaker}] "
                        current_speaker = speaker

                    # Append the word with a space
                    text += word + " "

            transcription_dict['transcriptions'][lang][
                'text_with_speaker_annotation'
            ] = text.strip()

        return transcription_dict

    def to_mlx_chunks(self, mlx_result: dict) -> dict:
        """
        Normalize mlx-whisper results to a chunk-based structure that mirrors
        the insanely-fast-whisper output.
        """
        def _to_float(value, default=0.0) -> float:
            try:
                return float(value)
            except (TypeError, ValueError):
                return default

        chunks = []
        segments = mlx_result.get('segments') or []

        for segment in segments:
            seg_start = round(_to_float(segment.get('start'), 0.0), 2)
            seg_end = round(
                _to_float(segment.get('end'), seg_start),
                2
            )
            words = segment.get('words') or []

            if words:
                for word in words:
                    word_text = (
                        word.get('word')
                        or word.get('text')
                        or str(word.get('token', '')).strip()
                    )
                    if not word_text:
                        continue

                    w_start = round(
                        _to_float(word.get('start'), seg_start),
                        2
                    )
                    w_end = round(
                        _to_float(word.get('end'), w_start),
                        2
                    )

                    chunks.append({
                        'text': word_text.strip(),
                        'timestamp': (w_start, w_end)
                    })
            else:
                seg_text = segment.get('text', '').strip()
                if seg_text:
                    chunks.append({
                        'text': seg_text,
                        'timestamp': (seg_start, seg_end)
                    })

        if not chunks and mlx_result.get('text'):
            chunks.append({
                'text': mlx_result['text'].strip(),
                'timestamp': (0.0, 0.0)
            })

        text = ' '.join([c['text'].strip() for c in chunks])
        return {'text': text, 'chunks': chunks}

    def transcribe_with_whisperx(self, filepath: Path) -> dict:
        """
        Transcribe a file with the whisperX implementation that returns
        word-level timestamps and speaker annotation:
        https://github.com/m-bain/whisperX

        This implementation is used when a specific subtitle length (e.g.
        5 words per individual subtitle) is needed.
        """
        import gc

        import torch
        import whisperx

        def empty_cuda_cache(model):
            gc.collect()
            torch.cuda.empty_cache()
            del model

        def fill_missing_timestamps(segments: list) -> list:
            """
            whisperX does not provide timestamps for words containing only
            numbers (e.g. "1.5", "2024" etc.).

            The function fills these missing timestamps by padding the last
            known 'end' timestamp for a missing 'start' timestamp or by cutting
            the next known 'start' timestamp for a missing 'end' timestamp.
            """
            padding = 0.05  # in seconds

            for segment in segments:
                words = segment['words']
                num_words = len(words)

                for i, word in enumerate(words):
                    # If the 'start' key is missing
                    if 'start' not in word:
                        if i > 0 and 'end' in words[i-1]:
                            word['start'] = round(
                                words[i-1]['end'] + padding, 2
                            )
                        else:
                            word['start'] = segment['start']

                    # If the 'end' key is missing
                    if 'end' not in word:
                        if i < num_words - 1 and 'start' in words[i+1]:
                            word['end'] = round(
                                words[i+1]['start'] - padding, 2
                            )
                        elif i == num_words - 1:
                            word['end'] = round(words[i]['start'] + padding, 2)
                            segment['end'] = word['end']
                        else:
                            word['end'] = round(words[i]['start'] + padding, 2)

                    # If 'score' key is missing
                    if 'score' not in word:
                        word['score'] = 0.5

                    # If 'speaker' key is missing
                    if self.annotate and 'speaker' not in word:
                        speaker_assigned = False

                        # Case 1: First word: look forward for speaker
                        if i == 0:
                            for j in range(i + 1, num_words):
                                if 'speaker' in words[j]:
                                    word['speaker'] = words[j]['speaker']
                                    speaker_assigned = True
                                    break

                        # Case 2: Last word: look backward for last speaker
                        elif i == num_words - 1:
                            for j in range(i - 1, -1, -1):
                                if 'speaker' in words[j]:
                                    word['speaker'] = words[j]['speaker']
                                    speaker_assigned = True
                                    break

                        # Case 3: For other words, prefer the previous speaker;
                        # If not found, look forward
                        if not speaker_assigned:
                            # Look backward
                            for j in range(i - 1, -1, -1):
                                if 'speaker' in words[j]:
                                    word['speaker'] = words[j]['speaker']
                                    speaker_assigned = True
                                    break

                        if not speaker_assigned:
                            # Look forward
                            for j in range(i + 1, num_words):
                                if 'speaker' in words[j]:
                                    word['speaker'] = words[j]['speaker']
                                    speaker_assigned = True
                                    break

                        if not speaker_assigned:
                            # Default speaker if none found
                            word['speaker'] = 'UNKNOWN'

            return segments

        def whisperx_task(task: str = 'transcribe', language=None):
            """
            Define a transcription / translation task with whisperX
            """
            # Set parameters
            device = 'cuda' if self.device == 'cuda:0' else 'cpu'

            # Transcribe or Translate
            model = whisperx.load_model(
                whisper_arch=self.model,
                device=device,
                compute_type='float16' if self.device == 'cuda:0' else 'int8',
                language=self.file_language or None,
                asr_options={
                    "hotwords": None,
                    "multilingual": False
                })
            audio = whisperx.load_audio(str(filepath), sr=16000)
            result = model.transcribe(
                audio,
                batch_size=16 if self.device == 'cuda:0' else 8,
                task=task
                )
            model_a, metadata = whisperx.load_align_model(
                device=device,
                language_code=language
                )
            result = whisperx.align(
                result["segments"],
                model_a,
                metadata,
                audio,
                device,
                return_char_alignments=False
                )

            # Empty CUDA cache
            if self.device == 'cuda:0':
                empty_cuda_cache(model_a)

            return result

        def whisperx_annotation(transcription_result: dict) -> dict:
            # Set parameters
            device = 'cuda' if self.device == 'cuda:0' else 'cpu'

            diarize_model = whisperx.diarize.DiarizationPipeline(
                model_name='pyannote/speaker-diarization-community-1',
                token=self.hf_token,
                device=device
                )
            diarize_segments = diarize_model(
                str(filepath),
                num_speakers=self.num_speakers
                )
            result = whisperx.assign_word_speakers(
                diarize_segments,
                transcription_result
                )

            # Empty CUDA cache
            if self.device == 'cuda:0':
                empty_cuda_cache(diarize_model)

            return result

        # Start and time transcription
        logger.info(
            f"👨‍💻 Transcription started with whisperX for {filepath.name}"
        )
        t_start = time.time()

        # Run the transcription
        transcription_task = partial(
            whisperx_task,
            task='transcribe',
            language=self.file_language
        )
        transcription_result = help.run_with_progress(
            description=(
                f"[cyan]→ Transcribing "
                f"({'CUDA' if self.device == 'cuda:0' else 'CPU'}) "
                f"[bold]{filepath.name}"
            ),
            task=transcription_task
        )

        # Speaker annotation
        if self.annotate:
            annotation_task = partial(
                whisperx_annotation,
                transcription_result
                )
            transcription_result = help.run_with_progress(
                description=(
                    f"[purple]→ Annotating ({self.device.upper()}) "
                    f"[bold]{filepath.name}"
                ),
                task=annotation_task
            )

        # Fill in missing timestamps and adjust word chunk length
        transcription_result['segments'] = fill_missing_timestamps(
            transcription_result['segments']
            )
        transcription_result = self.adjust_word_chunk_length(
            transcription_result
            )

        # Create result dict and append transcription to it
        result = {'transcriptions': {}}
        result['transcriptions'][self.file_language] = transcription_result

        if self.verbose:
            print(f"{result['transcriptions'][self.file_language]['text']}")

        # Translation task (to English)
        if self.translate and self.file_language != 'en':
            translation_task = partial(
                whisperx_task,
                task='translate',
                language='en'
                )
            translation_result = help.run_with_progress(
                description=(
                    f"[dark_blue]→ Translating "
                    f"({'CUDA' if self.device == 'cuda:0' else 'CPU'}) "
                    f"[bold]{filepath.name}"
                ),
                task=translation_task
            )

            # Speaker annotation
            if self.annotate:
                annotation_task = partial(
                    whisperx_annotation,
                    translation_result
                    )
                translation_result = help.run_with_progress(
                    description=(
                        f"[purple]→ Annotating ({self.device.upper()}) "
                        f"[bold]{filepath.name}"
                    ),
                    task=annotation_task
                )

            # Fill in missing timestamps and adjust word chunk length
            translation_result['segments'] = fill_missing_timestamps(
                translation_result['segments']
                )
            translation_result = self.adjust_word_chunk_length(
                translation_result
                )
            result['transcriptions']['en'] = translation_result

            if self.verbose:
                print(f"{result['transcriptions']['en']['text']}")

        # Create full transcription with speaker annotation
        if self.annotate:
            result = self.create_text_with_speakers(result)

        logger.info(
            f"👨‍💻 Transcription completed in {time.time() - t_start:.2f} sec."
        )

        return {'transcription': result}

    def _resolve_mlx_model_path(self) -> str:
        """
        Save the MLX model to a local directory path.
        """
        if Path(self.model).exists():
            return self.model

        from huggingface_hub import snapshot_download
        from huggingface_hub.utils import LocalEntryNotFoundError

        try:
            return snapshot_download(self.model, local_files_only=True)
        except LocalEntryNotFoundError:
            print(f'[blue1]→ Downloading model "{self.model}" ...')
            return snapshot_download(self.model)

    def transcribe_with_mlx_whisper(self, filepath: Path) -> dict:
        """
        Transcribes a file using the 'mlx-whisper' implementation:
        https://huggingface.co/mlx-community

        This method utilizes the MLX implementation of OpenAI Whisper for
        Apple Silicon devices.
        """
        try:
            import mlx_whisper
        except ImportError as exc:
            raise ImportError(
                "mlx-whisper is required to run transcriptions on MLX. "
                "Install it with `pip install mlx-whisper` (macOS only)."
            ) from exc

        def mlx_annotation(transcription_result: dict) -> dict:
            from whisply import diarize_utils

            annotation_result = diarize_utils.diarize(
                transcription_result,
                diarization_model='pyannote/speaker-diarization-community-1',
                hf_token=self.hf_token,
                file_name=str(filepath),
                device=self.device,
                num_speakers=self.num_speakers,
                min_speakers=None,
                max_speakers=None,
            )
            return self.to_transcription_dict(annotation_result)

        logger.info(
            f"👨‍💻 Transcription started with 🍎 mlx-whisper "
            f"for {filepath.name}"
        )
        t_start = time.time()

        model_path = self._resolve_mlx_model_path()

        try:
            def transcription_task(task: str = 'transcribe', language=None):
                try:
                    return mlx_whisper.transcribe(
                        str(filepath),
                        path_or_hf_repo=model_path,
                        task=task,
                        language=language,
                        word_timestamps=True,
                    )
                except TypeError:
                    logger.info(
                        "mlx-whisper does not support `word_timestamps` in "
                        "this version. Falling back to default call."
                    )
                    return mlx_whisper.transcribe(
                        str(filepath),
                        path_or_hf_repo=model_path,
                        task=task,
                        language=language,
                    )

            transcription_result = help.run_with_progress(
                description=(
                    f"[cyan]→ Transcribing ({self.device.upper()}) "
                    f"[bold]{filepath.name}"
                ),
                task=partial(
                    transcription_task,
                    task='transcribe',
                    language=self.file_language
                )
            )

            if not self.file_language:
                detected_language = transcription_result.get('language')
                if not detected_language:
                    raise RuntimeError(
                        "mlx-whisper did not return a detected language."
                    )
                self.file_language = detected_language
                msg = (
                    f"Detected language '{detected_language}' "
                    f"with 🍎 MLX-Whisper"
                )
                print(f'[blue1]→ {msg}')
                logger.info(msg)

            transcription_result = self.to_mlx_chunks(transcription_result)

            if self.annotate:
                transcription_result = help.run_with_progress(
                    description=(
                        f"[purple]→ Annotating ({self.device.upper()}) "
                        f"[bold]{filepath.name}"
                    ),
                    task=partial(
                        mlx_annotation,
                        transcription_result
                    )
                )

            transcription_result = self.to_whisperx(transcription_result)
            transcription_result = self.adjust_word_chunk_length(
                transcription_result
            )

            result = {'transcriptions': {}}
            result['transcriptions'][self.file_language] = transcription_result

            if self.verbose:
                print(result['transcriptions'][self.file_language]['text'])

            translation_supported = models.WHISPER_MODELS.get(
                self.model_provided,
                {}
            ).get('translation', False)

            if self.translate and not translation_supported:
                print(
                    "[blue1]→ Translation is not available for the selected "
                    "MLX model. Skipping translation."
                )

            if (
                self.translate
                and translation_supported
                and self.file_language != 'en'
            ):
                translation_result = help.run_with_progress(
                    description=(
                        f"[dark_blue]→ Translating "
                        f"({self.device.upper()}) [bold]{filepath.name}"
                    ),
                    task=partial(
                        transcription_task,
                        task='translate',
                        language=self.file_language
                    )
                )
                translation_result = self.to_mlx_chunks(translation_result)

                if self.annotate:
                    translation_result = help.run_with_progress(
                        description=(
                            f"[purple]→ Annotating ({self.device.upper()}) "
                            f"[bold]{filepath.name}"
                        ),
                        task=partial(
                            mlx_annotation,
                            translation_result
                        )
                    )

                translation_result = self.to_whisperx(translation_result)
                translation_result = self.adjust_word_chunk_length(
                    translation_result
                )

                result['transcriptions']['en'] = translation_result

                if self.verbose:
                    print(result['transcriptions']['en']['text'])

            if self.annotate:
                result = self.create_text_with_speakers(result)

            return {'transcription': result}
        except Exception:
            logger.exception("Transcription failed with mlx-whisper")
            raise
        finally:
            logger.info(
                f"👨‍💻 Transcription ended in {time.time() - t_start:.2f} sec."
            )

    def transcribe_with_faster_whisper(
        self,
        filepath: Path,
        num_workers: int = 1
    ) -> dict:
        """
        Transcribes an audio file using the 'faster-whisper' implementation:
        https://github.com/SYSTRAN/faster-whisper

        This method utilizes the 'faster-whisper' implementation of OpenAI
        Whisper for automatic speech recognition. It loads the model and sets
        parameters for transcription. After transcription, it formats the
        result into segments with timestamps and combines them into a single
        text. If speaker detection is enabled, it also annotates speakers in
        the transcription result.

        Parameters:
        - filepath (Path): The path to the audio file for transcription.
        - num_workers (int): The number of workers to use for transcription.

        Returns:
        - dict: A dictionary containing the transcription result and, if
                speaker detection is enabled, the speaker diarization result.
                The transcription result includes the recognized text and
                segmented chunks with timestamps if available.
        """
        from faster_whisper import BatchedInferencePipeline, WhisperModel

        # Start and time transcription
        logger.info(
            f"👨‍💻 Transcription started with 🏃‍♀️‍➡️ faster-whisper "
            f"for {filepath.name}"
        )
        t_start = time.time()

        # Load model and set parameters
        model = BatchedInferencePipeline(
            model=WhisperModel(
                self.model,
                device='cpu' if self.device in ['mps', 'cpu'] else 'cuda',
                num_workers=num_workers,
                compute_type=(
                    'int8' if self.device in ['mps', 'cpu'] else 'float16'
                )
            )
        )

        # Define the transcription task
        def transcription_task():
            segments, _ = model.transcribe(
                str(filepath),
                beam_size=5,
                language=self.file_language,
                word_timestamps=True,
                batch_size=16
            )

            chunks = []
            for segment in segments:
                seg = {
                    'timestamp': (
                        float(f"{segment.start:.2f}"),
                        float(f"{segment.end:.2f}")
                    ),
                    'text': segment.text.strip(),
                    'words': [{
                        'word': i.word.strip(),
                        'start': float(f"{i.start:.2f}"),
                        'end': float(f"{i.end:.2f}"),
                        'score': float(f"{i.probability:.2f}")
                    } for i in segment.words]
                }
                chunks.append(seg)

                # If verbose Flag
                if self.verbose:
                    print(seg['text'])

            return chunks

        # Add progress bar and run the transcription task
        chunks = help.run_with_progress(
            description=(
                f"[cyan]→ Transcribing ({self.device.upper()}) "
                f"[bold]{filepath.name}"
            ),
            task=transcription_task
        )

        # Create result dict and append transcriptions to it
        result = {'transcriptions': {}}
        result['transcriptions'][self.file_language] = {
                'text': ' '.join(
                    [segment['text'].strip() for segment in chunks]
                    ),
                'chunks': chunks
                }

        # Translation
        if self.translate and self.file_language != 'en':
            # Define the translation task
            def translation_task():
                segments, _ = model.transcribe(
                    str(filepath),
                    beam_size=5,
                    task='translate',
                    language='en',
                    word_timestamps=True
                    )

                translation_chunks = []
                for segment in segments:
                    seg = {
                        'timestamp': (
                            float(f"{segment.start:.2f}"),
                            float(f"{segment.end:.2f}")
                        ),
                        'text': segment.text.strip(),
                        'words': [{
                            'word': i.word.strip(),
                            'start': float(f"{i.start:.2f}"),
                            'end': float(f"{i.end:.2f}"),
                            'score': float(f"{i.probability:.2f}")
                        } for i in segment.words]
                    }
                    translation_chunks.append(seg)

                    # If verbose Flag
                    if self.verbose:
                        print(seg['text'])

                return translation_chunks

            # Add progress bar and run the translation task
            translation_chunks = help.run_with_progress(
                description=(
                    f"[dark_blue]→ Translating ({self.device.upper()}) "
                    f"[bold]{filepath.name}"
                ),
                task=translation_task
            )

            # Add translation to result dict
            result['transcriptions']['en'] = {
                'text': ' '.join(
                    [segment['text'].strip() for segment in translation_chunks]
                    ),
                'chunks': translation_chunks
                }

        # Stop timing transcription
        logger.info(
            f"👨‍💻 Transcription completed in {time.time() - t_start:.2f} sec."
        )

        return {'transcription': result}

    def detect_language(self, filepath, audio_array) -> str:
        """
        Detects the language of the input file.
        """
        from faster_whisper import WhisperModel

        logger.info(f"Detecting language of file: {filepath.name}")

        def run_language_detection():
            device_for_detection = (
                'cpu' if self.device in ['mps', 'cpu', 'mlx'] else 'cuda'
            )
            lang_detection_model = WhisperModel(
                models.set_supported_model(
                    model=self.model_provided,
                    implementation='faster-whisper',
                    translation=self.translate
                    ),
                device=device_for_detection,
                compute_type=(
                    'int8'
                    if device_for_detection == 'cpu'
                    else 'float16'
                    )
                )
            lang, score, _ = lang_detection_model.detect_language(audio_array)
            return lang, score

        lang, score = help.run_with_progress(
            description=(
                f"[dark_goldenrod]→ Detecting language for "
                f"[bold]{filepath.name}"
            ),
            task=run_language_detection
        )

        self.file_language = lang

        msg = f"Detected language '{lang}' with probability {score:.2f}"
        print(f'[blue1]→ {msg}')
        logger.info(msg)

    def process_files(self, files: list[str | Path]) -> None:
        """
        Processes a list of audio files for transcription and/or diarization.

        This method logs the processing parameters, extracts filepaths from the
        input list, and initializes an empty list for storing results. Each
        file is processed based on the compute device specified ('mps',
        'cuda:0', or 'cpu'). Appropriate transcription method is chosen based
        on the device. Results, including file ids, paths, transcriptions, and
        diarizations, are stored in a dictionary and saved to a designated
        output directory. Each result is also appended to
        `self.processed_files`.

        Parameters:
        files (list of str): A list of file paths or file-like objects
        representing the audio files to be processed.
        """
        logger.info(f"Provided parameters for processing: {self.metadata}")

        # Check if dependencies for chosen device are installed
        deps_ok, deps_message = help.check_dependencies_for_device(
            device=self.device
        )
        if not deps_ok:
            raise RuntimeError(deps_message)

        # Get filepaths
        filepath_handler = FilePathProcessor(
            self.file_formats,
            download_lang=self.download_lang
        )
        [filepath_handler.get_filepaths(f) for f in files]
        self.filepaths = filepath_handler.filepaths

        # Process filepaths
        logger.info(f"Processing files: {self.filepaths}")

        self.processed_files = []
        for idx, filepath in enumerate(self.filepaths):

            # Create and set output_dir and output_filepath
            self.output_dir = help.set_output_dir(filepath, self.base_dir)
            output_filepath = self.output_dir / Path(filepath).stem

            # Convert file format
            filepath, audio_array = help.check_file_format(
                filepath=filepath,
                del_originals=self.del_originals
                )

            # Detect file language
            if not self.file_language and self.device != 'mlx':
                self.detect_language(filepath, audio_array)

            logger.info(f"Transcribing file: {filepath.name}")

            ### Transcription and speaker annotation
            # MLX
            if self.device == 'mlx':
                self.model = models.set_supported_model(
                    self.model_provided,
                    implementation='mlx-whisper',
                    translation=self.translate
                )
                print(
                    f'[blue1]→ Using {self.device.upper()} and 🍎 MLX-Whisper '
                    f'with model "{self.model}"'
                )
                result_data = self.transcribe_with_mlx_whisper(filepath)


            # CPU, GPU (CUDA)
            elif self.device in ['cpu', 'cuda:0']:
                if self.annotate or self.subtitle:
                    # WhisperX for annotation / subtitling
                    self.model = models.set_supported_model(
                        self.model_provided,
                        implementation='whisperx',
                        translation=self.translate
                    )
                    print(
                        f'[blue1]→ Using {self.device.upper()} and '
                        f'whisperX with model "{self.model}"'
                    )
                    result_data = self.transcribe_with_whisperx(filepath)
                else:
                    # Faster-Whisper for raw transcription
                    self.model = models.set_supported_model(
                        self.model_provided,
                        implementation='faster-whisper',
                        translation=self.translate
                    )
                    print(
                        f'[blue1]→ Using {self.device.upper()} and '
                        f'🏃‍♀️‍➡️ Faster-Whisper with model "{self.model}"'
                    )
                    result_data = self.transcribe_with_faster_whisper(filepath)

            # Check if transcription contains speech
            transcriptions = result_data['transcription']['transcriptions']
            has_speech = any(
                t.get('text', '').strip() for t in transcriptions.values()
            )
            if not has_speech:
                logger.info(
                    f"No speech detected in {filepath.name}. Skipping."
                )
                print(
                    f'[yellow]→ No speech detected in '
                    f'[bold]{filepath.name}[/bold]. Skipping.'
                )
                if not self.file_language_provided:
                    self.file_language = None
                continue

            result = {
                'id': f'file_00{idx + 1}',
                'created': datetime.now(tz=UTC).strftime('%Y-%m-%d %H:%M:%S'),
                'input_filepath': str(filepath.absolute()),
                'output_filepath': str(Path(output_filepath).absolute()),
                'written_files': None,
                'device': self.device,
                'model': self.model,
                'transcription': (
                    result_data['transcription']['transcriptions']
                    ),
            }

            # Save results
            result['written_files'] = output_utils.OutputWriter(
                corrections=self.corrections
                ).save_results(
                    result=result,
                    export_formats=self.export_formats
                    )

            self.processed_files.append(result)

            if not self.file_language_provided:
                self.file_language = None
