
from torchac.torchac import encode_float_cdf
from torchac.torchac import decode_float_cdf
from torchac.torchac import encode_int16_normalized_cdf
from torchac.torchac import decode_int16_normalized_cdf
