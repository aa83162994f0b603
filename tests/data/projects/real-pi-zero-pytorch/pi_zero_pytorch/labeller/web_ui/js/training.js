import { apiFetch, postJson } from './api.js';

// The value-network and policy-finetune modals share identical mechanics
// (config selection, live progress via websocket, success summary); this
// factory wires one modal from its element ids and copy.
function createTrainingModal(opts) {
    const modal = document.getElementById(opts.modalId);
    const startBtn = document.getElementById(opts.startBtnId);
    const cancelBtn = document.getElementById(opts.cancelBtnId);
    const progressView = document.getElementById(opts.progressViewId);
    const successView = document.getElementById(opts.successViewId);
    const configSelection = modal.querySelector('.config-selection');
    const configOptions = modal.querySelectorAll('.config-option');

    const epochEl = document.getElementById(opts.epochId);
    const lossEl = document.getElementById(opts.lossId);
    const progressBar = document.getElementById(opts.progressBarId);
    const stepDetail = document.getElementById(opts.stepDetailId);
    const summaryConfig = document.getElementById(opts.summaryConfigId);
    const summaryEpochs = document.getElementById(opts.summaryEpochsId);
    const summaryLoss = document.getElementById(opts.summaryLossId);

    let selectedConfig = opts.defaultConfig;

    configOptions.forEach(opt => {
        opt.onclick = () => {
            configOptions.forEach(o => o.classList.remove('selected'));
            opt.classList.add('selected');
            selectedConfig = opt.dataset.config;
        };
    });

    cancelBtn.onclick = () => modal.classList.add('hidden-element');

    startBtn.onclick = async () => {
        try {
            const result = await postJson(opts.endpoint, { config: selectedConfig }, startBtn);
            if (result.status === 'ok') {
                progressView.classList.remove('hidden-element');
                if (opts.hideConfigOnStart) configSelection.classList.add('hidden-element');
            }
        } catch (error) { }
    };

    return {
        isOpen: () => !modal.classList.contains('hidden-element'),

        open() {
            modal.classList.remove('hidden-element');
            progressView.classList.add('hidden-element');
            successView.classList.add('hidden-element');
            if (opts.hideConfigOnStart) configSelection.classList.remove('hidden-element');
            startBtn.disabled = false;
            startBtn.textContent = opts.startText;
        },

        update(trainState) {
            if (!trainState.is_training) {
                if (trainState.current_step > 0 && trainState.current_step >= trainState.total_steps) {
                    progressView.classList.add('hidden-element');
                    successView.classList.remove('hidden-element');

                    summaryConfig.textContent = selectedConfig.toUpperCase();
                    summaryEpochs.textContent = trainState.current_epoch;
                    summaryLoss.textContent = trainState.last_loss.toFixed(6);

                    startBtn.disabled = false;
                    startBtn.textContent = opts.againText;
                    if (opts.onComplete) opts.onComplete();
                }
                return;
            }

            progressView.classList.remove('hidden-element');
            successView.classList.add('hidden-element');
            if (opts.hideConfigOnStart) configSelection.classList.remove('hidden-element');
            startBtn.disabled = true;
            startBtn.textContent = opts.busyText;

            epochEl.textContent = trainState.current_epoch;
            lossEl.textContent = trainState.last_loss.toFixed(6);
            progressBar.style.width = `${(trainState.current_step / trainState.total_steps) * 100}%`;
            stepDetail.textContent = `Step ${trainState.current_step} / ${trainState.total_steps}`;
        },
    };
}

let valueModal = null;
let policyModal = null;
let activeValueNetwork = null;

export async function fetchValueNetworks() {
    try {
        const networks = await apiFetch('/api/value/networks/list');
        renderValueNetworks(networks);
    } catch (error) { }
}

function renderValueNetworks(networks) {
    const container = document.getElementById('recap-value-networks');
    container.innerHTML = '';
    if (networks.length === 0) {
        container.innerHTML = '<p class="tiny-label">No models trained yet.</p>';
        return;
    }
    networks.forEach(net => {
        const item = document.createElement('div');
        item.className = 'recap-value-item';
        if (activeValueNetwork === net.filename) item.classList.add('active');

        item.innerHTML = `
            <div class="value-item-header">
                <span class="model-name">${net.config_name.toUpperCase()}</span>
                <span class="model-loss">Loss: ${net.final_loss.toFixed(6)}</span>
            </div>
            <div class="value-item-meta">
                <span>${net.timestamp.replace('_', ' ')}</span>
                <span>${net.epochs} epochs</span>
            </div>
        `;
        item.onclick = () => loadValueNetwork(net.filename);
        container.appendChild(item);
    });
}

async function loadValueNetwork(filename) {
    const data = await postJson('/api/value/networks/load', { filename });
    if (data.status === 'ok') {
        activeValueNetwork = filename;
        document.getElementById('calc-value-btn').disabled = false;
        fetchValueNetworks();
    }
}

function setupTrainingSocket() {
    const protocol = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(`${protocol}//${window.location.host}/ws/training`);

    socket.onmessage = (event) => {
        const data = JSON.parse(event.data);
        if (data.type !== 'training_update') return;
        if (valueModal.isOpen()) {
            valueModal.update(data.state);
        } else if (policyModal.isOpen()) {
            policyModal.update(data.state);
        }
    };
    socket.onerror = () => console.error('Training WebSocket error');
    socket.onclose = () => setTimeout(setupTrainingSocket, 3000);
}

export function initTraining() {
    valueModal = createTrainingModal({
        modalId: 'training-modal',
        startBtnId: 'btn-start-train',
        cancelBtnId: 'btn-cancel-train',
        progressViewId: 'training-progress-view',
        successViewId: 'training-success-view',
        epochId: 'train-epoch',
        lossId: 'train-loss',
        progressBarId: 'train-progress-bar',
        stepDetailId: 'train-step-detail',
        summaryConfigId: 'summary-config',
        summaryEpochsId: 'summary-epochs',
        summaryLossId: 'summary-loss',
        defaultConfig: 'mock',
        startText: 'Start Training',
        busyText: 'Training...',
        againText: 'Train Again',
        endpoint: '/api/value/train',
        hideConfigOnStart: true,
        onComplete: fetchValueNetworks,
    });

    policyModal = createTrainingModal({
        modalId: 'policy-training-modal',
        startBtnId: 'btn-policy-start-train',
        cancelBtnId: 'btn-policy-cancel-train',
        progressViewId: 'policy-training-progress-view',
        successViewId: 'policy-training-success-view',
        epochId: 'policy-train-epoch',
        lossId: 'policy-train-loss',
        progressBarId: 'policy-train-progress-bar',
        stepDetailId: 'policy-train-step-detail',
        summaryConfigId: 'policy-summary-config',
        summaryEpochsId: 'policy-summary-epochs',
        summaryLossId: 'policy-summary-loss',
        defaultConfig: 'small',
        startText: 'Start Finetuning',
        busyText: 'Finetuning...',
        againText: 'Finetune Again',
        endpoint: '/api/recap/finetune',
        hideConfigOnStart: false,
    });

    document.getElementById('train-value-btn').onclick = () => valueModal.open();
    document.getElementById('sidebar-train-btn').onclick = () => valueModal.open();

    const btnFinetunePolicy = document.getElementById('btn-finetune-policy');
    btnFinetunePolicy.onclick = () => {
        if (btnFinetunePolicy.disabled) return;
        policyModal.open();
    };

    setupTrainingSocket();
}
