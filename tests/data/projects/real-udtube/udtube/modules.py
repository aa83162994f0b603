"""UDTube modules.

In the documentation below, N is the batch size, C is the number of classes
for a classification head, and L is the maximum length (in subwords, tokens,
or tags) of a sentence in the batch.
"""

import lightning
import tokenizers
import torch
from torch import nn
import transformers

from . import data, defaults, encoders, parser


class Error(Exception):
    pass


class UDTubeEncoder(lightning.LightningModule):
    """Encoder portion of the model.

    Args:
        dropout: Dropout probability.
        encoder: Name of the Hugging Face model used to tokenize and encode.
        pooling_layers: Number of layers to use to compute the embedding.
    """

    dropout_layer: nn.Dropout
    encoder: transformers.AutoModel
    pooling_layers: int

    def __init__(
        self,
        dropout: float = defaults.DROPOUT,
        encoder: str = defaults.ENCODER,
        pooling_layers: int = defaults.POOLING_LAYERS,
    ):
        super().__init__()
        self.dropout_layer = nn.Dropout(dropout)
        # TODO: Any parameters referenced in the remappings in
        # encoders.SUPPORTED_ENCODERS need to be passed as kwargs here.
        self.encoder = encoders.load(encoder, dropout=dropout)
        self.pooling_layers = pooling_layers

    # Properties.

    @property
    def hidden_size(self) -> int:
        return self.encoder.config.hidden_size

    def forward(
        self,
        batch: data.Batch,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Computes the contextual word-level encoding.

        This discards over-long sequences (if necessary), computes the subword
        encodings, stacks and mean-pools the pooling layers, applies dropout,
        and then mean-pools the subwords that make up each word.

        Args:
            batch: a data batch.

        Returns:
            A contextual word-level encoding and a matching mask.
        """
        # We move these manually.
        output = self.encoder(
            batch.input_ids.to(self.device),
            batch.attention_mask.to(self.device),
            output_hidden_states=self.pooling_layers > 1,
        )
        if self.pooling_layers == 1:
            # Special case for just using the last layer's hidden states.
            x = output.last_hidden_state
        else:
            # Mean-pools the last n layers' hidden states.
            x = torch.stack(output.hidden_states[-self.pooling_layers :]).mean(
                dim=0
            )
        # Applies dropout.
        x = self.dropout_layer(x)
        # Maps from subword embeddings to word-level embeddings.
        return self._group_embeddings(x, batch.encodings)

    def _group_embeddings(
        self,
        embeddings: torch.Tensor,
        encodings: list[tokenizers.Encoding],
    ) -> torch.Tensor:
        """Groups subword embeddings to form word embeddings.

        This is necessary because each classifier head makes per-word
        decisions, but the contextual embeddings use subwords. Therefore,
        we average over the subwords for each word.

        Args:
            embeddings: the embeddings tensor to pool.
            encodings: the tokenizer encodings.

        Returns:
            The re-pooled word embeddings tensor and a matching word-level
                boolean mask.
        """
        new_sentence_embeddings = []
        lengths = []
        for sentence_encodings, sentence_embeddings in zip(
            encodings, embeddings
        ):
            indices = []
            num_words = 0
            i = 0
            while i < len(sentence_encodings.word_ids):
                word_id = sentence_encodings.word_ids[i]
                # Have hit padding.
                if word_id is None:
                    break
                pair = sentence_encodings.word_to_tokens(word_id)
                indices.append(pair)
                num_words += 1
                # Fast-forwards to the start of the next word.
                i = pair[-1]
            # For each span of subwords, combine via mean and then stack them.
            new_sentence_embeddings.append(
                torch.stack(
                    [
                        torch.mean(sentence_embeddings[start:end], dim=0)
                        for start, end in indices
                    ]
                )
            )
            lengths.append(num_words)
        # Pads and stacks across sentences; the leading dimension is ragged
        # but `pad` cowardly refuses to pad non-trailing dimensions, so we
        # abuse transposition.
        pad_max = max(
            len(sentence_embedding)
            for sentence_embedding in new_sentence_embeddings
        )
        encoding = torch.stack(
            [
                nn.functional.pad(
                    sentence_embedding.mT,
                    (0, pad_max - len(sentence_embedding)),
                    value=0,
                )
                for sentence_embedding in new_sentence_embeddings
            ]
        ).transpose(1, 2)
        # Makes word-level mask.
        mask = torch.zeros(
            len(encodings),
            pad_max,
            device=self.device,
            dtype=bool,
        )
        for i, length in enumerate(lengths):
            mask[i, :length] = True
        return encoding, mask


class UDTubeClassifier(lightning.LightningModule):
    """Classifier portion of the model.

    Args:
        hidden_size: size of the encoder hidden layer.
        upos_out_size: number of UPOS classes; usually set automatically.
        xpos_out_size: number of XPOS classes; usually set automatically.
        lemma_out_size: number of LEMMA classes; usually set automatically.
        feats_out_size: number of FEATS classes; usually set automatically.
        use_upos: enables the universal POS tagging task.
        use_xpos: enables the language-specific POS tagging task.
        use_lemma: enables the lemmatization task.
        use_feats: enables the morphological feature tagging task.
        use_parse: enables the dependenchy parsing task.
    """

    upos_head: nn.Linear | None
    xpos_head: nn.Linear | None
    lemma_head: nn.Linear | None
    feats_head: nn.Linear | None
    parse_head: parser.BiaffineParser | None

    def __init__(
        self,
        hidden_size: int,
        *,
        dropout: float = defaults.DROPOUT,
        arc_mlp_size: int = defaults.ARC_MLP_SIZE,
        deprel_mlp_size: int = defaults.DEPREL_MLP_SIZE,
        # `2` is a dummy value here; it will be set by the dataset object.
        upos_out_size: int = 2,
        xpos_out_size: int = 2,
        lemma_out_size: int = 2,
        feats_out_size: int = 2,
        deprel_out_size: int = 2,
        use_upos: bool = defaults.USE_UPOS,
        use_xpos: bool = defaults.USE_XPOS,
        use_lemma: bool = defaults.USE_LEMMA,
        use_feats: bool = defaults.USE_FEATS,
        use_parse: bool = defaults.USE_PARSE,
    ):
        super().__init__()
        if not any([use_upos, use_xpos, use_lemma, use_feats, use_parse]):
            raise Error("No classification heads enabled")
        self.upos_head = (
            nn.Linear(hidden_size, upos_out_size) if use_upos else None
        )
        self.xpos_head = (
            nn.Linear(hidden_size, xpos_out_size) if use_xpos else None
        )
        self.lemma_head = (
            nn.Linear(hidden_size, lemma_out_size) if use_lemma else None
        )
        self.feats_head = (
            nn.Linear(hidden_size, feats_out_size) if use_feats else None
        )
        self.parse_head = (
            parser.BiaffineParser(
                hidden_size,
                arc_mlp_size,
                deprel_mlp_size,
                deprel_out_size,
                dropout,
            )
            if use_parse
            else None
        )

    # Properties.

    @property
    def use_upos(self) -> bool:
        return self.upos_head is not None

    @property
    def use_xpos(self) -> bool:
        return self.xpos_head is not None

    @property
    def use_lemma(self) -> bool:
        return self.lemma_head is not None

    @property
    def use_feats(self) -> bool:
        return self.feats_head is not None

    @property
    def use_parse(self) -> bool:
        return self.parse_head is not None

    # Forward pass.

    def forward(
        self, encodings: torch.Tensor, mask: torch.Tensor
    ) -> data.Logits:
        """Computes logits for each of the classification heads.

        This takes the contextual word encodings and then computes the logits
        for each of the active classification heads. This yields logits of the
        shape N x L x C. Loss and accuracy functions expect N x C x L, so we
        transpose to produce this shape.

        Args:
            encodings: word-level encoding tensor.
            mask: word-level mask.

        Returns:
            Logit tensors for all the active tasks.
        """
        if self.use_upos:
            upos = self.upos_head(encodings).transpose(1, 2)
        if self.use_xpos:
            xpos = self.xpos_head(encodings).transpose(1, 2)
        if self.use_lemma:
            lemma = self.lemma_head(encodings).transpose(1, 2)
        if self.use_feats:
            feats = self.feats_head(encodings).transpose(1, 2)
        if self.use_parse:
            head, deprel = self.parse_head(encodings, mask)
        return data.Logits(
            upos=upos if self.use_upos else None,
            xpos=xpos if self.use_xpos else None,
            lemma=lemma if self.use_lemma else None,
            feats=feats if self.use_feats else None,
            head=head if self.use_parse else None,
            deprel=deprel if self.use_parse else None,
        )
