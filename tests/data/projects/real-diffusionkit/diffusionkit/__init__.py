import os

os.environ["TOKENIZERS_PARALLELISM"] = "false"
