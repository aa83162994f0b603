"""Data modules."""

import logging
import os

from collections.abc import Iterable

import lightning
import transformers
from torch.utils import data

from .. import defaults
from . import collators, conllu, datasets, indexes, mappers


class Error(Exception):
    pass


class DataModule(lightning.LightningDataModule):
    """CoNLL-U data module.

    This class is initialized by the LightningCLI interface. It manages all
    data loading steps for UDTube. Training and validation are loaded into
    fully into memory; prediction data is loaded incrementally to avoid memory
    errors with large datasets.

    Args:
        model_dir: Path for checkpoints, indexes, and logs.
        predict: Path to a CoNLL-U file for prediction.
        test: Path to a CoNLL-U file for testing.
        train: Path to a CoNLL-U file for training.
        val: Path to a CoNLL-U file for validation.
        encoder: Full name of a Hugging Face encoder.
        reverse_edits: Enables reverse (suffixal) edit scripts.
        use_upos: Enables the universal POS tagging task.
        use_xpos: Enables the language-specific POS tagging task.
        use_lemma: Enables the lemmatization task.
        use_feats: Enables the morphological feature tagging task.
        use_parse: Enables the dependency parser task.
        batch_size: Batch size.
    """

    predict: str | None
    test: str | None
    train: str | None
    val: str | None
    reverse_edits: bool
    use_upos: bool
    use_xpos: bool
    use_lemma: bool
    use_feats: bool
    use_parse: bool
    batch_size: int
    index: indexes.Index
    tokenizer: transformers.AutoTokenizer

    def __init__(
        self,
        # Paths.
        *,
        model_dir: str,
        test=None,
        train=None,
        predict=None,
        val=None,
        # Modeling options.
        encoder: str = defaults.ENCODER,
        reverse_edits: bool = defaults.REVERSE_EDITS,
        use_upos: bool = defaults.USE_UPOS,
        use_xpos: bool = defaults.USE_XPOS,
        use_lemma: bool = defaults.USE_LEMMA,
        use_feats: bool = defaults.USE_FEATS,
        use_parse: bool = defaults.USE_PARSE,
        # Other.
        batch_size: int = defaults.BATCH_SIZE,
    ):
        super().__init__()
        self.train = train
        self.val = val
        self.predict = predict
        self.test = test
        self.reverse_edits = reverse_edits
        self.use_upos = use_upos
        self.use_xpos = use_xpos
        self.use_lemma = use_lemma
        self.use_feats = use_feats
        self.use_parse = use_parse
        self.batch_size = batch_size
        # If the training data is specified, it is used to create (or recreate)
        # the index; if not specified it is read from the model directory.
        self.index = (
            self._make_index(model_dir)
            if self.train
            else indexes.Index.read(model_dir)
        )
        self.log_vocabularies()
        self.collator = collators.Collator(
            transformers.AutoTokenizer.from_pretrained(
                encoder,
                # These options are not available on all tokenizers but seem
                # to be ignored so they can be passed in safely.
                clean_up_tokenization_spaces=False,
                add_prefix_space=True,
            )
        )

    def _make_index(self, model_dir: str) -> indexes.Index:
        # This is technically fixed to the universal tagset but we don't
        # enforce that here.
        upos_vocabulary = set() if self.use_upos else None
        xpos_vocabulary = set() if self.use_xpos else None
        lemma_vocabulary = set() if self.use_lemma else None
        feats_vocabulary = set() if self.use_feats else None
        lemma_mapper = mappers.LemmaMapper(self.reverse_edits)
        deprel_vocabulary = set() if self.use_parse else None
        for tokenlist in conllu.parse_from_path(self.train):
            if self.use_upos:
                upos_vocabulary.update(token.upos for token in tokenlist)
            if self.use_xpos:
                xpos_vocabulary.update(token.xpos for token in tokenlist)
            if self.use_lemma:
                for token in tokenlist:
                    lemma_vocabulary.add(
                        lemma_mapper.tag(token.form, token.lemma)
                    )
            if self.use_feats:
                feats_vocabulary.update(token.feats for token in tokenlist)
            if self.use_parse:
                deprel_vocabulary.update(token.deprel for token in tokenlist)
        index = indexes.Index(
            reverse_edits=self.reverse_edits,
            upos=(
                indexes.Vocabulary(upos_vocabulary) if self.use_upos else None
            ),
            xpos=(
                indexes.Vocabulary(xpos_vocabulary) if self.use_xpos else None
            ),
            lemma=(
                indexes.Vocabulary(lemma_vocabulary)
                if self.use_lemma
                else None
            ),
            feats=(
                indexes.Vocabulary(feats_vocabulary)
                if self.use_feats
                else None
            ),
            deprel=(
                indexes.Vocabulary(deprel_vocabulary)
                if self.use_parse
                else None
            ),
        )
        # Writes it to the model directory.
        os.makedirs(model_dir, exist_ok=True)
        index.write(model_dir)
        return index

    # Logging.

    @staticmethod
    def pprint(vocabulary: Iterable) -> str:
        """Prints the vocabulary."""
        return ", ".join(f"{symbol!r}" for symbol in vocabulary)

    def log_vocabularies(self) -> None:
        """Logs this module's vocabularies."""
        if self.use_upos:
            logging.info(
                "UPOS vocabulary (%d): %s",
                self.upos_tagset_size,
                self.pprint(self.index.upos),
            )
        if self.use_xpos:
            logging.info(
                "XPOS vocabulary (%d): %s",
                self.xpos_tagset_size,
                self.pprint(self.index.xpos),
            )
        if self.use_lemma:
            logging.info(
                "Lemma vocabulary (%d): [omitted; not human-readable]",
                self.lemma_tagset_size,
            )
        if self.use_feats:
            logging.info(
                "Features vocabulary (%d): %s",
                self.feats_tagset_size,
                self.pprint(self.index.feats),
            )
        if self.use_parse:
            logging.info(
                "Dependency relation vocabulary (%d): %s",
                self.deprel_tagset_size,
                self.pprint(self.index.deprel),
            )

    # Properties.

    @property
    def upos_tagset_size(self) -> int:
        return len(self.index.upos) if self.use_upos else 0

    @property
    def xpos_tagset_size(self) -> int:
        return len(self.index.xpos) if self.use_xpos else 0

    @property
    def lemma_tagset_size(self) -> int:
        return len(self.index.lemma) if self.use_lemma else 0

    @property
    def feats_tagset_size(self) -> int:
        return len(self.index.feats) if self.use_feats else 0

    @property
    def deprel_tagset_size(self) -> int:
        return len(self.index.deprel) if self.use_parse else 0

    # Required API.

    # The training set uses the mappable dataset because of shuffling, and
    # the validation set uses it because it is accesssed repeatedly under
    # normal conditions. The prediction set uses an iterable, text-only
    # dataset, whereas the test set uses a more general iterable dataset.

    def train_dataloader(self) -> data.DataLoader:
        assert self.train is not None, "no train path"
        return data.DataLoader(
            datasets.MappableDataset(
                self.train,
                mappers.Mapper(self.index),
                self.use_upos,
                self.use_xpos,
                self.use_lemma,
                self.use_feats,
                self.use_parse,
            ),
            collate_fn=self.collator,
            batch_size=self.batch_size,
            shuffle=True,
            num_workers=1,
            persistent_workers=True,
        )

    def val_dataloader(self) -> data.DataLoader:
        # This allows for training without a validation pass.
        if self.val is None:
            return data.DataLoader([])
        return data.DataLoader(
            datasets.MappableDataset(
                self.val,
                mappers.Mapper(self.index),
                self.use_upos,
                self.use_xpos,
                self.use_lemma,
                self.use_feats,
                self.use_parse,
                sequential=True,
            ),
            collate_fn=self.collator,
            batch_size=self.batch_size,
            shuffle=False,
            num_workers=1,
            persistent_workers=True,
        )

    def predict_dataloader(self) -> data.DataLoader:
        assert self.predict is not None, "no predict path"
        return data.DataLoader(
            datasets.IterableTextDataset(self.predict),
            collate_fn=self.collator,
            batch_size=self.batch_size,
            shuffle=False,
            num_workers=1,
            persistent_workers=True,
        )

    def test_dataloader(self) -> data.DataLoader:
        assert self.test is not None, "no test path"
        return data.DataLoader(
            datasets.IterableTaggedDataset(
                self.test,
                mappers.Mapper(self.index),
                self.use_upos,
                self.use_xpos,
                self.use_lemma,
                self.use_feats,
                self.use_parse,
            ),
            collate_fn=self.collator,
            batch_size=self.batch_size,
            shuffle=False,
            num_workers=1,
            persistent_workers=True,
        )
