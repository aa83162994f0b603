import torch
from torch.nn.functional import log_softmax
from torch.nn.utils.rnn import pad_sequence
from itertools import count, zip_longest
from copy import deepcopy
from time import time
from math import exp
import codecs

from eole.transforms import TransformPipe, AVAILABLE_TRANSFORMS
from eole.constants import DefaultTokens
from eole.predict.prediction import PredictionBuilder
from eole.utils.misc import set_random_seed, report_matrix, sequence_mask, get_device
from eole.utils.alignment import build_align_pharaoh


class Inference(object):
    """Predict a batch of sentences with a saved model.

    Args:
        model (eole.modules.BaseModel): Model to use for prediction
        vocabs (dict[str, Vocab]): A dict
            mapping each side's Vocab.
        config
        model_config
        device_id
        global_scorer (eole.predict.GNMTGlobalScorer): Prediction
            scoring/reranking object.
        report_score (bool) : Whether to report scores
        logger (logging.Logger or NoneType): Logger.
    """

    def _prepare_inference_projections(self, config):
        if hasattr(self.model, "decoder") and self.model.decoder is not None:
            if hasattr(self.model.decoder, "transformer_layers"):
                for layer in self.model.decoder.transformer_layers:
                    self_attn = getattr(layer, "self_attn", None)
                    if getattr(config, "fuse_kvq", False) and self_attn is not None:
                        self_attn._fuse_KVQ()
                    if config.fuse_gate and getattr(layer.mlp, "up_proj", None) is not None:
                        layer.mlp._fuse_gate()
        if hasattr(self.model, "encoder") and self.model.encoder is not None:
            if hasattr(self.model.encoder, "transformer_layers"):
                for layer in self.model.encoder.transformer_layers:
                    self_attn = getattr(layer, "self_attn", None)
                    if getattr(config, "fuse_kvq", False) and self_attn is not None:
                        self_attn._fuse_KVQ()
                    if config.fuse_gate and getattr(layer.mlp, "up_proj", None) is not None:
                        layer.mlp._fuse_gate()

        if isinstance(self.model, torch.nn.Module):
            from eole.modules.autoround_linear import finalize_deferred_autoround_linear

            finalize_deferred_autoround_linear(self.model)

    def __init__(
        self,
        model,
        vocabs,
        config,  # running_config/predict_config
        model_config,
        device_id=0,
        global_scorer=None,
        report_score=True,
        logger=None,
        return_gold_log_probs=False,
    ):

        id_tokenization = False
        if hasattr(model_config, "encoder") and model_config.encoder is not None:
            image_token_id = getattr(model_config.encoder, "image_token_id", 10)
            image_token_id_list = getattr(model_config.encoder, "image_token_id_list", [])
        else:
            image_token_id = 10
            image_token_id_list = []

        # Check all transforms for id_tokenization flag.
        # Previously, only the last transform's output_type was checked,
        # which caused incorrect behavior when combining transforms like
        # huggingface_tokenize (output_type='ids') with filtertoolong
        # (output_type='text'). Now it scan all transforms and set
        # id_tokenization=True if any transform has output_type='ids'.
        id_tokenization = any(
            getattr(AVAILABLE_TRANSFORMS.get(t), "output_type", None) == "ids" for t in config.transforms
        )

        self.model = model
        self.parallel_gpu = getattr(config, "parallel_gpu", 1)
        self._prepare_inference_projections(config)

        self.vocabs = vocabs
        self._tgt_vocab = vocabs["tgt"]
        self._tgt_eos_idx = [vocabs["tgt"].lookup_token(vocabs.get("specials", {}).get("eos_token", ""))] + [
            vocabs["tgt"].lookup_token(eos_token) for eos_token in config.optional_eos
        ]
        # defaulting to DefaultTokens.PAD might not always work
        self._tgt_pad_idx = vocabs["tgt"].lookup_token(vocabs.get("specials", {}).get("pad_token", DefaultTokens.PAD))
        self._src_pad_idx = vocabs["src"].lookup_token(vocabs.get("specials", {}).get("pad_token", DefaultTokens.PAD))
        self._tgt_bos_idx = vocabs["tgt"].lookup_token(vocabs.get("specials", {}).get("bos_token", ""))
        self._tgt_unk_idx = vocabs["tgt"].lookup_token(vocabs.get("specials", {}).get("unk_token", ""))
        self._tgt_sep_idx = vocabs["tgt"].lookup_token(DefaultTokens.SEP)
        self._tgt_start_with = vocabs["tgt"].lookup_token(vocabs["decoder_start_token"])
        self._tgt_vocab_len = len(self._tgt_vocab)

        self._gpu = device_id
        self._use_gpu = device_id > -1
        self._dev = get_device(self._gpu) if self._use_gpu else torch.device("cpu")

        self.dynamic_shapes = config.dynamic_shapes

        self.n_best = config.n_best
        self.max_length = config.max_length
        self.max_length_ratio = config.max_length_ratio
        self.context_length = config.context_length

        self.beam_size = config.beam_size
        self.temperature = config.temperature
        self.top_k = config.top_k
        self.top_p = config.top_p

        self.min_length = config.min_length
        self.ban_unk_token = config.ban_unk_token
        self.ratio = config.ratio
        self.stepwise_penalty = config.stepwise_penalty
        self.dump_beam = config.dump_beam
        self.block_ngram_repeat = config.block_ngram_repeat
        self.ignore_when_blocking = set(config.ignore_when_blocking)
        self._exclusion_idxs = {self._tgt_vocab[t] for t in self.ignore_when_blocking}
        self.replace_unk = config.replace_unk
        if self.replace_unk and not self.model.decoder.attentional:
            raise ValueError("replace_unk requires an attentional decoder.")
        self.tgt_file_prefix = config.tgt_file_prefix
        self.phrase_table = config.phrase_table
        self.data_type = config.data_type
        self.verbose = config.verbose
        self.report_time = config.report_time
        self.step0_time = 0.0
        self.decode_timings = []

        self.global_scorer = global_scorer
        if self.global_scorer.has_cov_pen and not self.model.decoder.attentional:
            raise ValueError("Coverage penalty requires an attentional decoder.")
        self.report_align = config.report_align
        self.gold_align = config.gold_align
        self.report_score = report_score
        self.logger = logger

        self.use_filter_pred = False
        self._filter_pred = None

        # for debugging
        self.beam_trace = self.dump_beam != ""
        self.beam_accum = None
        if self.beam_trace:
            self.beam_accum = {
                "predicted_ids": [],
                "beam_parent_ids": [],
                "scores": [],
                "log_probs": [],
            }

        set_random_seed(config.seed, self._use_gpu)
        self.with_score = config.with_score
        self.estim_only = config.estim_only

        self.return_gold_log_probs = return_gold_log_probs
        self.add_estimator = model_config.add_estimator
        self.estimator_type = model_config.estimator_type
        self.id_tokenization = id_tokenization
        self.image_token_id = image_token_id
        self.image_token_id_list = image_token_id_list

        self.self_attn_backend = config.self_attn_backend
        self.self_speculative_decoding = bool(getattr(config, "self_speculative_decoding", False))
        self.self_speculative_num_tokens = max(1, int(getattr(config, "self_speculative_num_tokens", 1)))

    def _log_inference_backends(self, speculative=False):
        from eole import EOLE_TORCH_COMPILE, EOLE_COMPILE_MODE
        from eole.utils.inference_backends import inference_backend_summary

        signature = (
            id(self.model),
            EOLE_TORCH_COMPILE,
            EOLE_COMPILE_MODE,
            speculative,
            getattr(self, "self_speculative_num_tokens", 0),
        )
        if getattr(self, "_backend_log_signature", None) == signature:
            return
        for line in inference_backend_summary(
            self.model,
            EOLE_TORCH_COMPILE,
            EOLE_COMPILE_MODE,
            speculative,
            getattr(self, "self_speculative_num_tokens", 0),
        ):
            self._log(line)
        self._backend_log_signature = signature

    def _log(self, msg):
        if self.logger:
            self.logger.info(msg)
        else:
            print(msg)

    def _gold_score(self, batch, enc_out, src_len, enc_final_hs, batch_size, src):
        if "tgt" in batch.keys() and not self.tgt_file_prefix:
            gs, glp = self._score_target(batch, enc_out, src_len)
            self.model.decoder.init_state(src=src, enc_out=enc_out, enc_final_hs=enc_final_hs)
        else:
            gs = [0] * batch_size
            glp = None
        return gs, glp

    def update_settings(self, **kwargs):
        # we probably would need some validation at some point
        for k, v in kwargs.items():
            if hasattr(self, k):
                setattr(self, k, v)

    def _predict(
        self,
        infer_iter,
        transform=None,
        attn_debug=False,
        align_debug=False,
        phrase_table="",
        streamer=None,
    ):
        """Predict content of ``src`` and get gold scores from ``tgt``.

        Args:
            infer_iter: tensored batch iterator from DynamicDatasetIter
            attn_debug (bool): enables the attention logging
            align_debug (bool): enables the word alignment logging
            streamer (GenerationStreamer, optional): If provided, tokens are
                streamed to the streamer as they are generated.  Only
                supported for ``GeneratorLM`` (decoder-only models).

        Returns:
            (`list`, `list`)

            * all_scores is a list of `batch_size` lists of `n_best` scores
            * all_predictions is a list of `batch_size` lists
                of `n_best` predictions
        """
        transform_pipe = TransformPipe.build_from([transform[name] for name in transform]) if transform else None
        prediction_builder = PredictionBuilder(
            self.vocabs,
            self.n_best,
            self.replace_unk,
            self.phrase_table,
            self._tgt_eos_idx,
            self.id_tokenization,
        )

        # Statistics
        counter = count(1)
        pred_score_total, estim_total, pred_words_total = 0, 0, 0
        gold_score_total, gold_words_total = 0, 0

        all_scores = []
        all_estim = []
        all_predictions = []

        start_time = time()
        self.step0_time = []
        self.warmup_time = []
        self.decode_timings = []

        def _maybe_retranslate(translations, batch):
            """Here we handle the cases of mismatch in number of segments
            between source and target. We re-translate seg by seg."""
            trans_copy = deepcopy(translations)
            for j, trans in enumerate(translations):
                if (trans.src == self._tgt_sep_idx).sum().item() != trans.pred_sents[0].count(DefaultTokens.SEP):
                    self._log("Mismatch in number of ((newline))")

                    # we rebuild a small batch made of the sub-segments
                    # in the long segment.
                    idx = (trans.src == self._tgt_sep_idx).nonzero()

                    sub_src = []
                    start_idx = 0
                    for i in range(len(idx)):
                        end_idx = idx[i]
                        sub_src.append(trans.src[start_idx:end_idx])
                        start_idx = end_idx + 1
                    end_idx = trans.src.ne(self._tgt_pad_idx).sum() - 1

                    sub_src.append(trans.src[start_idx:end_idx])
                    t_sub_src = pad_sequence(sub_src, batch_first=True, padding_value=self._tgt_pad_idx)
                    t_sub_src_len = t_sub_src.ne(self._tgt_pad_idx).sum(1)
                    t_sub_src_ind = [i for i in range(len(sub_src))]

                    device = batch["src"].device
                    t_sub_batch = {
                        "src": t_sub_src.to(device),
                        "srclen": t_sub_src_len.to(device),
                        "ind_in_bucket": t_sub_src_ind,
                    }
                    # new sub-batch ready to be predicted
                    sub_data = self.predict_batch(t_sub_batch, attn_debug)
                    sub_trans = prediction_builder.from_batch(sub_data)

                    # we re-insert the sub-batch in the initial predictions
                    nbest = len(sub_trans[0].pred_sents)
                    combined = [[] for _ in range(nbest)]

                    for sub_tr in sub_trans:
                        for i in range(nbest):
                            combined[i].extend(
                                [tok for tok in sub_tr.pred_sents[i] if tok != DefaultTokens.SEP] + [DefaultTokens.SEP]
                            )

                    trans_copy[j].pred_sents = [seq[:-1] for seq in combined]

            return trans_copy

        def _process_bucket(bucket_predictions):
            bucket_scores = []
            bucket_estims = []
            bucket_preds = []
            bucket_score = 0
            bucket_estim = 0
            bucket_words = 0
            bucket_gold_score = 0
            bucket_gold_words = 0
            voc_src = self.vocabs["src"].ids_to_tokens
            bucket_predictions = sorted(bucket_predictions, key=lambda x: x.ind_in_bucket)
            for trans in bucket_predictions:
                bucket_scores += [trans.pred_scores[: self.n_best]]
                if len(trans.pred_scores) > 0:
                    bucket_score += trans.pred_scores[0]
                bucket_estims += [trans.estim[: self.n_best]]
                bucket_estim += trans.estim[0]
                bucket_words += len(trans.pred_sents[0])
                if "tgt" in batch.keys():
                    bucket_gold_score += trans.gold_score
                    bucket_gold_words += len(trans.gold_sent) + 1

                if self.id_tokenization:
                    n_best_preds = trans.pred_sents[: self.n_best]
                else:
                    n_best_preds = [" ".join(pred) for pred in trans.pred_sents[: self.n_best]]

                if self.report_align:
                    align_pharaohs = [build_align_pharaoh(align) for align in trans.word_aligns[: self.n_best]]
                    n_best_preds_align = [" ".join(align[0]) for align in align_pharaohs]
                    n_best_preds = [
                        pred + DefaultTokens.ALIGNMENT_SEPARATOR + align
                        for pred, align in zip(n_best_preds, n_best_preds_align)
                    ]

                if transform_pipe is not None:
                    n_best_preds = transform_pipe.batch_apply_reverse(n_best_preds)

                bucket_preds += [n_best_preds]

                if self.verbose:
                    srcs = [voc_src[tok] for tok in trans.src[: trans.srclen]]
                    sent_number = next(counter)
                    output = trans.log(sent_number, src_raw=srcs)
                    self._log(output)

                if attn_debug:
                    preds = trans.pred_sents[0]
                    preds.append(DefaultTokens.EOS)
                    attns = trans.attns[0].tolist()
                    if self.data_type == "text":
                        srcs = [voc_src[tok] for tok in trans.src[: trans.srclen].tolist()]
                    else:
                        srcs = [str(item) for item in range(len(attns[0]))]
                    output = report_matrix(srcs, preds, attns)
                    self._log(output)

                if align_debug:
                    if self.gold_align:
                        tgts = trans.gold_sent
                    else:
                        tgts = trans.pred_sents[0]
                    align = trans.word_aligns[0].tolist()
                    if self.data_type == "text":
                        srcs = [voc_src[tok] for tok in trans.src[: trans.srclen].tolist()]
                    else:
                        srcs = [str(item) for item in range(len(align[0]))]
                    output = report_matrix(srcs, tgts, align)
                    self._log(output)

            return (
                bucket_scores,
                bucket_estims,
                bucket_preds,
                bucket_score,
                bucket_estim,
                bucket_words,
                bucket_gold_score,
                bucket_gold_words,
            )

        bucket_predictions = []
        prev_idx = 0

        src_tokens = 0

        for batch, bucket_idx in infer_iter:

            src_tokens += batch["srclen"].sum()
            batch_data = self.predict_batch(batch, attn_debug, streamer=streamer)

            predictions = prediction_builder.from_batch(batch_data)
            is_seq2seq = (
                getattr(self.model, "encoder", None) is not None and getattr(self.model, "decoder", None) is not None
            )
            if (
                is_seq2seq
                and self._tgt_sep_idx != self._tgt_unk_idx
                and (batch["src"] == self._tgt_sep_idx).any().item()
            ):
                # For seq2seq when we need to force doc to spit the same number of sents
                # TODO: this should be moved to Translator class instead of testing is_seq2seq
                predictions = _maybe_retranslate(predictions, batch)

            bucket_predictions += predictions

            if not isinstance(infer_iter, list) and len(bucket_predictions) >= infer_iter.bucket_size:
                bucket_idx += 1

            if bucket_idx != prev_idx:
                prev_idx = bucket_idx
                (
                    bucket_scores,
                    bucket_estims,
                    bucket_preds,
                    bucket_score,
                    bucket_estim,
                    bucket_words,
                    bucket_gold_score,
                    bucket_gold_words,
                ) = _process_bucket(bucket_predictions)
                all_scores += bucket_scores
                all_estim += bucket_estims
                all_predictions += bucket_preds
                pred_score_total += bucket_score
                estim_total += bucket_estim
                pred_words_total += bucket_words
                gold_score_total += bucket_gold_score
                gold_words_total += bucket_gold_words
                bucket_predictions = []

        if len(bucket_predictions) > 0:
            (
                bucket_scores,
                bucket_estims,
                bucket_preds,
                bucket_score,
                bucket_estim,
                bucket_words,
                bucket_gold_score,
                bucket_gold_words,
            ) = _process_bucket(bucket_predictions)
            all_scores += bucket_scores
            all_estim += bucket_estims
            all_predictions += bucket_preds
            pred_score_total += bucket_score
            estim_total += bucket_estim
            pred_words_total += bucket_words
            gold_score_total += bucket_gold_score
            gold_words_total += bucket_gold_words

        end_time = time()

        if self.report_score and src_tokens > 0:
            msg = self._report_score("PRED", pred_score_total, len(all_scores))
            self._log(msg)
            msg = self._report_score("ESTIM", estim_total, len(all_estim))
            self._log(msg)
            if "tgt" in batch.keys() and not self.tgt_file_prefix:
                msg = self._report_score("GOLD", gold_score_total, len(all_scores))
                self._log(msg)

        if self.report_time:
            total_time = end_time - start_time
            step0 = sum(self.step0_time)
            warmup = sum(self.warmup_time)
            decoding_time = total_time - step0 - warmup
            if step0 != 0:
                self._log("Step 0 time (s): %.2f" % step0)
                self._log("Enc/Step 0 tokens / sec: %.1f" % (src_tokens / step0))
            if len(all_predictions) > 0:
                self._log("Subsequent prediction time including all (s): %.2f" % decoding_time)
                self._log("Average prediction time (ms): %.1f" % (decoding_time / len(all_predictions) * 1000))
                if self.decode_timings:
                    decode_tokens = sum(tokens for tokens, _ in self.decode_timings)
                    decode_seconds = sum(seconds for _, seconds in self.decode_timings)
                    self._log("Decode time (first to last token, s): %.6f" % decode_seconds)
                    self._log("Decode tokens (excluding first, including EOS): %d" % decode_tokens)
                    self._log(
                        "Tokens per second: %.1f" % (decode_tokens / decode_seconds if decode_seconds > 0 else 0.0)
                    )
                    self._log(
                        "Prediction tokens per second (legacy, including overhead): %.1f"
                        % (pred_words_total / decoding_time if decoding_time > 0 else 0.0)
                    )
                else:
                    self._log("Tokens per second: %.1f" % (pred_words_total / decoding_time))
                self._log("pred_words_total: %.1f" % (pred_words_total))

        if self.dump_beam:
            import json

            json.dump(
                self.predictor.beam_accum,
                codecs.open(self.dump_beam, "w", "utf-8"),
            )

        return all_scores, all_estim, all_predictions

    def _record_decode_timing(self, predictions, seconds):
        # Count delivered first-best model token IDs, including terminal EOS.
        # Prefill produced the first token of each sequence outside this interval.
        tokens = sum(max(hypotheses[0].numel() - 1, 0) for hypotheses in predictions if hypotheses)
        self.decode_timings.append((tokens, seconds))

    def _score(self, infer_iter):
        self.with_scores = True
        score_res = []
        processed_bucket = {}
        prev_bucket_idx = 0
        for batch, bucket_idx in infer_iter:
            if bucket_idx != prev_bucket_idx:
                prev_bucket_idx += 1
                score_res += [item for _, item in sorted(processed_bucket.items())]
                processed_bucket = {}
            batch_data = self.predict_batch(batch, attn_debug=False, scoring=True)
            batch_gold_scores = batch_data["gold_score"].cpu().float().numpy().tolist()
            batch_tgt_lengths = batch["tgtlen"].cpu().numpy().tolist()
            batch_inds_in_bucket = batch["ind_in_bucket"]
            if self.return_gold_log_probs:
                batch_gold_log_probs = batch_data["gold_log_probs"].cpu().float().numpy().tolist()
            else:
                batch_gold_log_probs = [None for i, _ in enumerate(batch_inds_in_bucket)]
            for i, ind in enumerate(batch_inds_in_bucket):
                processed_bucket[ind] = [
                    batch_gold_scores[i],
                    batch_gold_log_probs[i],
                    batch_tgt_lengths[i],
                ]
        if processed_bucket:
            score_res += [item for _, item in sorted(processed_bucket.items())]
        return score_res

    def _align_pad_prediction(self, predictions, bos, pad):
        """
        Padding predictions in batch and add BOS.

        Args:
            predictions (List[List[Tensor]]): `(batch, n_best,)`, for each src
                sequence contain n_best tgt predictions all of which ended with
                eos id.
            bos (int): bos index to be used.
            pad (int): pad index to be used.

        Return:
            batched_nbest_predict (torch.LongTensor): `(batch, n_best, tgt_l)`
        """
        dtype, device = predictions[0][0].dtype, predictions[0][0].device
        flatten_tgt = [best.tolist() for bests in predictions for best in bests]
        paded_tgt = torch.tensor(
            list(zip_longest(*flatten_tgt, fillvalue=pad)),
            dtype=dtype,
            device=device,
        ).T
        bos_tensor = torch.full([paded_tgt.size(0), 1], bos, dtype=dtype, device=device)
        full_tgt = torch.cat((bos_tensor, paded_tgt), dim=-1)
        batched_nbest_predict = full_tgt.view(len(predictions), -1, full_tgt.size(-1))  # (batch, n_best, tgt_l)
        return batched_nbest_predict

    def _report_score(self, name, score_total, nb_sentences):
        # In the case of length_penalty = none we report the total logprobs
        # divided by the number of sentence to get an approximation of the
        # per sentence logprob. We also return the corresponding ppl
        # When a length_penalty is used eg: "avg" or "wu" since logprobs
        # are normalized per token we report the per line per token logprob
        # and the corresponding "per word perplexity"
        if nb_sentences == 0:
            msg = "%s No predictions" % (name,)
        else:
            score = score_total / nb_sentences
            try:
                ppl = exp(-score_total / nb_sentences)
            except OverflowError:
                ppl = float("inf")
            msg = "%s SCORE: %.4f, %s PPL: %.2f NB SENTENCES: %d" % (
                name,
                score,
                name,
                ppl,
                nb_sentences,
            )
        return msg

    def _decode_and_generate(
        self,
        decoder_in,
        enc_out,
        src_len,
        step=None,
        return_attn=False,
        images=None,
        return_hidden=False,
        return_all_hidden=False,
        profile_events=None,
    ):

        # Decoder forward, takes [batch, tgt_len, nfeats] as input
        # and [batch, src_len, hidden] as enc_out
        # in case of inference tgt_len = 1, batch = beam times batch_size
        # in case of Gold Scoring tgt_len = actual length, batch = 1 batch
        # we still rely on src_len here because updated at each beam search step
        if isinstance(enc_out, tuple):  # ensemble decoding
            src_max_len = enc_out[0].size(1)
            src_pad_mask = sequence_mask(src_len, src_max_len).unsqueeze(1)  # [B, 1, T_src]
        elif enc_out is not None:
            src_max_len = enc_out.size(1)  # src_len.max() ce bug était sournois
            src_pad_mask = sequence_mask(src_len, src_max_len).unsqueeze(1)  # [B, 1, T_src]
        else:
            src_pad_mask = None

        if images is not None and step == 0:
            emb, pos_ids_2d = self.model.embed_vision_language_features(decoder_in, images=images)
            image_locations = decoder_in == self.image_token_id
            if self.image_token_id_list is not None:
                extra_ids = torch.tensor(self.image_token_id_list, device=decoder_in.device)
                image_locations = image_locations | torch.isin(decoder_in, extra_ids)
        else:
            emb = self.model.tgt_emb(decoder_in, step=step)
            pos_ids_2d = None
            image_locations = None

        tgt_pad_mask = decoder_in.eq(self._tgt_pad_idx).unsqueeze(1)  # [B, 1, T_tgt]
        if step is not None and step > 0:
            # Generated tokens are real cache inputs, even if their ID equals
            # PAD. Sequential decode already consumes them; a multi-token
            # verifier must not turn those same inputs into GDN no-ops.
            tgt_pad_mask = torch.zeros_like(tgt_pad_mask)

        if step == 0:
            self.model.decoder._init_cache(emb, tgt_pad_mask, enc_out=enc_out)

        decoder_events = None
        if profile_events is not None:
            decoder_events = (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
            decoder_events[0].record()
        dec_out, dec_attn = self.model.decoder(
            emb,
            enc_out=enc_out,
            step=step,
            return_attn=self.global_scorer.has_cov_pen or return_attn,
            src_pad_mask=src_pad_mask,
            tgt_pad_mask=tgt_pad_mask,
            image_locations=image_locations,
            pos_ids_2d=pos_ids_2d,
            # Pass raw token IDs so _forward_chunked_prefill can compute
            # rolling cache keys for the prefill KV cache.
            src_ids=decoder_in if step == 0 else None,
        )

        if decoder_events is not None:
            decoder_events[1].record()
            profile_events.setdefault("verify_decoder", []).append(decoder_events)

        # Generator forward.
        all_hidden = dec_out if return_all_hidden else None
        if "std" in dec_attn:
            attn = dec_attn["std"]
        else:
            attn = None
        if step == 0 and dec_out.dim() == 3 and dec_out.size(1) > 1:
            dec_out = dec_out[:, -1:, :]
        vocab_events = None
        if profile_events is not None:
            vocab_events = (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
            vocab_events[0].record()
        scores = self.model.generator(dec_out.squeeze(1))
        log_probs = log_softmax(scores, dim=-1)  # we keep float16 if FP16
        if vocab_events is not None:
            vocab_events[1].record()
            profile_events.setdefault("verify_vocab", []).append(vocab_events)
        # returns [(batch_size x beam_size), vocab_size]
        if return_hidden:
            if return_all_hidden:
                return log_probs, attn, dec_out, all_hidden
            return log_probs, attn, dec_out
        return log_probs, attn

    def predict_batch(self, batch, attn_debug, streamer=None):
        """Predict a batch of sentences."""
        raise NotImplementedError

    def _score_target(self, batch, enc_out, src_len):
        raise NotImplementedError

    def report_results(
        self,
        gold_score,
        gold_log_probs,
        batch,
        batch_size,
        decode_strategy,
        estim,
    ):
        results = {
            "predictions": None,
            "scores": None,
            "attention": None,
            "estim": None,
            "n_text_tokens": None,
            "batch": batch,
            "gold_score": gold_score,
            "gold_log_probs": gold_log_probs,
        }

        if self.report_align:
            results["alignment"] = self._align_forward(batch, decode_strategy.predictions)
        else:
            results["alignment"] = [[] for _ in range(batch_size)]
        preds = []
        scores = []
        attns = []
        sorted_estim = []
        sorted_n_text_tokens = []

        for sublist_estim, sublist_scores, sublist_preds, sublist_attns, sublist_ntok in zip(
            estim,
            decode_strategy.scores,
            decode_strategy.predictions,
            decode_strategy.attention,
            decode_strategy.n_text_tokens,
        ):

            # key_fn = lambda x: x[3]  # tri sur estimation
            # key_fn = lambda x: x[0]  # tri sur xentropy

            # use a pareto like instead of one of the score above.
            def key_fn(t):
                CE = float(t[0])
                E = float(t[3])
                # Count how many sentences this sentence dominates within the set
                dominates_count = sum(
                    1
                    for other in zip(sublist_scores, sublist_preds, sublist_attns, sublist_estim)
                    if other is not t
                    and float(other[0]) <= CE
                    and float(other[3]) <= E
                    and (float(other[0]) < CE or float(other[3]) < E)
                )
                # Return tuple: first dominates_count, then E
                return (dominates_count, E)

            sorted_tuples = sorted(
                zip(sublist_scores, sublist_preds, sublist_attns, sublist_estim, sublist_ntok),
                key=key_fn,
                reverse=True,
            )

            if len(sorted_tuples) == 0:
                scores = decode_strategy.scores
                preds = decode_strategy.predictions
                attns = decode_strategy.attention
                sorted_estim = estim
                sorted_n_text_tokens = decode_strategy.n_text_tokens
            else:
                scores.append([item[0] for item in sorted_tuples])
                preds.append([item[1] for item in sorted_tuples])
                attns.append([item[2] for item in sorted_tuples])
                sorted_estim.append([item[3] for item in sorted_tuples])
                sorted_n_text_tokens.append([item[4] for item in sorted_tuples])

        results["scores"] = scores
        results["predictions"] = preds
        results["attention"] = attns
        results["estim"] = sorted_estim
        results["n_text_tokens"] = sorted_n_text_tokens
        return results
