from .imaug import (datatransform, imspec_augmentor, seg_augmentor, reg_augmentor,
                    squeeze_channels, unsqueeze_channels)

__all__ = ['datatransform', 'squeeze_channels', 'unsqueeze_channels',
           'seg_augmentor', 'imspec_augmentor', 'reg_augmentor']
