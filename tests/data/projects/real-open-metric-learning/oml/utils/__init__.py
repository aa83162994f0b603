from oml.utils.download_mock_dataset import (
    get_mock_audios_dataset,
    get_mock_images_dataset,
    get_mock_texts_dataset,
)
