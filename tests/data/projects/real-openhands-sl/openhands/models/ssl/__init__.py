from .dpc_rnn import DPC_RNN_Pretrainer, DPC_RNN_Finetuner

__all__ = ["DPC_RNN_Pretrainer", "DPC_RNN_Finetuner"]
