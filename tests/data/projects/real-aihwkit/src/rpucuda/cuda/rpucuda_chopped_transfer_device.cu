/**
 * (C) Copyright 2026 IBM. All Rights Reserved.
 *
 * Licensed under the MIT license. See LICENSE file in the project root for details.
 */

#include "cuda_fp16_util.h"
#include "forward_backward_pass.h"
#include "io_iterator.h"
#include "rpu_pulsed_meta_parameter.h"
#include "rpucuda_chopped_transfer_device.h"
#include <limits>
#include <memory>

namespace RPU {

/******************************************************************************************/
/* DefferenceRPUDeviceCuda

   CUDA implementation of TransferRPUDevice

*/

template <typename T>
ChoppedTransferRPUDeviceCuda<T>::ChoppedTransferRPUDeviceCuda(
    CudaContextPtr c, const ChoppedTransferRPUDevice<T> &rpu_device) {
  this->context_ = c;
  populateFrom(rpu_device); // use populate to call parent
};

// copy construcutor
template <typename T>
ChoppedTransferRPUDeviceCuda<T>::ChoppedTransferRPUDeviceCuda(
    const ChoppedTransferRPUDeviceCuda<T> &other)
    : BufferedTransferRPUDeviceCuda<T>(other) {

  if (other.cwo_) {
    cwo_ = RPU::make_unique<ChoppedWeightOutput<T>>(*other.cwo_);
  }
  m_x_ = other.m_x_;
  m_d_ = other.m_d_;

  this->context_->synchronizeDevice();
};

// copy assignment
template <typename T>
ChoppedTransferRPUDeviceCuda<T> &
ChoppedTransferRPUDeviceCuda<T>::operator=(const ChoppedTransferRPUDeviceCuda<T> &other) {
  ChoppedTransferRPUDeviceCuda<T> tmp(other);
  swap(*this, tmp);
  this->context_->synchronize();
  return *this;
};

// move constructor
template <typename T>
ChoppedTransferRPUDeviceCuda<T>::ChoppedTransferRPUDeviceCuda(
    ChoppedTransferRPUDeviceCuda<T> &&other) {
  *this = std::move(other);
};

// move assignment
template <typename T>
ChoppedTransferRPUDeviceCuda<T> &
ChoppedTransferRPUDeviceCuda<T>::operator=(ChoppedTransferRPUDeviceCuda<T> &&other) {
  BufferedTransferRPUDeviceCuda<T>::operator=(std::move(other));

  cwo_ = std::move(other.cwo_);
  m_x_ = other.m_x_;
  m_d_ = other.m_d_;

  return *this;
};

template <typename T>
void ChoppedTransferRPUDeviceCuda<T>::populateFrom(const AbstractRPUDevice<T> &rpu_device_in) {

  const auto &rpu_device = dynamic_cast<const ChoppedTransferRPUDevice<T> &>(rpu_device_in);
  if (&rpu_device == nullptr) {
    RPU_FATAL("populateFrom expects ChoppedTransferRPUDevice.");
  }

  BufferedTransferRPUDeviceCuda<T>::populateFrom(rpu_device_in);

  if (this->n_devices_ != 2) {
    RPU_FATAL("Expect at exactly two devices.");
  }

  this->transfer_vecs_ = nullptr; // not needed: forced one-hot

  const auto &par = getPar();
  par.checkSupported();

  m_x_ = rpu_device.getMx();
  m_d_ = rpu_device.getMd();

  // populate parameters of CWO
  cwo_ = RPU::make_unique<ChoppedWeightOutput<T>>(this->context_, this->x_size_, this->d_size_);
  ChoppedWeightOutputParameter<T> cwo_par;

  cwo_par.use_columns = par.transfer_columns;
  cwo_par.every = 1; // will be re-set later
  cwo_par.in_chop_prob = par.in_chop_prob;
  cwo_par.out_chop_prob = par.out_chop_prob;
  cwo_par.in_chop_random = par.in_chop_random;
  cwo_->setPar(cwo_par);
  cwo_->setCounter(this->current_update_idx_);

  if (par.transfer_flexible_insize) {
    cwo_->setFlexibleInSize(this->transfer_fb_pass_->checkFlexibleInSize(par.transfer_io));
  } else {
    cwo_->setFlexibleInSize(false);
  }

  if (par.usesAutoTransferEvery()) {
    if (par.units_in_mbatch) {
      RPU_FATAL("Auto transfer every is not supported for units in m_batch");
    }
  }
}

template <typename T>
void ChoppedTransferRPUDeviceCuda<T>::dumpExtra(RPU::state_t &extra, const std::string prefix) {

  BufferedTransferRPUDeviceCuda<T>::dumpExtra(extra, prefix);

  RPU::state_t state;
  RPU::insert(state, "m_x", m_x_);
  RPU::insert(state, "m_d", m_d_);
  RPU::insert(state, "d_sparsity", d_sparsity_);

  cwo_->dumpExtra(state, "cwo");

  RPU::insertWithPrefix(extra, state, prefix);
}

template <typename T>
void ChoppedTransferRPUDeviceCuda<T>::loadExtra(
    const RPU::state_t &extra, const std::string prefix, bool strict) {

  BufferedTransferRPUDeviceCuda<T>::loadExtra(extra, prefix, strict);
  auto state = RPU::selectWithPrefix(extra, prefix);

  RPU::load(state, "m_x", m_x_, strict);
  RPU::load(state, "m_d", m_d_, strict);
  RPU::load(state, "d_sparsity", d_sparsity_, strict);

  cwo_->loadExtra(state, "cwo", strict);
}

template <typename T>
int ChoppedTransferRPUDeviceCuda<T>::getTransferEvery(
    int didx, int m_batch, const PulsedUpdateMetaParameter<T> &up) const {

  const auto &par = getPar();
  if (par.usesAutoTransferEvery()) {
    T t = par.getAutoTransferEvery(this->rpucuda_device_vec_[didx]->getNumStates(), up);
    return MAX(1, (int)floorf(t));
  }
  return BufferedTransferRPUDeviceCuda<T>::getTransferEvery(didx, m_batch, up);
}

template <typename T>
void ChoppedTransferRPUDeviceCuda<T>::readMatrix(
    int device_idx, const T *in_vec, T *out_vec, int n_vec, T alpha) {
  const auto &par = getPar();

  if (device_idx != 0) {
    RPU_FATAL("Only read from device index 0.");
  }

  if (in_vec != nullptr) {
    RPU_FATAL("only one-hot transfer vectors supported.");
  }
  if (n_vec != cwo_->getNumWeightOutputs()) {
    RPU_FATAL("n_vec mismatch!");
  }

  if (n_vec == 0) {
    return;
  }

  bool in_size_flexible = this->cwo_->getFlexibleInSize();
  DEBUG_CALL(cwo_->print());

  if (in_size_flexible) {
    // in case no input dependence, we can read out in one go

    DEBUG_CALL(cwo_->printWeightOutputInChopper());
    T *output_weights = cwo_->getWeightOutputData();
    chop_t *wo_chopper_data = cwo_->getWeightOutputInChopperData();
    // matrix consisting of transfer vectors. each column is a one-hot vector
    // also the in-chopper is applied
    size_t max_n_vec_per_chunk = (par.transfer_max_vec_chunk_size + n_vec - 1) / n_vec;
    size_t n_chunks = (n_vec + max_n_vec_per_chunk - 1) / max_n_vec_per_chunk;

    for (int i_chunk = 0; i_chunk < n_chunks; i_chunk++) {

      size_t n_done_vec = i_chunk * max_n_vec_per_chunk;
      size_t offset = n_done_vec * n_vec;

      DiagInputIterator<T, chop_t> diag_iter(wo_chopper_data, n_vec, offset);
      size_t m_chunk = i_chunk == n_chunks - 1 ? n_vec - n_done_vec : max_n_vec_per_chunk;

      if (par.transfer_columns) {
        this->transfer_fb_pass_->forwardMatrixIterator(
            output_weights, diag_iter, n_vec, false, out_vec + n_done_vec * this->d_size_,
            this->d_size_, false, m_chunk, alpha, *this->transfer_iom_, par.transfer_io, false);

      } else {
        // backward with transfer vectors.
        this->transfer_fb_pass_->backwardMatrixIterator(
            output_weights, diag_iter, n_vec, false, out_vec + n_done_vec * this->x_size_,
            this->x_size_, false, m_chunk, alpha, *this->transfer_iom_, par.transfer_io);
      }
    }

  } else {

    int out_size = cwo_->getOutSize();
    int in_size = cwo_->getInSize();
    int n_pass = (n_vec + in_size - 1) / in_size;
    int size = in_size * out_size;
    for (int i_pass = 0; i_pass < n_pass; i_pass++) {
      // we potentially need to run multiple passes in case a
      // particular col/vec is transferred twice or more, in which case
      // the weight matrix is concatenated, to not mess up the position
      // of the row/col for the analog MV.

      // NOTE: the non-read out weights might be arbitrary value. Should
      // not matter though as input is 0 for those.
      DEBUG_OUT("Chopper output: ");
      DEBUG_CALL(cwo_->printWeightOutputInChopper());

      int wo_offset = i_pass * size;
      chop_t *wo_chopper_data = cwo_->getWeightOutputInChopperData() + i_pass * in_size;
      DiagInputIterator<T, chop_t> diag_iter(
          wo_chopper_data, in_size, cwo_->getValStart() * in_size, -cwo_->getValStart());
      T *output_weights = cwo_->getWeightOutputData() + wo_offset;

      DEBUG_OUT("Iterator content: ");
      DEBUG_CALL(
          CudaArray<T> dev_a(this->context_, in_size * in_size);
          math::copyWithIterator(this->context_, dev_a.getData(), diag_iter, in_size * in_size);
          this->context_->synchronize(); dev_a.printMatrixValues(in_size););

      DEBUG_OUT("Weight output content: ");
      DEBUG_CALL(
          CudaArray<T> dev_a(this->context_, in_size * out_size); math::copyWithIterator(
              this->context_, dev_a.getData(), output_weights, in_size * out_size);
          this->context_->synchronize(); dev_a.printMatrixValues(this->d_size_););

      int sub_n_vec = (i_pass < n_pass - 1) ? in_size : (n_vec - in_size * i_pass);

      DEBUG_OUT("sub_n_vec: " << sub_n_vec);
      DEBUG_OUT("n_pass: " << n_pass);
      DEBUG_OUT("i_pass: " << i_pass);
      DEBUG_OUT("in_size: " << in_size);
      DEBUG_OUT("n_vec: " << n_vec);

      if (par.transfer_columns) {
        this->transfer_fb_pass_->forwardMatrixIterator(
            output_weights, diag_iter, in_size, false, out_vec + wo_offset, out_size, false,
            sub_n_vec, alpha, *this->transfer_iom_, par.transfer_io, false);

      } else {
        // backward with transfer vectors.
        this->transfer_fb_pass_->backwardMatrixIterator(
            output_weights, diag_iter, in_size, false, out_vec + wo_offset, out_size, false,
            sub_n_vec, alpha, *this->transfer_iom_, par.transfer_io);
      }

      DEBUG_OUT("Transfer output content: ");
      DEBUG_CALL(
          CudaArray<T> dev_a(this->context_, in_size * out_size); math::copyWithIterator(
              this->context_, dev_a.getData(), out_vec + wo_offset, in_size * out_size);
          this->context_->synchronize(); dev_a.printMatrixValues(out_size););
    }
  }
}

template <typename T>
void ChoppedTransferRPUDeviceCuda<T>::writeMatrix(
    int device_idx,
    const T *in_vec,
    const T *out_vec,
    int m_batch,
    const T lr,
    const PulsedUpdateMetaParameter<T> &up) {
  const auto &par = getPar();
  // note that the ptrs might point to the current weight
  T *W = this->dev_weights_ptrs_[device_idx];

  if (device_idx != 1) {
    RPU_FATAL("Only write to device index 1.");
  }
  if (in_vec != nullptr) {
    RPU_FATAL("only one hot-transfer vectors supported.");
  }
  if (m_batch == 0) {
    return;
  }

  // NOTE: here again the out_vec are the buffer weight outputs
  // (derived from the buffer after writing the weight outputs to it)
  // that could have multiple wrap around cycles but always sequential
  // in in_size. We use the EyeIterator with offset to generate the
  // corresponding one-hot input vectors

  int in_size = par.transfer_columns ? this->x_size_ : this->d_size_;

  // this iterator will wrap around: i_slice_start is val start
  EyeInputIterator<T> eye_iter(in_size, cwo_->getValStart() * in_size);

  if (par.transfer_columns) {
    this->transfer_pwu_->update(
        eye_iter, out_vec, W, &*this->rpucuda_device_vec_[device_idx], up, fabsf(lr), m_batch,
        false, false);
  } else {
    this->transfer_pwu_->update(
        out_vec, eye_iter, W, &*this->rpucuda_device_vec_[device_idx], up, fabsf(lr), m_batch,
        false, false);
  }

  DEBUG_OUT("Updated W out: ");
  DEBUG_CALL(
      CudaArray<T> dev_a(this->context_, this->x_size_ * this->d_size_);
      math::copyWithIterator(this->context_, dev_a.getData(), W, this->x_size_ * this->d_size_);
      this->context_->synchronize(); dev_a.printMatrixValues(this->d_size_););
}

/*********************************************************************************/
/* partially transfer using the given "readout" transfer vectors
   (with io-managed forward) and buffer the results in
   digital. Transfer only to next device if threshold is reached. */

template <typename T>
__global__ void kernelChoppedTransfer(
    T *transfer_out,
    T *W_buffer,
    const T *transfer_in,      // size: out_size * n_wo  [starts with start_read_idx]
    const chop_t *in_chopper,  // size: n_wo  NOTE: is already applied to transfer_in
    const chop_t *out_chopper, // size: n_wo * out_size
    const int out_size,
    const int in_size,
    const int n_vec,
    const int start_read_idx,
    const T lr_scale_in,
    const T sub_momentum,
    const int max_steps_in,
    const bool forget_buffer_in,
    const bool no_buffer) {

  // W_buffer += transfer_in * lr_scale_in;
  // transfer_out: the number of step to increase by `W_buffer`;

  UNUSED(in_chopper);

  const T max_steps = (T)max_steps_in;
  const int w_size = out_size * in_size;
  const int t_size = out_size * n_vec;
  const T momentum = -sub_momentum + (T)1.0;
  const bool forget_buffer = forget_buffer_in;
  const T lr_scale = lr_scale_in;

  // CAUTION: n_vec might have mulitple wraps around in_size, we need
  // to thus make sure that the same threads are working on the same
  // repeat.
  int n_repeats = (n_vec + in_size - 1) / in_size;

  RPU_CUDA_1D_KERNEL_LOOP(idx, w_size) {

    int buffer_idx = (idx + start_read_idx * out_size) % w_size;
    T omega = no_buffer ? (T)0.0 : W_buffer[buffer_idx];

    for (int i_rep = 0; i_rep < n_repeats; i_rep++) {

      int inp_idx = idx + i_rep * w_size;

      if (inp_idx >= t_size) {
        break;
      }

      chop_t out_chop = out_chopper[inp_idx];
      T x = transfer_in[inp_idx];

      x = out_chop > 0 ? x : -x;
      omega += x * lr_scale;

      // writing
      T n_steps = 0;
      if (fabs(omega) >= (T)1.0) {
        n_steps = MIN(MAX(trunc(omega), -max_steps), max_steps);

        if (!no_buffer) {
          if (forget_buffer) {
            omega *= momentum;
          } else {
            omega -= sub_momentum * n_steps;
          }
        }
      }
      transfer_out[inp_idx] = -n_steps; // negative because of LR has reverse meaning
    }
    if (!no_buffer) {
      W_buffer[buffer_idx] = omega;
    }
  }
}


// Applies chopper correction when gamma > 0.
// The fast weight A is stored in "chopped" form: A_stored[i,j] ≈ c_d[i] * c_x[j] * A_true[i,j].
// After the base GEMV produces W = gamma * A_stored + C, this kernel corrects it to
//   W = gamma * c_d[i] * c_x[j] * A_stored[i,j] + C[i,j]
// by adding gamma * (c_d[i]*c_x[j] - 1) * A_stored[i,j] to each element.
// The choppers are boolean flags; the de-chopping sign is +1 when c_x and c_d
// agree and -1 when they differ (matching the read path), which equals
// c_d[i]*c_x[j] when the flags are interpreted as +/-1.
// Layout: W[x_idx * d_size + d_idx] (column-major, d as inner dimension).
template <typename T>
__global__ void kernelApplyChopperCorrectionToWeights(
    T *dev_weights,
    const T *A,
    const chop_t *c_x, // size: x_size
    const chop_t *c_d, // size: d_size
    const T gamma,
    const int d_size,
    const int total_size) {

  RPU_CUDA_1D_KERNEL_LOOP(idx, total_size) {
    int d_idx = idx % d_size;
    int x_idx = idx / d_size;
    T chop = (c_x[x_idx] != c_d[d_idx]) ? (T)-1.0 : (T)1.0;
    dev_weights[idx] += gamma * (chop - (T)1.0) * A[idx];
  }
}

template <typename T>
void ChoppedTransferRPUDeviceCuda<T>::reduceToWeights(CudaContextPtr context, T *dev_weights) {
  const auto &par = getPar();

  if (par.fullyHidden()) {
    // fully_hidden_: dev_weights_ptrs_[last] == dev_weights already, no-op.
    return;
  }

  // Standard GEMV: W = gamma * A + C (+ any additional slow devices)
  VectorRPUDeviceCuda<T>::reduceToWeights(context, dev_weights);

  T gamma = par.gamma_vec[0]; // fast weight (device[0]) contribution scale
  if (gamma == (T)0.0) {
    return;
  }

  // Apply chopper correction: replace gamma*A with gamma*(c_d⊗c_x)*A element-wise.
  chop_t *c_x = cwo_->getXChopperInData();
  chop_t *c_d = cwo_->getDChopperInData();
  if (c_x == nullptr || c_d == nullptr) {
    // No chopper active — base GEMV result is already correct.
    return;
  }

  int n = this->size_;
  int nthreads = context->getNThreads(n);
  int nblocks = context->getNBlocks(n, nthreads);

  kernelApplyChopperCorrectionToWeights<T><<<nblocks, nthreads, 0, context->getStream()>>>(
      dev_weights, this->dev_weights_ptrs_[0], c_x, c_d, gamma, this->d_size_, n);
}

template <typename T>
void ChoppedTransferRPUDeviceCuda<T>::readAndUpdate(
    int to_device_idx,
    int from_device_idx,
    int i_slice_start,
    const T transfer_lr,
    const T count_lr,
    const T *vec,
    const int n_vec,
    const PulsedUpdateMetaParameter<T> &up) {
  if (transfer_lr == (T)0.0) {
    return;
  }
  if (!this->transfer_buffer_vec_.size()) {
    RPU_FATAL("First populate device.");
  }
  const auto &par = this->getPar();
  UNUSED(vec); // will use one-hot always

  int in_size = par.getInSize();
  int out_size = par.getOutSize();
  int t_size = n_vec * out_size; // transfer size
  T to_weight_granularity = this->rpucuda_device_vec_[to_device_idx]->getWeightGranularity();
  T from_weight_granularity = this->rpucuda_device_vec_[from_device_idx]->getWeightGranularity();

  T *transfer_tmp = this->context_->template getSharedBuffer<T>(RPU_BUFFER_DEVICE_0, t_size);
  T *transfer_out = this->context_->template getSharedBuffer<T>(RPU_BUFFER_DEVICE_1, t_size);
  T lr_scale = par.getTransferLRScale(
      from_weight_granularity, to_weight_granularity, transfer_lr, count_lr, 
      cwo_->getCurrentMBatch());

  // forward/backward with transfer vectors into tmp
  this->readMatrix(from_device_idx, nullptr, transfer_tmp, n_vec, (T)1.0);

  // out-size major
  T *B = this->transfer_buffer_vec_[from_device_idx]->getData();

  int n = MIN(in_size * out_size, t_size);
  int nthreads = this->context_->getNThreads(n);
  int nblocks = this->context_->getNBlocks(n, nthreads);
  T sub_momentum = (T)1.0 - MAX(MIN(par.momentum, (T)1.0), (T)0.0);

  // `transfer_tmp` is a column/row of the weight on `from_device_idx`
  // transfer a column/row from `from_device_device` to the digital buffer `B`
  // `transfer_out`: the number of step to increase weight in `to_device_idx` by `B`;
  kernelChoppedTransfer<T><<<nblocks, nthreads, 0, this->context_->getStream()>>>(
      transfer_out, B, transfer_tmp, cwo_->getWeightOutputInChopperData(),
      cwo_->getWeightOutputOutChopperData(), out_size, in_size, n_vec, i_slice_start, lr_scale,
      sub_momentum, up.desired_BL, par.forget_buffer, par.no_buffer);

  DEBUG_OUT("Out chopper: ");
  DEBUG_CALL(
      CudaArray<chop_t> dev_a(this->context_, out_size * n_vec); math::copyWithIterator(
          this->context_, dev_a.getData(), cwo_->getWeightOutputOutChopperData(), out_size * n_vec);
      this->context_->synchronize(); dev_a.printMatrixValues(out_size););

  DEBUG_OUT("Transfer out: ");
  DEBUG_CALL(
      CudaArray<T> dev_a(this->context_, out_size * n_vec);
      math::copyWithIterator(this->context_, dev_a.getData(), transfer_out, out_size * n_vec);
      this->context_->synchronize(); dev_a.printMatrixValues(out_size););
  DEBUG_OUT("Buffer out: ");
  DEBUG_CALL(
      CudaArray<T> dev_a(this->context_, out_size * in_size);
      math::copyWithIterator(this->context_, dev_a.getData(), B, out_size * in_size);
      this->context_->synchronize(); dev_a.printMatrixValues(out_size););
  // update according to device
  T write_lr = par.getWriteLR(to_weight_granularity);
  // the second and third arguments of `writeMatrix` are the vectors of rank-updates
  // (1) `transfer_out`, a column of the digital buffer B
  // (2) an one-hot vector, which will be assigned in `writeMatrix`. So `nullptr` is passed here
  this->writeMatrix(to_device_idx, nullptr, transfer_out, n_vec, write_lr, up);

  this->context_->template releaseSharedBuffer<T>(RPU_BUFFER_DEVICE_0);
  this->context_->template releaseSharedBuffer<T>(RPU_BUFFER_DEVICE_1);
}

template <typename T>
T ChoppedTransferRPUDeviceCuda<T>::getPulseCountLearningRate(
    T lr, int current_m_batch, const PulsedUpdateMetaParameter<T> &up) {

  const auto &par = getPar();
  T out_count_lr;

  if (par.auto_scale && par.fast_lr > (T)0.0) {

    T transfer_every = (T)this->getTransferEvery(0, current_m_batch, up);
    out_count_lr = par.getPulseCountAutoLR(
        m_x_, m_d_, d_sparsity_, this->rpucuda_device_vec_[0]->getWeightGranularity(),
        transfer_every, up);
    if (par.scale_fast_lr) {
      out_count_lr *= lr;
    }
  } else {
    out_count_lr =
        BufferedTransferRPUDeviceCuda<T>::getPulseCountLearningRate(lr, current_m_batch, up);
    // scale so that it is constant for tile size / dw_min / bl - change
    // out_count_lr /= par.getInSize() * fabs(par.transfer_every);
  }
  return out_count_lr;
}

/*********************************************************************************/
template <typename T>
void ChoppedTransferRPUDeviceCuda<T>::transfer(
    int to_device_idx,
    int from_device_idx,
    const PulsedUpdateMetaParameter<T> &current_up,
    const T current_lr,
    const T current_count_lr) {

  const auto &par = getPar();
  int in_size = par.getInSize();
  int out_size = par.getOutSize();

  // the index of transferred column/row
  int i_slice = cwo_->getValStart();

  int n_transfers = cwo_->getNumWeightOutputs(); // could be more than in_size !
  T transfer_lr = par.getTransferLR(to_device_idx, from_device_idx, current_lr);

  // unlike `TransferRPUDeviceCuda`, which use a transfer vector (`transfer_vecs_`) to mark
  //   the index of transferred column/row, here `i_slice` is used to mark the index
  //   So the argument `vec` is nullptr here
  readAndUpdate(
      to_device_idx, from_device_idx, i_slice, transfer_lr, current_count_lr, nullptr, n_transfers,
      par.transfer_up);
  this->current_slice_indices_[from_device_idx] = (i_slice + n_transfers) % in_size;
}

/*********************************************************************************/
template <typename T>
pwukpvec_t<T> ChoppedTransferRPUDeviceCuda<T>::getUpdateKernels(
    int m_batch, int nK32, int use_bo64, bool out_trans, const PulsedUpdateMetaParameter<T> &up) {

  pwukpvec_t<T> v;

  // Note: Every will remain FIXED for the remainder (even if
  // batchsize is changed)
  auto t_every = this->getTransferEvery(0, m_batch, up);
  cwo_->setEvery(t_every);

  v = this->rpucuda_device_vec_[0]->getUpdateKernels(m_batch, nK32, use_bo64, out_trans, up);
  for (auto &kpars : v) {
    kpars->ensureCWO();
  }

  return v;
}

/*********************************************************************************/
template <typename T>
void ChoppedTransferRPUDeviceCuda<T>::runUpdateKernel(
    pwukp_t<T> kpars,
    CudaContextPtr up_context,
    T *dev_weights,
    int m_batch,
    const BitLineMaker<T> *blm,
    const PulsedUpdateMetaParameter<T> &up,
    const T lr,
    curandState_t *dev_states,
    int one_sided,
    uint32_t *x_counts_chunk,
    uint32_t *d_counts_chunk,
    const ChoppedWeightOutput<T> *cwo) {
  // calling kpars->run(..,this,..) directly should cause error because  derived from abstract
  // device..

  if (x_counts_chunk != nullptr || d_counts_chunk != nullptr) {
    RPU_FATAL("Chunking not allowed here.");
  }
  if (cwo) {
    RPU_FATAL("Explicit CWO as input not allowed here.");
  }

  // if (!this->fully_hidden_) {
  //   RPU_FATAL("Expects fully hidden fast matrix.");
  // }

  if (blm->getCurrentLR() == (T)0.0) {
    return;
  }

  const auto &par = getPar();
  // set full hidden
  // When gamma > 0, A contributes to the visible weight W = gamma*(c_d⊗c_x)*A + C.
  // The chopper correction is applied in reduceToWeights() via
  // kernelApplyChopperCorrectionToWeights, so no special handling is needed here.
  if (par.fullyHidden()) {
    this->dev_weights_ptrs_[this->n_devices_ - 1] = dev_weights;
  }
  // TODO: enable asynchronous update on a separate update stream.
  //       for that one needs to make sure that wait events are
  //       inserted in the main stream and that all the context
  //       pointers are set correctly for CWO / DEVICE etc.  always
  //       same (up) context.
  CudaContextPtr c = up_context;

  // generate the choppers, advance counter, etc
  cwo_->makeWeightOutputChoppers(blm);

  // here m_batch data samples (gradients) are used to update the fast weight (the last device)
  //   no transfer happens during the update process
  // if m_batch is greater than `transfer_every`, all transfers are deferred to the end 
  this->rpucuda_device_vec_[0]->runUpdateKernel(
      kpars, c, this->dev_weights_ptrs_[0], m_batch, blm, up, lr, dev_states, one_sided, nullptr,
      nullptr, &*cwo_);

  if (up._currently_tuning) {
    cwo_->releaseBuffers();
    return;
  }
  if (par.auto_scale) {
    T abs_m_x;
    T abs_m_d;
    blm->getAverageAbsMax(abs_m_x, abs_m_d); // this will sync...
    par.updateAutoScale(m_x_, abs_m_x, 1);
    par.updateAutoScale(m_d_, abs_m_d, 1);
  }
  if (up.d_sparsity) {
    T d_sparsity = blm->getAverageDSparsity(); // this will sync
    par.updateAutoScale(d_sparsity_, d_sparsity, 1);
  }

  // let CWO do the counting
  this->current_update_idx_ = cwo_->getCounter();

  // Note:  higher order devices not supported for CWO

  // -- do the transfer
  if (cwo_->getNumWeightOutputs() > 0) {
    transfer(1, 0, up, lr, blm->getCurrentLR());

    // always fully hidden, reduce is no-op anyway
    this->reduceToWeights(up_context, dev_weights);
  }
  // will sync
  cwo_->releaseBuffers();
}

template class ChoppedTransferRPUDeviceCuda<float>;
#ifdef RPU_USE_DOUBLE
template class ChoppedTransferRPUDeviceCuda<double>;
#endif
#ifdef RPU_USE_FP16
template class ChoppedTransferRPUDeviceCuda<half_t>;
#endif

} // namespace RPU
