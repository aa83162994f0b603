from simple_clip.clip import CLIP, contrastive_loss, siglip_loss
