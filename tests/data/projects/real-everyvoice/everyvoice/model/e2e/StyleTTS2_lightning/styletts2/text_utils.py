# The repo we forked from said:
#   IPA Phonemizer: https://github.com/bootphon/phonemizer
# but I cannot find even a trace of evidence of a connection to bootphon/phonemizer.
#
# However, similar code exists in these MIT licensed projects:
# - https://github.com/keithito/tacotron (folder text/)
# - https://huggingface.co/spaces/kevinwang676/VITS2-Mandarin/tree/main (text/symbols.py)
# - https://github.com/ai-anchorite/Voice-Pro (app/third_party/Matcha-TTS/matcha/text/symbols.py explicitly credits keithito/tacotron)


_pad = "$"
_punctuation = ';:,.!?¡¿—…"«»“” '
_letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_letters_ipa = "ɑɐɒæɓʙβɔɕçɗɖðʤəɘɚɛɜɝɞɟʄɡɠɢʛɦɧħɥʜɨɪʝɭɬɫɮʟɱɯɰŋɳɲɴøɵɸθœɶʘɹɺɾɻʀʁɽʂʃʈʧʉʊʋⱱʌɣɤʍχʎʏʑʐʒʔʡʕʢǀǁǂǃˈˌːˑʼʴʰʱʲʷˠˤ˞↓↑→↗↘'̩'ᵻ"

# Export all symbols:
symbols = [_pad] + list(_punctuation) + list(_letters) + list(_letters_ipa)

dicts = {}
for i in range(len((symbols))):
    dicts[symbols[i]] = i


class TextCleaner:
    def __init__(self, dummy=None):
        self.word_index_dictionary = dicts

    def __call__(self, text):
        indexes = []
        for char in text:
            try:
                indexes.append(self.word_index_dictionary[char])
            except KeyError:
                print(text)
        return indexes
