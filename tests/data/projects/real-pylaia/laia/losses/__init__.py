from laia.losses.ctc_loss import CTCLoss
