"""
Sykra Architecture - TPU Training & Generation Pipeline (PyTorch/XLA)
======================================================================
train_and_generate.py (GPU/CPU/MPS) dosyasına HİÇ dokunulmadı. Bu dosya onun
TPU karşılığıdır ve aynı CLI arayüzünü (aynı flag isimleri) kullanır; böylece
tek fark komut satırında hangi scripti çalıştırdığınızdır.

Bu dosyada eklenen iki şey:
  1) TPU-uyumlu Gradient Accumulation
     - Her mikro-adımda loss / grad_accum ile backward() çağrılır, gradyanlar
       cihaz üzerinde birikir (buffer birikimi mark_step'ten etkilenmez).
       Ara adımlarda sadece xm.mark_step() ile IR grafiği küçük tutulur
       (aksi halde grad_accum büyüdükçe derleme grafiği katlanarak büyür).
     - Sınır adımında: xm.reduce_gradients() (çekirdekler arası all-reduce)
       -> grad clipping -> optimizer.step() -> mark_step(). Bu sıralama
       önemlidir: clipping, çekirdekler arası ortalama alınmış GERÇEK
       gradyan üzerinde yapılmalı, senkronize edilmemiş yerel gradyan
       üzerinde değil (tpu_kernel.py'deki orijinal SykraTPUTrainer'da
       clipping hiç yoktu, xm.optimizer_step tek çağrıda reduce+step
       yapıyordu).
  2) TPU-uyumlu Gradient Checkpointing
     - modeling_sykra.py içindeki SykraModel.forward zaten
       torch.utils.checkpoint.checkpoint(..., use_reentrant=False)
       kullanıyor; bu, cihazdan bağımsızdır (CPU/CUDA/XLA hepsinde çalışır)
       ve özellikle use_reentrant=False seçimi XLA'nın lazy-tensor izleme
       modeliyle GPU'daki reentrant checkpoint'e göre çok daha uyumludur.
     - Burada tek eksik olan model.gradient_checkpointing_enable() çağrısının
       TPU worker'ında hiç yapılmıyor olmasıydı; bu dosyada --gradient_checkpointing
       bayrağıyla açılıyor.

NOT (2. düzeltme -- YAVAŞ/PATLAYAN XLA GRAFİĞİ): Bu dosya artık model.to_tpu()
/ tpu_kernel.py::TPUGatedDeltaLayer KULLANMIYOR. O katman, chunk-başı ağır
işlemleri (gram matrisi, üçgen-tersi, causal attention) `for i in
range(num_chunks)` döngüsünün İÇİNDE hesaplıyordu; bu, XLA grafiğinin katman
başına chunk sayısı kadar tamamen unroll edilmesine yol açıyordu (derleme
dakikalar sürüyor, MXU büyük ölçüde israf ediliyordu -- bkz.
sykra_tpu_kernel_v2.py docstring'i, madde 3). Ayrıca o katmanda bir doğruluk
hatası da vardı (pred_v_0'da eksik transpose, madde 1). Bunun yerine
sykra_tpu_kernel_v2.py::convert_model_to_tpu_kernel() ile SykraTPUDeltaLayer
takılıyor: ağır chunk-başı işlemler TÜM chunk'lar için TEK seferde batched
matmul olarak (döngünün DIŞINDA) hesaplanıyor, döngü içinde sadece chunk
başına 2 küçük [d x d] matmul kalıyor.

Not (generate() sınırlaması -- artık büyük ölçüde geçerli değil ama davranış
korunuyor): SykraTPUDeltaLayer, eski TPUGatedDeltaLayer'ın aksine tek
token'lık O(1) recurrent decode adımını da destekliyor. Yine de bu script,
eğitim bittikten ve ağırlıklar kaydedildikten SONRA, üretim testini normal
(TPU-olmayan) SykraDeltaLayer'a sahip standart mimariye geri yükleyerek
yapmaya devam ediyor -- parametre isimleri/şekilleri birebir aynı olduğu
için state_dict sorunsuz taşınır ve bu en basit/güvenli yoldur.
"""

import os
import sys
import time
import math
import argparse
import logging
from typing import Optional, Tuple, Dict, Any, List

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

from transformers import (
    AutoTokenizer,
    AutoConfig,
    AutoModelForCausalLM,
    PreTrainedTokenizerBase,
    get_cosine_schedule_with_warmup,
)

# Optional XLA imports with graceful error handling
try:
    import torch_xla
    import torch_xla.core.xla_model as xm
    import torch_xla.distributed.parallel_loader as pl
    import torch_xla.distributed.xla_multiprocessing as xmp
    _XLA_AVAILABLE = True
except ImportError:
    _XLA_AVAILABLE = False

# Relative / absolute import compatibility for PyPI wheel and direct script execution
try:
    from .configuration_sykra import SykraConfig
    from .modeling_sykra import SykraForCausalLM
    from .tpu_kernel import TPUStaticDataset
    from .sykra_tpu_kernel_v2 import convert_model_to_tpu_kernel
except (ImportError, ValueError):
    from configuration_sykra import SykraConfig
    from modeling_sykra import SykraForCausalLM
    from tpu_kernel import TPUStaticDataset
    from sykra_tpu_kernel_v2 import convert_model_to_tpu_kernel

logging.basicConfig(
    format="[%(asctime)s] [%(levelname)s] %(message)s",
    datefmt="%Y-%m-%d %H:%M:%S",
    level=logging.INFO,
)
logger = logging.getLogger("sykra.tpu_pipeline")

# Register Sykra to Hugging Face Auto classes (birden fazla process/import'ta
# tekrar kayıt hatası vermesin diye korumalı)
try:
    AutoConfig.register("sykra", SykraConfig)
    AutoModelForCausalLM.register(SykraConfig, SykraForCausalLM)
except ValueError:
    pass


# =====================================================================
# 1. Deterministik Seed & Ortam Doğrulama
# =====================================================================
def set_seed(seed: int = 42) -> None:
    torch.manual_seed(seed)


def _require_xla() -> None:
    if not _XLA_AVAILABLE:
        raise RuntimeError(
            "\n[TPU Environment Error] 'torch_xla' bulunamadı / import edilemedi.\n"
            "TPU'da eğitmek için PyTorch/XLA kurun:\n"
            "  pip install torch-xla\n"
            "Veya TPU destekli bir Google Cloud VM / Colab TPU runtime içinde çalıştığınızdan emin olun.\n"
            "(GPU/CPU eğitimi için train_and_generate.py kullanın.)"
        )


# =====================================================================
# 2. Basit Sentetik Dataset (gerçek dosya yoksa self-test için)
#    Not: gerçek bir dataset_path verilirse tpu_kernel.py'deki
#    TPUStaticDataset kullanılır; bu sınıf sadece hızlı doğrulama içindir.
# =====================================================================
class _SyntheticTokenDataset(Dataset):
    def __init__(self, vocab_size: int, block_size: int, num_samples: int):
        self.vocab_size = vocab_size
        self.block_size = block_size
        self.num_samples = num_samples

    def __len__(self) -> int:
        return self.num_samples

    def __getitem__(self, idx: int) -> Dict[str, torch.Tensor]:
        chunk = torch.randint(0, self.vocab_size, (self.block_size,), dtype=torch.long)
        return {"input_ids": chunk, "labels": chunk.clone()}


# =====================================================================
# 3. TPU Worker (her çekirdekte xmp.spawn ile çalışır)
# =====================================================================
def _train_worker(index: int, args_dict: Dict[str, Any]) -> None:
    args = argparse.Namespace(**args_dict)
    set_seed(args.seed)

    device = xm.xla_device()
    world_size = xm.xrt_world_size()
    rank = xm.get_ordinal()
    is_master = rank == 0

    if is_master:
        logger.info("--- Sykra TPU Pipeline Başlatıldı ---")
        logger.info(f"TPU Çekirdek Sayısı (World Size): {world_size}")
        logger.info(
            f"Global Batch Size: {args.batch_size * world_size * args.grad_accum} "
            f"(micro={args.batch_size} x cores={world_size} x grad_accum={args.grad_accum})"
        )

    # 1. Tokenizer
    try:
        tokenizer = AutoTokenizer.from_pretrained(args.tokenizer_name)
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
    except Exception as e:
        if is_master:
            logger.error(f"Tokenizer yüklenemedi '{args.tokenizer_name}': {str(e)}")
        sys.exit(1)

    # 2. Sykra Model Mimarisi Konfigürasyonu
    config = SykraConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=args.hidden_size,
        intermediate_size=args.intermediate_size,
        num_hidden_layers=args.num_layers,
        num_attention_heads=args.num_heads,
        num_key_value_heads=args.num_kv_heads,
        head_dim=args.head_dim,
        chunk_size=args.chunk_size,
        max_position_embeddings=args.max_seq_len,
        delta_ratio=args.delta_ratio,
        attention_dropout=args.dropout,
    )

    try:
        model = SykraForCausalLM(config)
        # Delta katmanlarını TPU-native SykraTPUDeltaLayer ile değiştir
        # (sykra_tpu_kernel_v2.py -> convert_model_to_tpu_kernel).
        # ESKİ model.to_tpu() / tpu_kernel.py::TPUGatedDeltaLayer ARTIK
        # KULLANILMIYOR: chunk-başı ağır işlemleri (gram matrisi, üçgen-tersi,
        # causal attention) `for i in range(num_chunks)` döngüsünün İÇİNDE
        # hesaplıyordu -> XLA grafiği katman başına chunk sayısı kadar tamamen
        # unroll ediliyor, derleme dakikalar sürüyor, MXU büyük ölçüde israf
        # ediliyordu (bkz. sykra_tpu_kernel_v2.py docstring, madde 3) ve ayrıca
        # bir doğruluk hatası içeriyordu (madde 1). convert_model_to_tpu_kernel,
        # aynı ağır işlemleri TÜM chunk'lar için TEK seferde batched matmul
        # olarak (döngünün DIŞINDA) hesaplıyor; döngü içinde sadece chunk
        # başına 2 küçük [d x d] matmul kalıyor.
        n_converted = convert_model_to_tpu_kernel(model)
        model = model.to(device)
        if is_master:
            logger.info(f"TPU-native delta kernel'e dönüştürülen katman sayısı: {n_converted}")
    except Exception as e:
        if is_master:
            logger.error(f"Model başlatma başarısız: {str(e)}")
        sys.exit(1)

    # ---- Gradient Checkpointing (TPU/XLA uyumlu) ----
    if args.gradient_checkpointing:
        model.gradient_checkpointing_enable()
        if is_master:
            logger.info(
                "Gradient checkpointing: AKTİF (use_reentrant=False, XLA lazy-tensor izleme ile uyumlu, HBM tasarrufu)."
            )

    if is_master:
        total_params = sum(p.numel() for p in model.parameters())
        logger.info(f"Toplam Parametre: {total_params / 1e6:.2f}M")
        delta_count = sum(1 for l in model.model.layers if not l.is_full_attention)
        attn_count = sum(1 for l in model.model.layers if l.is_full_attention)
        logger.info(
            f"Katman Dağılımı: {delta_count} Gated DeltaNet (TPU-native), "
            f"{attn_count} Full Attention (Oran {args.delta_ratio}:1)."
        )

    # 3. Dataset
    if not os.path.exists(args.dataset_path):
        if is_master:
            logger.warning(
                f"Dataset '{args.dataset_path}' bulunamadı. Sentetik verilerle self-diagnostic test yapılacak."
            )
        num_samples = max(64, args.batch_size * args.grad_accum * 8)
        dataset = _SyntheticTokenDataset(config.vocab_size, args.block_size, num_samples)
    else:
        try:
            dataset = TPUStaticDataset(args.dataset_path, tokenizer, block_size=args.block_size)
        except Exception as e:
            if is_master:
                logger.error(f"Dataset hazırlama başarısız: {str(e)}")
            sys.exit(1)

    sampler = torch.utils.data.distributed.DistributedSampler(
        dataset, num_replicas=world_size, rank=rank, shuffle=True, drop_last=True
    )
    dataloader = DataLoader(
        dataset, batch_size=args.batch_size, sampler=sampler, num_workers=0, drop_last=True
    )

    total_steps = max(1, (len(dataloader) // args.grad_accum) * args.epochs)

    # 4. Optimizasyon Kurulumu
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=args.lr, weight_decay=args.weight_decay, betas=(0.9, 0.95)
    )
    warmup_steps = max(1, int(total_steps * args.warmup_ratio))
    scheduler = get_cosine_schedule_with_warmup(
        optimizer, num_warmup_steps=warmup_steps, num_training_steps=total_steps
    )

    # 5. Eğitim Döngüsü / TPU + Gradient Accumulation
    if is_master:
        logger.info(f"Eğitim başlıyor: {args.epochs} epoch, {total_steps} optimizer adımı.")
    model.train()
    step_count = 0
    start_time = time.time()

    for epoch in range(1, args.epochs + 1):
        sampler.set_epoch(epoch)
        para_loader = pl.ParallelLoader(dataloader, [device]).per_device_loader(device)
        optimizer.zero_grad(set_to_none=True)

        for i, batch in enumerate(para_loader):
            input_ids = batch["input_ids"]
            labels = batch["labels"]

            # TPU v5e/v6e native BFloat16 autocast (GradScaler gerekmiyor; fp16 gibi
            # underflow riski yok, bf16 dynamic range fp32'ye yakın)
            with torch.autocast(device_type="xla", dtype=torch.bfloat16):
                outputs = model(input_ids=input_ids, labels=labels)
                loss = outputs.loss / args.grad_accum

            loss.backward()

            is_accum_boundary = (i + 1) % args.grad_accum == 0 or (i + 1) == len(dataloader)

            if not is_accum_boundary:
                # Ara mikro-adım: sadece grafiği küçük tutmak için tetikle,
                # gradyanlar cihazda birikmeye devam eder (reduce/step YOK).
                xm.mark_step()
                continue

            # Sınır adımı: önce çekirdekler arası all-reduce, SONRA clipping,
            # SONRA optimizer.step(). Senkronize edilmemiş yerel gradyan
            # üzerinde clip yapmak çekirdekler arası tutarsız clipping'e yol açar.
            xm.reduce_gradients(optimizer)

            if args.max_grad_norm > 0:
                grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=args.max_grad_norm)
            else:
                grad_norm = torch.tensor(0.0)

            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            scheduler.step()
            xm.mark_step()

            step_count += 1

            if is_master and (step_count % args.log_interval == 0 or step_count == 1):
                elapsed = time.time() - start_time
                tok_sec = (args.block_size * args.batch_size * world_size * args.grad_accum) / max(1e-5, elapsed)
                cur_lr = scheduler.get_last_lr()[0]
                loss_val = loss.item() * args.grad_accum
                gnorm_val = float(grad_norm)
                logger.info(
                    f"Epoch {epoch:02d}/{args.epochs:02d} | Step {step_count:04d}/{total_steps:04d} | "
                    f"Loss: {loss_val:.4f} | Grad Norm: {gnorm_val:.2f} | "
                    f"LR: {cur_lr:.2e} | Speed: {tok_sec:.0f} tok/s"
                )
                start_time = time.time()

        if is_master:
            logger.info(f"Epoch {epoch:02d} tamamlandı.")

    # 6. Model Serileştirme (yalnızca master rank)
    os.makedirs(args.output_dir, exist_ok=True)
    if is_master:
        logger.info(f"Model ağırlıkları kaydediliyor: '{args.output_dir}'...")
    try:
        xm.save(model.state_dict(), os.path.join(args.output_dir, "pytorch_model.bin"))
        if is_master:
            config.save_pretrained(args.output_dir)
            tokenizer.save_pretrained(args.output_dir)
            logger.info("Ağırlıklar ve konfigürasyon dosyaları başarıyla yazıldı.")
    except Exception as e:
        if is_master:
            logger.error(f"Model kaydetme sırasında hata: {str(e)}")
        sys.exit(1)

    # 7. Üretim Testi (yalnızca master rank, standart -TPU olmayan- mimariye geri yüklenerek)
    if is_master:
        logger.info(
            "Üretim testi: TPUGatedDeltaLayer tek-token recurrent decode desteklemediği için, "
            "kaydedilen ağırlıklar standart (chunkwise + recurrent) mimariye geri yüklenip test ediliyor..."
        )
        try:
            gen_model = AutoModelForCausalLM.from_pretrained(args.output_dir)
            gen_model.eval()
            prompt_ids = tokenizer(args.inference_prompt, return_tensors="pt").input_ids
            with torch.no_grad():
                generated_ids = gen_model.generate(
                    prompt_ids,
                    max_new_tokens=args.max_new_tokens,
                    use_cache=True,
                    do_sample=args.do_sample,
                    temperature=args.temperature,
                    top_k=args.top_k,
                    top_p=args.top_p,
                    pad_token_id=tokenizer.eos_token_id,
                )
            output_text = tokenizer.decode(generated_ids[0], skip_special_tokens=True)
            logger.info(f"Generation Prompt : '{args.inference_prompt}'")
            logger.info(f"Generated Output  :\n{output_text}\n")
        except Exception as e:
            logger.error(f"Üretim testi başarısız: {str(e)}")


# =====================================================================
# 4. Giriş Noktası: XLA doğrulama + çoklu çekirdek spawn
# =====================================================================
def run_tpu_pipeline(args: argparse.Namespace) -> None:
    _require_xla()
    xmp.spawn(_train_worker, args=(vars(args),), nprocs=None, start_method="spawn")


# =====================================================================
# 5. CLI Argument Parser (train_and_generate.py ile aynı flag isimleri)
# =====================================================================
def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Sykra: Hybrid Gated DeltaNet + Multi-Head Self-Attention - TPU Training Pipeline",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )

    # Data and Model paths
    parser.add_argument("--dataset_path", type=str, default="/content/dataset.txt", help="Path to plain text training file.")
    parser.add_argument("--tokenizer_name", type=str, default="gpt2", help="Hugging Face tokenizer identifier.")
    parser.add_argument("--output_dir", type=str, default="./sykra_tpu_trained_model", help="Directory to save model checkpoints.")

    # Architectural Hyperparameters
    parser.add_argument("--hidden_size", type=int, default=768, help="Hidden dimension size.")
    parser.add_argument("--intermediate_size", type=int, default=2048, help="SwiGLU intermediate dimension.")
    parser.add_argument("--num_layers", type=int, default=12, help="Total number of decoder layers.")
    parser.add_argument("--num_heads", type=int, default=12, help="Number of query attention heads.")
    parser.add_argument("--num_kv_heads", type=int, default=4, help="Number of key/value heads for GQA.")
    parser.add_argument("--head_dim", type=int, default=64, help="Dimension per head.")
    parser.add_argument("--chunk_size", type=int, default=64, help="Chunk-parallel GEMM block size (seq_len bunun katı olmalı).")
    parser.add_argument("--delta_ratio", type=int, default=3, help="Ratio of Delta layers to Full Attention layers (e.g. 3:1).")
    parser.add_argument("--max_seq_len", type=int, default=2048, help="Max position embeddings context.")
    parser.add_argument("--dropout", type=float, default=0.0, help="Dropout probability.")

    # Optimization Hyperparameters
    parser.add_argument("--block_size", type=int, default=512, help="Sequence block length per training sample (chunk_size'ın katı olmalı).")
    parser.add_argument("--batch_size", type=int, default=4, help="Çekirdek başına micro-batch size.")
    parser.add_argument("--grad_accum", type=int, default=4, help="Gradient accumulation steps.")
    parser.add_argument("--epochs", type=int, default=5, help="Number of full training epochs.")
    parser.add_argument("--lr", type=float, default=3e-4, help="Peak learning rate.")
    parser.add_argument("--weight_decay", type=float, default=0.01, help="AdamW weight decay.")
    parser.add_argument("--max_grad_norm", type=float, default=1.0, help="Maximum gradient clipping norm (0 = kapalı).")
    parser.add_argument("--warmup_ratio", type=float, default=0.05, help="Linear warmup steps ratio.")
    parser.add_argument("--gradient_checkpointing", action="store_true", help="Enable gradient checkpointing to save TPU HBM.")
    parser.add_argument("--seed", type=int, default=42, help="Random seed.")
    parser.add_argument("--log_interval", type=int, default=10, help="Logging step frequency.")

    # Generation Parameters
    parser.add_argument("--inference_prompt", type=str, default="Sykra architecture is", help="Prompt text for test generation.")
    parser.add_argument("--max_new_tokens", type=int, default=40, help="Number of tokens to generate after training.")
    parser.add_argument("--do_sample", action="store_true", default=True, help="Enable stochastic sampling.")
    parser.add_argument("--temperature", type=float, default=0.7, help="Sampling temperature.")
    parser.add_argument("--top_k", type=int, default=40, help="Top-k sampling threshold.")
    parser.add_argument("--top_p", type=float, default=0.9, help="Top-p nucleus sampling threshold.")

    return parser.parse_args()


if __name__ == "__main__":
    cli_args = parse_args()
    run_tpu_pipeline(cli_args)