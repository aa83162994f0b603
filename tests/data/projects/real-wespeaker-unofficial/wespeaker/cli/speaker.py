# Copyright (c) 2023 Binbin Zhang (binbzha@qq.com)
#                    Shuai Wang (wsstriving@gmail.com)
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

import os
import sys

import numpy as np
from silero_vad import load_silero_vad, read_audio, get_speech_timestamps
import torch
import torchaudio
import torchaudio.compliance.kaldi as kaldi
import yaml
import kaldiio
from tqdm import tqdm

from wespeaker.cli.hub import Hub
from wespeaker.cli.utils import get_args
from wespeaker.models.speaker_model import get_speaker_model
from wespeaker.utils.checkpoint import load_checkpoint
from wespeaker.diar.umap_clusterer import cluster
from wespeaker.diar.extract_emb import subsegment
from wespeaker.diar.make_rttm import merge_segments
from wespeaker.utils.utils import set_seed
from wespeaker.frontend import frontend_class_dict


class Speaker:

    def __init__(self, model_dir: str):
        set_seed()
        self.model = load_model_pt(model_dir)
        self.vad = load_silero_vad()
        self.table = {}
        self.resample_rate = 16000
        self.apply_vad = False
        self.device = torch.device('cpu')
        self.wavform_norm = False
        self.window_type = 'hamming'

        # diarization parmas
        self.diar_min_duration = 0.255
        self.diar_window_secs = 1.5
        self.diar_period_secs = 0.75
        self.diar_frame_shift = 10
        self.diar_batch_size = 32
        self.diar_subseg_cmn = True

    def set_wavform_norm(self, wavform_norm: bool):
        self.wavform_norm = wavform_norm

    def set_window_type(self, window_type: str):
        self.window_type = window_type

    def set_resample_rate(self, resample_rate: int):
        self.resample_rate = resample_rate

    def set_vad(self, apply_vad: bool):
        self.apply_vad = apply_vad

    def set_device(self, device: str):
        self.device = torch.device(device)
        self.model = self.model.to(self.device)

    def set_diarization_params(self,
                               min_duration: float = 0.255,
                               window_secs: float = 1.5,
                               period_secs: float = 0.75,
                               frame_shift: int = 10,
                               batch_size: int = 32,
                               subseg_cmn: bool = True):
        self.diar_min_duration = min_duration
        self.diar_window_secs = window_secs
        self.diar_period_secs = period_secs
        self.diar_frame_shift = frame_shift
        self.diar_batch_size = batch_size
        self.diar_subseg_cmn = subseg_cmn

    def compute_features(self, wavform, sample_rate=16000, cmn=True):
        if self.model.frontend_type == 'fbank':
            feat = kaldi.fbank(wavform,
                               num_mel_bins=80,
                               frame_length=25,
                               frame_shift=10,
                               sample_frequency=sample_rate,
                               window_type=self.window_type)  # [T, D]
            if cmn:
                feat = feat - torch.mean(feat, dim=0)
            feat = feat.unsqueeze(0)  # [1, T, D]
        else:
            wavform_lens = torch.LongTensor([wavform.shape[1]]).repeat(
                wavform.shape[0]).to(self.device)
            with torch.no_grad():
                feat, _ = self.model.frontend(wavform, wavform_lens)
        return feat

    def extract_embedding_from_feats(self, fbanks, batch_size, subseg_cmn):
        fbanks_array = np.stack(fbanks)
        if subseg_cmn:
            fbanks_array = fbanks_array - np.mean(
                fbanks_array, axis=1, keepdims=True)
        embeddings = []
        fbanks_array = torch.from_numpy(fbanks_array).to(self.device)
        for i in tqdm(range(0, fbanks_array.shape[0], batch_size)):
            batch_feats = fbanks_array[i:i + batch_size]
            with torch.no_grad():
                batch_embs = self.model(batch_feats)
                batch_embs = batch_embs[-1] if isinstance(
                    batch_embs, tuple) else batch_embs
            embeddings.append(batch_embs.detach().cpu().numpy())
        embeddings = np.vstack(embeddings)
        return embeddings

    def extract_embedding(self, audio_path: str):
        pcm, sample_rate = torchaudio.load(audio_path,
                                           normalize=self.wavform_norm)
        return self.extract_embedding_from_pcm(pcm, sample_rate)

    def extract_embedding_from_pcm(self, pcm: torch.Tensor, sample_rate: int):
        if self.apply_vad:
            # TODO(Binbin Zhang): Refine the segments logic, here we just
            # suppose there is only silence at the start/end of the speech
            vad_sample_rate = 16000
            wav = pcm
            if wav.size(0) > 1:
                wav = wav.mean(dim=0, keepdim=True)

            if sample_rate != vad_sample_rate:
                transform = torchaudio.transforms.Resample(
                    orig_freq=sample_rate, new_freq=vad_sample_rate)
                wav = transform(wav)
            segments = get_speech_timestamps(wav,
                                             self.vad,
                                             return_seconds=True)
            pcmTotal = torch.Tensor()
            if len(segments) > 0:  # remove all the silence
                for segment in segments:
                    start = int(segment['start'] * sample_rate)
                    end = int(segment['end'] * sample_rate)
                    pcmTemp = pcm[0, start:end]
                    pcmTotal = torch.cat([pcmTotal, pcmTemp], 0)
                pcm = pcmTotal.unsqueeze(0)
            else:  # all silence, nospeech
                return None
        pcm = pcm.to(torch.float)
        if sample_rate != self.resample_rate:
            pcm = torchaudio.transforms.Resample(
                orig_freq=sample_rate, new_freq=self.resample_rate)(pcm)
        feats = self.compute_features(pcm,
                                      sample_rate=self.resample_rate,
                                      cmn=True)
        with torch.no_grad():
            outputs = self.model(feats)
            outputs = outputs[-1] if isinstance(outputs, tuple) else outputs
        embedding = outputs[0].to(torch.device('cpu'))
        return embedding

    def extract_embedding_list(self, scp_path: str):
        names = []
        embeddings = []
        with open(scp_path, 'r') as read_scp:
            for line in tqdm(read_scp):
                name, wav_path = line.strip().split()
                names.append(name)
                embedding = self.extract_embedding(wav_path)
                embeddings.append(embedding.detach().numpy())
        return names, embeddings

    def compute_similarity(self, audio_path1: str, audio_path2: str) -> float:
        e1 = self.extract_embedding(audio_path1)
        e2 = self.extract_embedding(audio_path2)
        if e1 is None or e2 is None:
            return 0.0
        else:
            return self.cosine_similarity(e1, e2)

    def cosine_similarity(self, e1, e2):
        cosine_score = torch.dot(e1, e2) / (torch.norm(e1) * torch.norm(e2))
        cosine_score = cosine_score.item()
        return (cosine_score + 1.0) / 2  # normalize: [-1, 1] => [0, 1]

    def register(self, name: str, audio_path: str):
        if name in self.table:
            print('Speaker {} already registered, ignore'.format(name))
        else:
            self.table[name] = self.extract_embedding(audio_path)

    def recognize(self, audio_path: str):
        q = self.extract_embedding(audio_path)
        best_score = 0.0
        best_name = ''
        for name, e in self.table.items():
            score = self.cosine_similarity(q, e)
            if best_score < score:
                best_score = score
                best_name = name
        result = {}
        result['name'] = best_name
        result['confidence'] = best_score
        return result

    def diarize(self, audio_path: str, utt: str = "unk"):
        assert self.model.frontend_type == 'fbank', \
            "Diarization only supports fbank frontend"
        pcm, sample_rate = torchaudio.load(audio_path, normalize=False)
        # 1. vad
        wav = read_audio(audio_path)
        vad_segments = get_speech_timestamps(wav,
                                             self.vad,
                                             return_seconds=True)
        if not vad_segments:
            return []
        # 2. extact fbanks
        subsegs, subseg_fbanks = [], []
        window_fs = int(self.diar_window_secs * 1000) // self.diar_frame_shift
        period_fs = int(self.diar_period_secs * 1000) // self.diar_frame_shift
        for item in vad_segments:
            begin, end = item['start'], item['end']
            if end - begin >= self.diar_min_duration:
                begin_idx = int(begin * sample_rate)
                end_idx = int(end * sample_rate)
                tmp_wavform = pcm[0, begin_idx:end_idx].unsqueeze(0).to(
                    torch.float)
                fbank = self.compute_features(tmp_wavform,
                                              sample_rate=sample_rate,
                                              cmn=False)
                tmp_subsegs, tmp_subseg_fbanks = subsegment(
                    fbank=fbank.squeeze(0),
                    seg_id="{:08d}-{:08d}".format(int(begin * 1000),
                                                  int(end * 1000)),
                    window_fs=window_fs,
                    period_fs=period_fs,
                    frame_shift=self.diar_frame_shift)
                subsegs.extend(tmp_subsegs)
                subseg_fbanks.extend(tmp_subseg_fbanks)

        # 3. extract embedding
        embeddings = self.extract_embedding_from_feats(subseg_fbanks,
                                                       self.diar_batch_size,
                                                       self.diar_subseg_cmn)

        # 4. cluster
        subseg2label = []
        labels = cluster(embeddings)
        for (_subseg, _label) in zip(subsegs, labels):
            # b, e = process_seg_id(_subseg, frame_shift=self.diar_frame_shift)
            # subseg2label.append([b, e, _label])
            begin_ms, end_ms, begin_frames, end_frames = _subseg.split('-')
            begin = (int(begin_ms) +
                     int(begin_frames) * self.diar_frame_shift) / 1000.0
            end = (int(begin_ms) +
                   int(end_frames) * self.diar_frame_shift) / 1000.0
            subseg2label.append([begin, end, _label])

        # 5. merged segments
        # [[utt, ([begin, end, label], [])], [utt, ([], [])]]
        merged_segment_to_labels = merge_segments({utt: subseg2label})

        return merged_segment_to_labels

    def diarize_list(self, scp_path: str):
        utts = []
        segment2labels = []
        with open(scp_path, 'r', encoding='utf-8') as read_scp:
            for line in tqdm(read_scp):
                utt, wav_path = line.strip().split()
                utts.append(utt)
                segment2label = self.diarize(wav_path, utt)
                segment2labels.append(segment2label)
        return utts, segment2labels

    def make_rttm(self, merged_segment_to_labels, outfile):
        with open(outfile, 'w', encoding='utf-8') as fin:
            for (utt, begin, end, label) in merged_segment_to_labels:
                fin.write(
                    "SPEAKER {} {} {:.3f} {:.3f} <NA> <NA> {} <NA> <NA>\n".
                    format(utt, 1, float(begin),
                           float(end) - float(begin), label))


def load_or_download(model_name_or_path: str):
    if model_name_or_path in Hub.Assets:
        model_dir = Hub.get_model(model_name_or_path)
    else:
        model_dir = model_name_or_path
    return model_dir


def load_model(model_name_or_path: str) -> Speaker:
    return Speaker(load_or_download(model_name_or_path))


# Load the pytorch pt model which contains all the details.
# And we can use the pt model as a third party pytorch nn.Module for training
def load_model_pt(model_name_or_path: str):
    """There are the following files in the `model_dir`:
       - config.yaml: the model config file
       - avg_model.pt: the pytorch model file
    """
    model_dir = load_or_download(model_name_or_path)
    required_files = ['config.yaml', 'avg_model.pt']
    for file in required_files:
        if not os.path.exists(os.path.join(model_dir, file)):
            raise FileNotFoundError(f"{file} not found in {model_dir}")
    # Read config file
    with open(os.path.join(model_dir, 'config.yaml'), 'r') as f:
        config = yaml.load(f, Loader=yaml.FullLoader)
    # load model
    model = get_speaker_model(config['model'])(**config['model_args'])
    frontend_type = 'fbank'
    if 'dataset_args' in config and 'frontend' in config['dataset_args']:
        frontend_type = config['dataset_args']['frontend']
    print(config)
    if frontend_type != 'fbank':
        frontend_args = frontend_type + "_args"
        print('Initializing frontend model (this could take some time) ...')
        frontend = frontend_class_dict[frontend_type](
            **config['dataset_args'][frontend_args],
            sample_rate=config['dataset_args']['resample_rate'])
        model.add_module("frontend", frontend)
    load_checkpoint(model, os.path.join(model_dir, 'avg_model.pt'))
    model.eval()
    model.frontend_type = frontend_type
    return model


def main():
    args = get_args()
    if args.pretrain == "":
        if args.campplus:
            model = load_model("campplus")
            model.set_wavform_norm(True)
            model.set_window_type('povey')
        elif args.eres2net:
            model = load_model("eres2net")
            model.set_wavform_norm(True)
            model.set_window_type('povey')
        elif args.vblinkp:
            model = load_model("vblinkp")
        elif args.vblinkf:
            model = load_model("vblinkf")
        elif args.w2vbert2_mfa:
            model = load_model("w2vbert2_mfa")
        else:
            model = load_model(args.language)
    else:
        model = load_model(args.pretrain)
    model.set_resample_rate(args.resample_rate)
    model.set_vad(args.vad)
    model.set_device(args.device)
    model.set_diarization_params(min_duration=args.diar_min_duration,
                                 window_secs=args.diar_window_secs,
                                 period_secs=args.diar_period_secs,
                                 frame_shift=args.diar_frame_shift,
                                 batch_size=args.diar_emb_bs,
                                 subseg_cmn=args.diar_subseg_cmn)
    if args.task == 'embedding':
        embedding = model.extract_embedding(args.audio_file)
        if embedding is not None:
            np.savetxt(args.output_file, embedding.detach().numpy())
            print('Succeed, see {}'.format(args.output_file))
        else:
            print('Fails to extract embedding')
    elif args.task == 'embedding_kaldi':
        names, embeddings = model.extract_embedding_list(args.wav_scp)
        embed_ark = args.output_file + ".ark"
        embed_scp = args.output_file + ".scp"
        with kaldiio.WriteHelper('ark,scp:' + embed_ark + "," +
                                 embed_scp) as writer:
            for name, embedding in zip(names, embeddings):
                writer(name, embedding)
    elif args.task == 'similarity':
        print(model.compute_similarity(args.audio_file, args.audio_file2))
    elif args.task == 'diarization':
        diar_result = model.diarize(args.audio_file)
        if args.output_file is None:
            for (_, start, end, spkid) in diar_result:
                print("{:.3f}\t{:.3f}\t{:d}".format(start, end, spkid))
        else:
            model.make_rttm(diar_result, args.output_file)
    elif args.task == 'diarization_list':
        utts, segment2labels = model.diarize_list(args.wav_scp)
        assert args.output_file is not None
        model.make_rttm(np.vstack(segment2labels), args.output_file)
    else:
        print('Unsupported task {}'.format(args.task))
        sys.exit(-1)


if __name__ == '__main__':
    main()
