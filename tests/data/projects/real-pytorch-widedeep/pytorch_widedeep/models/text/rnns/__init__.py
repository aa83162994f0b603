from pytorch_widedeep.models.text.rnns.basic_rnn import BasicRNN
from pytorch_widedeep.models.text.rnns.attentive_rnn import AttentiveRNN
from pytorch_widedeep.models.text.rnns.stacked_attentive_rnn import StackedAttentiveRNN
