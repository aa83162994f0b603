"""
This includes: LossComputeBase and the standard NMTLossCompute, and
               sharded loss compute stuff.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
import eole
from eole.modules.sparse_losses import SparsemaxLoss
from eole.modules.sparse_activations import LogSparsemax
from eole.constants import DefaultTokens
from eole.models.model import DecoderModel
from eole.utils.misc import get_device
from eole.utils.attention_entropy import compute_batch_attention_entropy

try:
    import ctranslate2
except ImportError:
    pass  # this is tested when importing for loading a LM


class LossCompute(nn.Module):
    """
    Class for managing efficient loss computation. Handles
    accumulating multiple loss computations.

    Args:
        criterion (:obj:`nn. loss function`) : NLLoss or customed loss
        generator (:obj:`nn.Module`) :
        lambda_coverage: Hyper-param to apply coverage attention if any
        lambda_align: Hyper-param for alignment loss
        tgt_shift_index (int): 1 for NMT, 0 for LM
        vocabs: full vocabs with specials
             module that maps the output of the decoder to a
             distribution over the target vocabulary.
        lm_generator (:obj:`ctranslate2.Generator`): LM Generator
        lm_prior_lambda (float): weight of LM model in loss
        lm_prior_tau (float): scaler for LM loss
    """

    def __init__(
        self,
        criterion,
        generator,
        lambda_coverage=0.0,
        lambda_align=0.0,
        tgt_shift_index=1,
        vocabs=None,
        lm_generator=None,
        lm_prior_lambda=None,
        lm_prior_tau=None,
        lm_prior_model=None,
        mtp_lambda=0.0,
    ):
        super(LossCompute, self).__init__()
        self.criterion = criterion
        self.generator = generator
        self.lambda_coverage = lambda_coverage
        self.lambda_align = lambda_align
        self.tgt_shift_index = tgt_shift_index
        self.vocabs = vocabs
        self.lm_generator = lm_generator
        self.lm_prior_lambda = lm_prior_lambda
        self.lm_prior_tau = lm_prior_tau
        self.lm_prior_model = lm_prior_model
        self.mtp_lambda = mtp_lambda
        self.estimloss = nn.MSELoss(reduction="sum")

        self.pad_token = self.vocabs["specials"].get("pad_token", DefaultTokens.PAD)
        self.unk_token = self.vocabs["specials"].get("unk_token", DefaultTokens.UNK)
        self.eos_token = self.vocabs["specials"].get("eos_token", DefaultTokens.EOS)

    @classmethod
    def from_config(cls, config, model, vocabs, train=True):
        """
        Returns a subclass which wraps around an nn.Module subclass
        (such as nn.NLLLoss) which defines the loss criterion. The LossCompute
        object passes relevant data to a Statistics object which handles
        training/validation logging.
        The Criterion and LossCompute options are triggered by opt settings.
        """

        device = torch.device(get_device() if eole.utils.misc.use_gpu(config.training) else "cpu")
        pad_token = vocabs["specials"].get("pad_token", DefaultTokens.PAD)
        padding_idx = vocabs["tgt"][pad_token]

        if config.model.decoder is not None:
            lambda_align = getattr(
                config.model.decoder, "lambda_align", 0.0
            )  # patch to support non transformer configs
            if config.model.decoder.lambda_coverage != 0:
                lambda_coverage = config.model.decoder.lambda_coverage
                assert config.model.decoder.coverage_attn, (
                    "--coverage_attn needs to be set in " "order to use --lambda_coverage != 0"
                )
            else:
                lambda_coverage = 0
        else:
            lambda_coverage = 0
            lambda_align = 0.0

        tgt_shift_idx = model.tgt_shift

        if config.model.generator_function == "sparsemax":
            criterion = SparsemaxLoss(ignore_index=padding_idx, reduction="sum")
        else:
            criterion = nn.CrossEntropyLoss(
                ignore_index=padding_idx,
                reduction="sum",
                label_smoothing=config.training.label_smoothing,
            )

        lm_prior_lambda = config.training.lm_prior_lambda
        lm_prior_tau = config.training.lm_prior_tau
        if config.training.lm_prior_model:
            if config.training.lm_prior_model[-3:] == ".pt":
                _, lm_prior_model, lm_model_config = DecoderModel.for_inference(
                    config, model_path=config.training.lm_prior_model
                )  # lm_model_config does not seem used
                # lm_prior_model.to(torch.device("cuda", config.training.gpu))
                lm_prior_model.eval()
                lm_generator = None
            else:
                lm_prior_model = None
                try:
                    import ctranslate2

                    lm_generator = ctranslate2.Generator(
                        config.training.lm_prior_model,
                        device="cuda",
                        compute_type="float16",
                    )
                except ImportError:
                    raise ImportError("Could not import ctranslate2")
        else:
            lm_generator = None
            lm_prior_model = None

        compute = cls(
            criterion,
            model.generator,
            lambda_coverage=lambda_coverage,
            lambda_align=lambda_align,
            tgt_shift_index=tgt_shift_idx,
            vocabs=vocabs,
            lm_generator=lm_generator,
            lm_prior_lambda=lm_prior_lambda,
            lm_prior_tau=lm_prior_tau,
            lm_prior_model=lm_prior_model,
            mtp_lambda=getattr(config.model.decoder, "mtp_lambda", 0.0) if config.model.decoder is not None else 0.0,
        )

        # Store attention entropy configuration
        compute.log_attention_entropy = getattr(config.training, "log_attention_entropy", False)
        compute.attention_entropy_types = getattr(config.training, "attention_entropy_types", None)
        compute.attention_entropy_layers = getattr(config.training, "attention_entropy_layers", None)
        compute.attention_entropy_aggregation = getattr(config.training, "attention_entropy_aggregation", "mean")

        compute.to(device)  # this sometimes make embeddings move to the wrong device (cpu), not sure why

        return compute

    @property
    def padding_idx(self):
        return self.criterion.ignore_index

    def _compute_coverage_loss(self, std_attn, cov_attn, tgt):
        """compute coverage loss"""
        zero_attn = torch.zeros(cov_attn.size()[1:], device=cov_attn.device)
        cov_attn = torch.cat((zero_attn.unsqueeze(0), cov_attn[:-1]), 0)
        covloss = torch.min(std_attn, cov_attn).sum(dim=-1).view(-1)

        covloss[tgt == self.padding_idx] = 0
        return covloss.sum()

    def _compute_alignement_loss(self, align_head, ref_align):
        """Compute loss between 2 partial alignment matrix."""
        # align_head contains value in [0, 1) presenting attn prob,
        # 0 was resulted by the context attention src_pad_mask
        # So, the correspand position in ref_align should also be 0
        # Therefore, clip align_head to > 1e-18 should be bias free.
        align_loss = -align_head.clamp(min=1e-18).log().mul(ref_align).sum()
        align_loss *= self.lambda_align
        return align_loss

    def _compute_lm_loss_ct2(self, output, target):
        """
        Compute the loss between MT output and LM output
        https://github.com/cbaziotis/lm-prior-for-nmt/blob/master
        /fairseq_extension/user/lm_prior/lm_prior.py#L131-L133
        """

        # rescale with tau (temperature) and apply the log_softmax.
        scores = self.generator(self._bottle(output)) / self.lm_prior_tau
        scores = F.log_softmax(scores.to(torch.float32), dim=-1)

        src = target.detach().clone()
        src[src == self.vocabs["tgt"][self.eos_token]] = self.padding_idx
        src = src[:, :-1, :]
        src_len = src[:, :, 0].ne(self.padding_idx).sum(1)
        # ct2 expects src with lengths without padding
        lm_scores = self.lm_generator.forward_batch(
            ctranslate2.StorageView.from_array(src[:, :, 0].to(torch.int32)),
            ctranslate2.StorageView.from_array(src_len.to(torch.int32)),
            return_log_probs=False,
        )
        lm_scores = torch.as_tensor(lm_scores, device=scores.device)
        # again we use raw probs to rescale with tau and apply log_softmax
        lm_scores = self._bottle(lm_scores) / self.lm_prior_tau
        lm_scores = F.log_softmax(lm_scores.to(torch.float32), dim=-1)
        lm_scores[:, self.vocabs["tgt"]["unk_token"]] = -50
        lm_scores[:, self.vocabs["tgt"]["eos_token"]] -= 20
        # lm_scores are in log space so log_target=True
        lm_loss = F.kl_div(scores, lm_scores, reduction="none", log_target=True).sum(-1)
        non_padding = self._bottle(output).ne(self.padding_idx)[:, 0]
        lm_loss = lm_loss.masked_select(non_padding).sum()
        lm_loss = lm_loss * (self.lm_prior_tau**2)
        return lm_loss

    def _compute_lm_loss(self, output, target):
        """
        Compute the loss between MT output and LM output
        https://github.com/cbaziotis/lm-prior-for-nmt/blob/master
        /fairseq_extension/user/lm_prior/lm_prior.py#L131-L133
        """
        # rescale with tau (temperature) and apply the log_softmax.
        scores = self.generator(self._bottle(output)) / self.lm_prior_tau
        scores = F.log_softmax(scores.to(torch.float32), dim=-1)

        src = target.detach().clone()
        src[src == self.vocabs["tgt"]["eos_token"]] = self.padding_idx
        src = src[:, :-1, :]
        src_len = src[:, :, 0].ne(self.padding_idx).sum(1)
        # ct2 expects src with lengths without padding
        lm_outs, _ = self.lm_prior_model(src, None, src_len, with_align=False)
        lm_scores = self.lm_prior_model.generator(self._bottle(lm_outs)).detach().clone() / self.lm_prior_tau
        # again we use raw probs to rescale with tau and apply log_softmax
        lm_scores = F.log_softmax(lm_scores.to(torch.float32), dim=-1)
        lm_scores[:, self.vocabs["tgt"]["unk_token"]] = -50
        lm_scores[:, self.vocabs["tgt"]["eos_token"]] -= 20
        # lm_scores are in log space so log_target=True
        lm_loss = F.kl_div(scores, lm_scores, reduction="none", log_target=True).sum(-1)
        non_padding = self._bottle(output).ne(self.padding_idx)[:, 0]
        lm_loss = lm_loss.masked_select(non_padding).sum()
        lm_loss = lm_loss * (self.lm_prior_tau**2)
        return lm_loss

    def _bottle(self, _v):
        return _v.view(-1, _v.size(2))

    def _unbottle(self, _v, batch_size):
        return _v.view(-1, batch_size, _v.size(1))

    def ignore_prompt(self, batch):
        """
        Mask the prompt on the target side so prompt loss is zero.

        For finetuning on specific tasks, the end of the prompt must be
        indicated by ``DefaultTokens.MASK_BEFORE`` placeholder.

        Masks are expected to be handled by the loss criterion
        (e.g. ``nn.CrossEntropyLoss``).

        Args:
            batch: Current batch.
        """
        # Create a mask with zeros at prompt positions and ones at answer postions.
        mask = batch["src"].squeeze(dim=-1) == self.padding_idx
        mask = torch.cumsum(mask.int(), 1)
        # Apply the mask on the target side.
        batch["tgt"] *= mask.int()
        # Put the padding token index at the prompt positions.
        batch["tgt"] += self.padding_idx * (1 - mask.int())
        return batch

    def _compute_ce_loss(self, output, flat_tgt):
        """Compute cross-entropy (or sparsemax) loss and return (loss, scores).

        Args:
            output: decoder output ``(batch, tgt_len, hidden)``
            flat_tgt: flattened target indices ``(batch * tgt_len,)``

        Returns:
            Tuple of (loss tensor, scores tensor or None).
        """
        if self.generator is not None:
            scores = self.generator(self._bottle(output))
            if isinstance(self.criterion, SparsemaxLoss):
                scores = LogSparsemax(scores.to(torch.float32), dim=-1)
            loss = self.criterion(scores.to(torch.float32), flat_tgt)
        else:
            loss = torch.tensor([0.0], device=output.device)
            scores = None
        return loss, scores

    def _compute_align_loss(self, batch, attns, loss):
        """Compute alignment loss if lambda_align is set.

        Args:
            batch: current batch dict
            attns: attention weights dict
            loss: current accumulated loss tensor

        Returns:
            Updated loss tensor with alignment loss added.
        """
        if self.lambda_align == 0.0:
            return loss
        align_head = attns["align"]
        if align_head.dtype != loss.dtype:  # Fix FP16
            align_head = align_head.to(loss.dtype)
        align_idx = batch["align"]
        batch_size, pad_tgt_size = batch["tgt"].size()
        _, pad_src_size = batch["src"].size()
        align_matrix_size = [batch_size, pad_tgt_size, pad_src_size]
        ref_align = eole.utils.make_batch_align_matrix(align_idx, align_matrix_size, normalize=True)
        ref_align = ref_align[:, self.tgt_shift_index :, :]
        if ref_align.dtype != loss.dtype:
            ref_align = ref_align.to(loss.dtype)
        align_loss = self._compute_alignement_loss(align_head=align_head, ref_align=ref_align)
        return loss + align_loss

    def _compute_lm_prior_loss(self, output, batch, loss):
        """Compute LM prior loss (ct2 or native model) if configured.

        Args:
            output: decoder output
            batch: current batch dict
            loss: current accumulated loss tensor

        Returns:
            Updated loss tensor with LM prior loss added.
        """
        if self.lm_generator is not None:
            lm_loss = self._compute_lm_loss_ct2(output, batch["tgt"])
            loss = loss + lm_loss * self.lm_prior_lambda
        if self.lm_prior_model is not None:
            lm_loss = self._compute_lm_loss(output, batch["tgt"])
            loss = loss + lm_loss * self.lm_prior_lambda
        return loss

    def _compute_estim_loss(self, estim, batch, device):
        """Compute estimator (quality estimation) loss.

        Args:
            estim: estimator output scalar per sample, or None
            batch: current batch dict (must contain 'sco' if estim is not None)
            device: device for the zero tensor fallback

        Returns:
            Estimator loss tensor.
        """
        if estim is not None:
            batch["sco"] = batch["sco"].to(estim.dtype)
            return self.estimloss(estim, batch["sco"]).to(estim.dtype)
        return torch.tensor([0.0], device=device)

    def _compute_attention_entropy(self, attns):
        """Compute attention entropy for logging if enabled.

        Args:
            attns: attention weights dict

        Returns:
            Float attention entropy value (0.0 if disabled or on error).
        """
        attention_available = (
            attns is not None and isinstance(attns, dict) and any(attn is not None for attn in attns.values())
        )
        if not (hasattr(self, "log_attention_entropy") and self.log_attention_entropy and attention_available):
            return 0.0
        try:
            return compute_batch_attention_entropy(
                attns,
                attention_types=getattr(self, "attention_entropy_types", None),
                layer_indices=getattr(self, "attention_entropy_layers", None),
                aggregation_method=getattr(self, "attention_entropy_aggregation", "mean"),
            )
        except Exception:
            return 0.0

    def _compute_mtp_loss(self, mtp_outputs, batch, flat_tgt_shift):
        """Compute MTP auxiliary loss for all heads.

        For MTP head ``k`` (1-indexed), the target is
        ``tgt[:, tgt_shift_index + k :]``, i.e. the main target shifted by
        ``k`` additional positions.

        Positions where the *input* hidden state was computed from a padding
        token are masked out (set to ``ignore_index``) to avoid spurious
        training signal from left-padded batches.

        Args:
            mtp_outputs (list[Tensor]): List of MTP head outputs
                ``(batch, seq_len_k, hidden)`` for k=1..N.
            batch (dict): Current batch.
            flat_tgt_shift (int): The main ``tgt_shift_index`` already applied
                to the main CE target (0 for LM, 1 for NMT).

        Returns:
            tuple[Tensor, float, int]: ``(weighted_loss, raw_loss, n_mtp_tokens)``
            where *weighted_loss* is the gradient-carrying tensor to add to the
            total loss, *raw_loss* is the unweighted sum of per-head CE losses
            (as a Python float, independent of ``mtp_lambda`` so that changing
            the weight does not affect the reported xent), and *n_mtp_tokens*
            is the total number of non-padding target positions summed across
            heads, used to normalize *raw_loss* into a per-token metric.
        """
        pad_idx = self.criterion.ignore_index
        mtp_loss = torch.tensor(0.0, device=mtp_outputs[0].device, dtype=mtp_outputs[0].dtype)
        raw_loss_t = torch.tensor(0.0, device=mtp_outputs[0].device)  # unweighted sum across heads
        n_mtp_tokens_t = torch.tensor(0, device=mtp_outputs[0].device)  # valid tgt positions across heads
        num_heads = 0  # heads actually contributing to the loss (some may be skipped below)
        tgt = batch["tgt"]  # (batch, full_tgt_len)
        for k, mtp_out in enumerate(mtp_outputs, start=1):
            # Target for head k: positions [tgt_shift_index + k : ]
            extra_shift = flat_tgt_shift + k
            if extra_shift >= tgt.size(1):
                break
            # mtp_out may be shorter than tgt (seq_len can differ near end)
            seq_len_k = mtp_out.size(1)
            seq_tgt = tgt[:, extra_shift : extra_shift + seq_len_k]  # (B, seq_len_k)
            # Mask positions where the *input* hidden state was from a padding token.
            # For decoder-only LMs batch["tgt"] is the input sequence, so positions
            # [0 : seq_len_k] of tgt are the source tokens that produced h_detached.
            src_pad = tgt[:, :seq_len_k].eq(pad_idx)  # (B, seq_len_k)
            seq_tgt = seq_tgt.masked_fill(src_pad, pad_idx)
            flat_tgt_k = seq_tgt.contiguous().view(-1)
            head_loss, _ = self._compute_ce_loss(mtp_out, flat_tgt_k)
            mtp_loss = mtp_loss + head_loss
            # Accumulate as detached tensors to avoid a host/device sync
            # (.item()) on every head; convert to Python scalars once after
            # the loop so multiple heads do not serialize GPU work.
            raw_loss_t = raw_loss_t + head_loss.detach()
            n_mtp_tokens_t = n_mtp_tokens_t + flat_tgt_k.ne(pad_idx).sum()
            num_heads += 1
        raw_loss = raw_loss_t.item()
        n_mtp_tokens = n_mtp_tokens_t.item()
        if num_heads > 0:
            mtp_loss = mtp_loss * (self.mtp_lambda / num_heads)
        return mtp_loss, raw_loss, n_mtp_tokens

    def forward(self, batch, output, attns, estim=None, mtp_outputs=None):
        """Compute the forward loss, composed of CE + auxiliary losses.

        Args:
          batch (batch) : batch of labeled examples
          output (:obj:`FloatTensor`) :
              output of decoder model ``(batch, tgt_len, hidden)``
          attns (dict) : dictionary of attention weights
              ``(batch, tgt_len, src_len)``
          estim: optional estimator output (scalar per sample)
          mtp_outputs (list[Tensor], optional): list of MTP head outputs
              from :class:`~eole.models.model.DecoderModel`.

        Returns:
            A tuple (loss, stats, estimloss) with the total loss,
            a :obj:`eole.utils.Statistics` instance, and the estimator loss.
        """
        # take into account here the tgt_shift_index (0 / 1 = LM/NMT)
        flat_tgt = batch["tgt"][:, self.tgt_shift_index :].contiguous().view(-1)

        # Core cross-entropy loss
        loss, scores = self._compute_ce_loss(output, flat_tgt)

        # Auxiliary losses
        loss = self._compute_align_loss(batch, attns, loss)

        if self.lambda_coverage != 0.0:
            coverage_loss = self._compute_coverage_loss(attns["std"], attns["coverage"], flat_tgt)
            loss += coverage_loss

        loss = self._compute_lm_prior_loss(output, batch, loss)

        # MTP auxiliary loss
        mtp_loss_val = 0.0
        mtp_ntokens_val = 0
        if mtp_outputs is not None and len(mtp_outputs) > 0 and self.mtp_lambda > 0.0:
            mtp_loss_tensor, mtp_loss_val, mtp_ntokens_val = self._compute_mtp_loss(
                mtp_outputs, batch, self.tgt_shift_index
            )
            loss = loss + mtp_loss_tensor

        # Estimator loss (separate from main loss, weighted externally)
        estimloss = self._compute_estim_loss(estim, batch, loss.device)

        # Attention entropy for logging
        attention_entropy = self._compute_attention_entropy(attns)

        n_sents = len(batch["srclen"])
        stats = self._stats(
            n_sents,
            loss.sum().item(),
            estimloss.item(),
            scores,
            flat_tgt,
            batch["cid"],
            batch["cid_line_number"],
            attention_entropy,
            mtp_loss=mtp_loss_val,
            mtp_ntokens=mtp_ntokens_val,
        )

        return loss, stats, estimloss

    def _stats(
        self,
        bsz,
        loss,
        auxloss,
        scores,
        target,
        cids,
        cids_idx,
        attention_entropy=0.0,
        mtp_loss=0.0,
        mtp_ntokens=0,
    ):
        """
        Args:
            loss (int): the loss computed by the loss criterion.
            scores (:obj:`FloatTensor`): a score for each possible output
            target (:obj:`FloatTensor`): true targets
            attention_entropy (float): computed attention entropy for this batch
            mtp_loss (float): MTP auxiliary loss value for this batch
            mtp_ntokens (int): number of valid (non-padding) MTP target
                positions summed across heads for this batch, used to
                normalize ``mtp_loss`` into a per-token metric

        Returns:
            :obj:`eole.utils.Statistics` : statistics for this batch.
        """
        non_padding = target.ne(self.padding_idx)
        num_non_padding = non_padding.sum().item()
        if scores is not None:
            pred = scores.max(1)[1]
            num_correct = pred.eq(target).masked_select(non_padding).sum().item()
        else:
            num_correct = 0
        n_batchs = 1 if bsz else 0
        # in the case criterion reduction is None then we need
        # to sum the loss of each sentence in the batch
        data = {}
        for cid, idx in zip(cids, cids_idx):
            if cid not in data.keys():
                data[cid] = {"count": 1, "index": idx}
            else:
                data[cid]["count"] += 1
                data[cid]["index"] = min(idx, data[cid]["index"])
        return eole.utils.Statistics(
            loss=loss,
            auxloss=auxloss,
            n_batchs=n_batchs,
            n_sents=bsz,
            n_tokens=num_non_padding,
            n_correct=num_correct,
            data_stats=data,
            attention_entropy=attention_entropy * bsz,  # Scale by batch size
            n_attention_samples=bsz,
            mtp_loss=mtp_loss,
            mtp_ntokens=mtp_ntokens,
        )
