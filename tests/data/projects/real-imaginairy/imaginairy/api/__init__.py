from .generate import imagine_image_files, imagine  # noqa
