from nystrom_attention.nystrom_attention import NystromAttention, Nystromformer
Nystromer = Nystromformer
