# from whisperplus.pipelines.autollm_chatbot import AutoLLMChatWithVideo
# from whisperplus.pipelines.long_text_summarization import LongTextSummarizationPipeline
# from whisperplus.pipelines.summarization import TextSummarizationPipeline
# from whisperplus.pipelines.text2speech import TextToSpeechPipeline
from whisperplus.pipelines.whisper import SpeechToTextPipeline
# from whisperplus.pipelines.whisper_autocaption import WhisperAutoCaptionPipeline
# from whisperplus.pipelines.whisper_diarize import ASRDiarizationPipeline
from whisperplus.utils.download_utils import download_youtube_to_mp3, download_youtube_to_mp4
from whisperplus.utils.text_utils import format_speech_to_dialogue

__version__ = '0.3.4'
__author__ = 'kadirnar'
__license__ = 'Apache License 2.0'
